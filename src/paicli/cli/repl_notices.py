"""Shows background notices (e.g. facts saved after a turn) above the prompt while the user sits there."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
from collections.abc import Callable

from prompt_toolkit.application import Application, run_in_terminal

log = logging.getLogger(__name__)


class NoticeRelay:
    """Bridges the backend's notice listener (any thread) to the prompt's event loop.

    `attach` runs as the prompt's `pre_run` (on its loop), `detach` once the prompt returned. A notice that
    arrives while no prompt is waiting stays queued in the backend: the REPL drains it after the running task
    or before the next prompt, and `attach` flushes anything that slipped in between.
    """

    def __init__(
        self,
        app: Callable[[], Application[str]],
        drain: Callable[[], list[str]],
        show: Callable[[list[str]], None],
        on_shown: Callable[[], None] | None = None,
    ) -> None:
        self._app = app
        self._drain = drain
        self._show = show
        self._on_shown = on_shown
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None

    def attach(self) -> None:
        loop = asyncio.get_running_loop()
        with self._lock:
            self._loop = loop
        loop.call_soon(self._flush)

    def detach(self) -> None:
        with self._lock:
            self._loop = None

    def notify(self) -> None:
        """The backend's listener: safe from any thread, never raises."""
        with self._lock:
            loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the prompt's loop just closed: the next drain shows it
            loop.call_soon_threadsafe(self._flush)

    def _flush(self) -> None:
        with self._lock:
            attached = self._loop is not None
        app = self._app()
        if not attached or not app.is_running or app.is_done:
            return  # still queued in the backend; the REPL drains it before the next prompt
        try:
            lines = self._drain()
        except Exception:
            log.warning("draining notices failed", exc_info=True)
            return
        if lines:
            run_in_terminal(lambda: self._print(lines))

    def _print(self, lines: list[str]) -> None:
        self._show(lines)
        if self._on_shown is not None:
            self._on_shown()
