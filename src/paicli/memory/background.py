"""BackgroundExtraction: run `extract + write` off the caller's thread so the next prompt appears at once.

One daemon worker per session handles jobs in order; `wait` lets `-p` give it a bounded grace period before
exiting. Nothing raised by a job or a callback ever reaches the caller.

A job yields to turns (issue 40: a local server often has one slot, and a turn queued behind a side call waits
for all of it): none starts while a turn runs, and one running when a turn starts is cancelled (its model call
closes at once, `cancel_scope`) and stays first in line for when the turn is over. What is still pending when
the session ends can be handed over (`pending_texts`) for the next session instead of being lost.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections import deque
from collections.abc import Callable, Sized
from typing import Protocol

from paicli.cancel import CancelToken, cancel_scope

log = logging.getLogger(__name__)

Job = Callable[[str], int]  # submitted text -> number of facts saved
DoneCallback = Callable[[int], None]


class Extractor(Protocol):
    def extract(self, text: str, corrects: Callable[[str], bool] | None = None) -> list[str]:
        """Verbatim quotes of durable facts the user stated in `text` (may call a model); `corrects(quote)`:
        whether the quote gives a stored subject a new value."""
        ...


class TurnExtraction(Protocol):
    """MemoryManager satisfies this."""

    def extract_facts_from_user_turn(self, text: str, extractor: Extractor | None = None) -> Sized: ...


def manager_job(manager: TurnExtraction, extractor: Extractor | None = None) -> Job:
    """The usual job: the manager's guarded extract-and-write by `extractor` (the session's, given at each
    call; None: the manager's own), reporting how many facts were saved."""
    return lambda text: len(manager.extract_facts_from_user_turn(text, extractor))


class _Item:
    def __init__(self, text: str, on_done: DoneCallback | None) -> None:
        self.text = text
        self.on_done = on_done


class BackgroundExtraction:
    def __init__(self, job: Job, *, name: str = "paicli-fact-extraction") -> None:
        self._job = job
        self._name = name
        self._items: deque[_Item] = deque()
        self._idle = threading.Condition()
        self._pending = 0
        self._thread: threading.Thread | None = None
        self._closed = False
        self._handed_over = False
        self._turns = 0  # turns running now: no job starts meanwhile
        self._running: tuple[_Item, CancelToken] | None = None

    @property
    def pending(self) -> int:
        with self._idle:
            return self._pending

    def submit(self, text: str, on_done: DoneCallback | None = None) -> None:
        """Queue one extraction and return immediately; `on_done(saved_count)` runs on the worker thread."""
        with self._idle:
            if self._closed:
                return
            self._pending += 1
            self._items.append(_Item(text, on_done))
            self._ensure_worker()
            self._idle.notify_all()

    def turn_started(self) -> None:
        """A turn needs the model now: the job running is cancelled (to run again later), none starts."""
        with self._idle:
            self._turns += 1
            running = self._running
        if running is not None:
            running[1].cancel()

    def turn_ended(self) -> None:
        with self._idle:
            self._turns = max(0, self._turns - 1)
            self._idle.notify_all()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until every queued job has finished (True) or `timeout` seconds passed (False)."""
        with self._idle:
            return self._idle.wait_for(lambda: self._pending == 0, timeout)

    def pending_texts(self) -> list[str]:
        """Stop here: the job running is cancelled, and the texts not done yet are returned (handed over to
        the next session); nothing more runs or is accepted."""
        with self._idle:
            self._closed = self._handed_over = True
            running = self._running
            texts = [item.text for item in self._items]
            self._items.clear()
            self._pending = 0
            self._idle.notify_all()
        if running is not None:
            running[1].cancel()
        return texts

    def close(self) -> None:
        """Stop accepting jobs; the worker exits after the queued ones (it is a daemon, so exit never hangs)."""
        with self._idle:
            self._closed = True
            self._idle.notify_all()

    def _ensure_worker(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
            self._thread.start()

    def _ready(self) -> bool:
        return (
            self._handed_over or bool(self._items and not self._turns) or (self._closed and not self._items)
        )

    def _next(self) -> tuple[_Item, CancelToken] | None:
        with self._idle:
            self._idle.wait_for(self._ready)
            if self._handed_over or not self._items:
                return None
            self._running = (self._items[0], CancelToken())
            return self._running

    def _run(self) -> None:
        while True:
            taken = self._next()
            if taken is None:
                return
            item, token = taken
            saved = self._run_one(item.text, token)
            with self._idle:
                self._running = None
                if self._handed_over:  # its text went to the next session
                    return
                if token.cancelled and saved == 0:  # a turn cut its model call short: first in line again
                    continue
                self._items.popleft()
            self._finish(item, saved)

    def _finish(self, item: _Item, saved: int) -> None:
        try:
            if item.on_done is not None:
                item.on_done(saved)
        except Exception:
            log.warning("extraction callback failed", exc_info=True)
        finally:
            with self._idle:
                self._pending -= 1
                self._idle.notify_all()

    def _run_one(self, text: str, token: CancelToken) -> int:
        try:
            with cancel_scope(token):  # a turn starting cancels the model call under way
                return self._job(text)
        except Exception:
            log.warning("automatic fact extraction failed", exc_info=True)
            return 0


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
