"""BackgroundExtraction: run `extract + write` off the caller's thread so the next prompt appears at once.

One daemon worker per session handles jobs in order; `wait` lets `-p` give it a bounded grace period before
exiting. Nothing raised by a job or a callback ever reaches the caller.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Sized
from typing import Protocol

log = logging.getLogger(__name__)

Job = Callable[[str], int]  # submitted text -> number of facts saved
DoneCallback = Callable[[int], None]

_STOP = object()


class TurnExtraction(Protocol):
    """MemoryManager satisfies this."""

    def extract_facts_from_user_turn(self, text: str) -> Sized: ...


def manager_job(manager: TurnExtraction) -> Job:
    """The usual job: the manager's guarded extract-and-write, reporting how many facts were saved."""
    return lambda text: len(manager.extract_facts_from_user_turn(text))


class BackgroundExtraction:
    def __init__(self, job: Job, *, name: str = "paicli-fact-extraction") -> None:
        self._job = job
        self._name = name
        self._queue: queue.Queue[object] = queue.Queue()
        self._idle = threading.Condition()
        self._pending = 0
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._closed = False

    @property
    def pending(self) -> int:
        with self._idle:
            return self._pending

    def submit(self, text: str, on_done: DoneCallback | None = None) -> None:
        """Queue one extraction and return immediately; `on_done(saved_count)` runs on the worker thread."""
        if self._closed:
            return
        with self._idle:
            self._pending += 1
        self._ensure_worker()
        self._queue.put((text, on_done))

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every queued job has finished (True) or `timeout` seconds passed (False)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def close(self) -> None:
        """Stop accepting jobs; the worker exits after the queued ones (it is a daemon, so exit never hangs)."""
        self._closed = True
        self._queue.put(_STOP)

    def _ensure_worker(self) -> None:
        with self._lock:
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            assert isinstance(item, tuple)
            text: str = item[0]
            on_done: DoneCallback | None = item[1]
            try:
                self._run_one(text, on_done)
            finally:
                with self._idle:
                    self._pending -= 1
                    self._idle.notify_all()

    def _run_one(self, text: str, on_done: DoneCallback | None) -> None:
        try:
            saved = self._job(text)
        except Exception:
            log.warning("automatic fact extraction failed", exc_info=True)
            saved = 0
        if on_done is None:
            return
        try:
            on_done(saved)
        except Exception:
            log.warning("extraction callback failed", exc_info=True)


class BackgroundWork:
    """One daemon worker running callables in order (the relation judge's refinements of explicit saves).

    Nothing a task raises reaches the caller; `wait` lets `-p` and the REPL's exit give the queue a grace period.
    """

    def __init__(self, name: str = "paicli-memory-work") -> None:
        self._runner = BackgroundExtraction(self._call, name=name)
        self._tasks: queue.Queue[Callable[[], None]] = queue.Queue()

    @property
    def pending(self) -> int:
        return self._runner.pending

    def submit(self, task: Callable[[], None]) -> None:
        self._tasks.put(task)
        self._runner.submit("")

    def wait(self, timeout: float | None = None) -> bool:
        return self._runner.wait(timeout)

    def _call(self, _: str) -> int:
        self._tasks.get()()
        return 0
