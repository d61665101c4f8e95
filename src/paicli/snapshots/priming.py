"""The first snapshot of a session, prepared in the background: when a session starts in a project, every file
is hashed into the side store (`SnapshotStore.prime`), so the snapshot before the first change only looks at
what changed since. A change that comes while this still runs waits for it, and the wait says what it is and
how far it got (never a silent stall under a tool's spinner)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paicli.snapshots.store import SnapshotStore

log = logging.getLogger(__name__)
POLL_SECONDS = 0.25  # how often a waiting call is told the progress (it waits on the event, not the clock)


class _Stopped(Exception):
    """The session is closing: the preparation stops between two chunks."""


class Priming:
    def __init__(self, store: SnapshotStore | None) -> None:
        self._store = store
        self._thread: threading.Thread | None = None
        self._done = threading.Event()
        self._done.set()  # nothing started: nothing to wait for
        self._stop = threading.Event()
        self._progress = (0, 0)

    @property
    def running(self) -> bool:
        return not self._done.is_set()

    def start(self) -> None:
        if self._store is None or self._thread is not None:
            return
        self._done.clear()
        self._thread = threading.Thread(target=self._run, name="paicli-snapshot-prime", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        store = self._store
        assert store is not None
        try:
            store.prime(self._report)
        except _Stopped:
            pass
        except Exception:  # the snapshot before the first change does the same work again, in the open
            log.warning("preparing the first snapshot failed", exc_info=True)
        finally:
            self._done.set()

    def _report(self, done: int, total: int) -> None:
        self._progress = (done, total)
        if self._stop.is_set():
            raise _Stopped

    def text(self) -> str:
        done, total = self._progress
        counted = f"（已记录 {done:,}/{total:,} 个文件）" if total else "（正在列出项目文件）"
        return f"等待工作区快照准备完成{counted}"

    def wait(self, tell: Callable[[str], None] | None = None) -> None:
        """Until the preparation is done; `tell` gets the progress while it runs, then "" once it is over."""
        if not self.running:
            return
        if tell is None:
            self._done.wait()
            return
        tell(self.text())
        while not self._done.wait(POLL_SECONDS):
            tell(self.text())
        tell("")

    def stop(self, timeout: float) -> None:
        """The session ends: stop after the chunk in hand (the store stays consistent)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
