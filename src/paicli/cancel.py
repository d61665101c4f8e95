"""Cooperative cancellation shared by the loop, the LLM client and running tools."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar


class Cancelled(Exception):
    """Raised by blocking work that noticed its CancelToken was cancelled."""


class CancelToken:
    """A one-shot, thread-safe cancellation flag with callbacks (kill a process, close a stream)."""

    def __init__(self) -> None:
        self._event = threading.Event()
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[], None]] = []

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def cancel(self) -> None:
        with self._lock:
            if self._event.is_set():
                return
            self._event.set()
            callbacks = list(self._callbacks)
            self._callbacks.clear()
        for callback in callbacks:
            with contextlib.suppress(Exception):  # a failing cleanup must not stop the others
                callback()

    def on_cancel(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Register a callback; runs at once if already cancelled. Returns an unregister function."""
        with self._lock:
            if not self._event.is_set():
                self._callbacks.append(callback)

                def unregister() -> None:
                    with self._lock:
                        if callback in self._callbacks:
                            self._callbacks.remove(callback)

                return unregister
        callback()
        return lambda: None

    def raise_if_cancelled(self) -> None:
        if self._event.is_set():
            raise Cancelled()

    def wait(self, timeout: float | None = None) -> bool:
        return self._event.wait(timeout)


_CURRENT: ContextVar[CancelToken | None] = ContextVar("paicli_cancel_token", default=None)


@contextlib.contextmanager
def cancel_scope(token: CancelToken) -> Iterator[None]:
    """Make `token` the one deep waits (the memory file lock) poll, without threading it through every call."""
    reset = _CURRENT.set(token)
    try:
        yield
    finally:
        _CURRENT.reset(reset)


def current_token() -> CancelToken | None:
    """The token of the innermost `cancel_scope` (None outside any)."""
    return _CURRENT.get()


def pause_or_cancel(seconds: float) -> None:
    """Sleep in a bounded wait loop; raises Cancelled at once when the scope's token is (or gets) cancelled."""
    token = _CURRENT.get()
    if token is None:
        time.sleep(seconds)
    elif token.wait(seconds):
        raise Cancelled()
