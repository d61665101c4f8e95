"""The one seam for subsystems a run may never use (the browser, MCP servers, the code index, language
servers): each is named by its import path and its module is loaded at first use, so a plain `paicli -p`
does not pay to import code it never runs."""

from __future__ import annotations

import importlib
import threading
from typing import Any, Generic, TypeVar, cast

T = TypeVar("T")


def load(target: str) -> Any:
    """The object `target` names, "package.module:attribute"; imports the module on first use."""
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


class Deferred(Generic[T]):
    """`target` called with `args` at the first `get`, once, whichever thread asks first."""

    def __init__(self, target: str, *args: object) -> None:
        self._target = target
        self._args = args
        self._lock = threading.Lock()
        self._value: T | None = None

    def get(self) -> T:
        with self._lock:
            if self._value is None:
                self._value = cast(T, load(self._target)(*self._args))
            return self._value

    @property
    def built(self) -> T | None:
        """The object if some caller needed it already; None means nothing was loaded (nothing to close)."""
        return self._value
