"""The session's notice board: lines that work beside the turns leaves for the front end (a fact saved in the
background, a model found to reject tools, an MCP server that failed, a snapshot that could not be taken).
Made first by the composition root and handed to every collaborator at construction; the front end drains
it and may ask to be woken when a line arrives. Safe from any thread."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

log = logging.getLogger(__name__)
NoticeListener = Callable[[], None]
MemoryListener = Callable[[list[str]], None]


class ShownMemories:
    """The memories a turn brings in, as it brings them in: the memory manager is built with `show`, and the
    REPL listens while a turn of its runs."""

    def __init__(self) -> None:
        self._listener: MemoryListener | None = None

    def show(self, contents: list[str]) -> None:
        listener = self._listener
        if listener is not None:
            listener(contents)

    def listen(self, listener: MemoryListener | None) -> None:
        self._listener = listener


class NoticeBoard:
    def __init__(self, lines: Iterable[str] = ()) -> None:
        self._lines = list(lines)
        self._lock = threading.Lock()
        self._listener: NoticeListener | None = None

    def post(self, text: str) -> None:
        with self._lock:
            self._lines.append(text)
            listener = self._listener
        if listener is not None:
            try:
                listener()
            except Exception:  # a front-end hook must never break background work
                log.warning("notice listener failed", exc_info=True)

    def extend(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.post(line)

    def set_listener(self, listener: NoticeListener | None) -> None:
        """`listener()` is called, on any thread, after a line was posted."""
        with self._lock:
            self._listener = listener

    def drain(self) -> list[str]:
        with self._lock:
            lines, self._lines = self._lines, []
        return lines
