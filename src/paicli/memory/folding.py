"""Folding the journal into `long_term_memory.json`: the background worker that does it after saves, and the
file text it writes (issue 49).

The worker runs a store's `fold` on a daemon thread once no save came for `delay` seconds (a burst of saves
folds once, after it, so no save of the burst waits for a fold's write of the whole file; at most
`MAX_WAITS` delays after the first save of a long burst) and once more at interpreter exit, so the Java PaiCLI, which reads only the JSON file, sees every
committed fact at the latest when the paicli process that wrote it ends.
"""

from __future__ import annotations

import atexit
import logging
import threading
import time
import weakref
from collections.abc import Callable, Iterable

from paicli.memory.entry import MemoryEntry
from paicli.memory.jackson import render_entry

log = logging.getLogger(__name__)

EXIT_WAIT_SECONDS = 30.0
MAX_WAITS = 10
_workers: weakref.WeakSet[FoldWorker] = weakref.WeakSet()


def _finish_at_exit() -> None:
    """Fold what is pending before the interpreter finalizes (no daemon thread may still be in numpy then)."""
    for worker in list(_workers):
        worker.close(EXIT_WAIT_SECONDS)


atexit.register(_finish_at_exit)


def payload(
    blocks: Iterable[tuple[MemoryEntry | None, bytes | None]], cache: dict[str, tuple[MemoryEntry, bytes]]
) -> tuple[bytes, list[bytes]]:
    """The memory file's bytes from per-entry (entry to render, or its unchanged block) pairs, and the blocks."""
    rendered: list[bytes] = []
    fresh: dict[str, tuple[MemoryEntry, bytes]] = {}
    for entry, block in blocks:
        if block is None:
            assert entry is not None
            hit = cache.get(entry.id)
            block = hit[1] if hit is not None and hit[0] is entry else render_entry(entry).encode("utf-8")
            fresh[entry.id] = (entry, block)
        rendered.append(block)
    cache.clear()
    cache.update(fresh)
    if not rendered:
        return b"[ ]", rendered
    return b"[ " + b", ".join(rendered) + b" ]", rendered


def warm(entries: Iterable[MemoryEntry], cache: dict[str, tuple[MemoryEntry, bytes]]) -> None:
    """Render entries into the cache ahead of a fold (without the lock: rendering 50k entries takes a second)."""
    for entry in entries:
        hit = cache.get(entry.id)
        if hit is None or hit[0] is not entry:
            cache[entry.id] = (entry, render_entry(entry).encode("utf-8"))


class FoldWorker:
    """Runs `fold` on a daemon thread after a request; a request during a fold runs it once more."""

    def __init__(self, fold: Callable[[], object], delay: float = 1.0) -> None:
        self._fold = fold
        self.delay = delay
        self._hurry = threading.Event()
        self._state = threading.Condition()
        self._wanted = False
        self._running = False
        self._closed = False
        self._last = 0.0  # monotonic time of the last request
        _workers.add(self)

    def request(self) -> None:
        with self._state:
            closed = self._closed
            self._last = time.monotonic()
            if not closed:
                self._wanted = True
                if self._running:
                    return
                self._running = True
        if closed:  # the interpreter is exiting: no new thread, fold right here
            self._run_once()
            return
        threading.Thread(target=self._run, name="paicli-memory-fold", daemon=True).start()

    def _run_once(self) -> None:
        try:
            self._fold()
        except Exception:  # the journal keeps every fact; the next fold (or process) tries again
            log.warning("could not fold the memory journal into the memory file", exc_info=True)

    def _quiet(self) -> None:
        """Wait until no request came for `delay` seconds (or a flush hurries, or the burst ran too long)."""
        deadline = time.monotonic() + MAX_WAITS * self.delay
        while not self._hurry.is_set():
            with self._state:
                rest = self._last + self.delay - time.monotonic()
            if rest <= 0 or time.monotonic() >= deadline:
                return
            self._hurry.wait(min(rest, max(deadline - time.monotonic(), 0.0)))

    def _run(self) -> None:
        self._quiet()
        while True:
            with self._state:
                if not self._wanted:
                    self._running = False
                    self._state.notify_all()
                    return
                self._wanted = False
            self._run_once()

    def flush(self, timeout: float = 30.0) -> bool:
        """Fold now if a fold is pending, and wait for it (tests, benchmarks, exit)."""
        self._hurry.set()
        with self._state:
            return self._state.wait_for(lambda: not self._running and not self._wanted, timeout)

    def close(self, timeout: float) -> bool:
        """Finish what is pending; later requests fold at once on the caller's thread (interpreter exit)."""
        with self._state:
            self._closed = True
        return self.flush(timeout)
