"""The one seam for subsystems a run may never use (the browser, MCP servers, the code index, language
servers): each is built by a factory at its first use, and the factory imports its subsystem there, so a plain
`paicli -p` does not pay to import code it never runs. A factory (not a name looked up at run time) keeps the
dependency visible to mypy and to the layer check."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class Deferred(Generic[T]):
    """`build()` at the first `get`, once, whichever thread asks first; a failed build is tried again next time."""

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._lock = threading.Lock()
        self._value: T | None = None

    def get(self) -> T:
        with self._lock:
            if self._value is None:
                self._value = self._build()
            return self._value

    @property
    def built(self) -> T | None:
        """The object if some caller needed it already; None means nothing was loaded (nothing to close)."""
        return self._value
