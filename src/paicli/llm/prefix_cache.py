"""Per-message values of the last history seen, so the next look at it pays only for its new messages.

A session sends its whole history on every call and measures it several times before each one; a history grows
at the end and now and then has an element replaced (a cleared tool result) or is rebuilt (a summary). Checking
that the cached messages are still the history's prefix is one list comparison, done in C: list equality looks at
identity first, and only an element that is not the cached object itself is compared by value (and an equal message
has equal derived values, so it may keep them). A conversation's own view is a `History`, which counts its changes
other than appends: when the cache last followed that very list and it has only grown since, the comparison (the
one cost of a look that grows with the session) is skipped.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Generic, SupportsIndex, TypeVar

from paicli.llm.messages import Message

_T = TypeVar("_T")


class History(list[Message]):
    """A list of messages whose `edits` counts every change that is not an append at the end."""

    __slots__ = ("__weakref__", "edits")

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        super().__init__(messages)
        self.edits = 0

    def __setitem__(self, index: Any, value: Any) -> None:
        self.edits += 1
        super().__setitem__(index, value)

    def __delitem__(self, index: SupportsIndex | slice) -> None:
        self.edits += 1
        super().__delitem__(index)

    def __imul__(self, count: SupportsIndex) -> History:
        self.edits += 1
        return super().__imul__(count)

    def insert(self, index: SupportsIndex, message: Message) -> None:
        self.edits += 1
        super().insert(index, message)

    def pop(self, index: SupportsIndex = -1) -> Message:
        self.edits += 1
        return super().pop(index)

    def remove(self, message: Message) -> None:
        self.edits += 1
        super().remove(message)

    def clear(self) -> None:
        self.edits += 1
        super().clear()

    def sort(self, *args: Any, **kwargs: Any) -> None:
        self.edits += 1
        super().sort(*args, **kwargs)

    def reverse(self) -> None:
        self.edits += 1
        super().reverse()


class PrefixValues(Generic[_T]):
    """`values(history)` is `[value(m) for m in history]`, recomputed only for what changed since the last call.

    One entry (the last history): the callers alternate between a long history and short lists, and only the long
    one is worth keeping. Thread-safe; the value function must be pure."""

    def __init__(self, value: Callable[[Message], _T], min_length: int = 32) -> None:
        self._value = value
        self._min_length = min_length
        self._lock = threading.Lock()
        self._messages: list[Message] = []
        self._values: list[_T] = []
        self._source: weakref.ref[History] | None = None  # the History last followed, and its edits then
        self._edits = 0

    def values(self, history: Sequence[Message]) -> list[_T]:
        if len(history) < self._min_length:
            return [self._value(m) for m in history]
        return self._follow(history)[0]

    def _follow(self, history: Sequence[Message]) -> tuple[list[_T], list[_T] | None, list[_T]]:
        """(the history's values, the cached values they extend (None: the cache started over), the added ones)."""
        with self._lock:
            messages, values, source, edits = self._messages, self._values, self._source, self._edits
        kept = len(messages)
        grown = (
            source is not None
            and source() is history
            and isinstance(history, History)
            and history.edits == edits
        )
        if not kept or len(history) < kept or (not grown and list(history[:kept]) != messages):
            messages, values, base = [], [], None
            kept = 0
        else:
            base = values
        added: list[_T] = []
        if kept < len(history):
            new = list(history[kept:])
            added = [self._value(m) for m in new]
            messages = messages + new
            values = values + added
        elif grown:
            return values, base, added
        followed = history if isinstance(history, History) else None
        with self._lock:
            self._messages, self._values = messages, values
            self._source = weakref.ref(followed) if followed is not None else None
            self._edits = followed.edits if followed is not None else 0
        return values, base, added


class _PrefixSum(PrefixValues[int]):
    """The sum of the values, kept with them: a look at a history that only grew adds its new values."""

    def __init__(self, value: Callable[[Message], int], min_length: int) -> None:
        super().__init__(value, min_length)
        self._total: tuple[list[int], int] = ([], 0)  # (the values it is the sum of, the sum)

    def total(self, history: Sequence[Message]) -> int:
        if len(history) < self._min_length:
            return sum(self._value(m) for m in history)
        values, base, added = self._follow(history)
        with self._lock:
            summed, total = self._total
        if summed is values:
            return total
        # the sum of what these values extend, plus the new ones; else (the cache started over, or another
        # thread's look came between) the whole sum, which runs in C
        total = total + sum(added) if base is not None and base is summed else sum(values)
        with self._lock:
            self._total = (values, total)
        return total


def prefix_sum(value: Callable[[Message], int], min_length: int = 32) -> Callable[[Sequence[Message]], int]:
    """`sum(value(m) for m in history)`, over a `PrefixValues` that keeps its running sum."""
    return _PrefixSum(value, min_length).total
