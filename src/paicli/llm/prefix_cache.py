"""Per-message values of the last history seen, so the next look at it pays only for its new messages.

A session sends its whole history on every call and measures it several times before each one; a history grows
at the end and now and then has an element replaced (a cleared tool result) or is rebuilt (a summary). Checking
that the cached messages are still the history's prefix is one list comparison, done in C: list equality looks at
identity first, and only an element that is not the cached object itself is compared by value (and an equal message
has equal derived values, so it may keep them).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from paicli.llm.messages import Message

_T = TypeVar("_T")


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

    def values(self, history: Sequence[Message]) -> list[_T]:
        if len(history) < self._min_length:
            return [self._value(m) for m in history]
        with self._lock:
            messages, values = self._messages, self._values
        kept = len(messages)
        if not kept or len(history) < kept or list(history[:kept]) != messages:
            messages, values = [], []
            kept = 0
        if kept == len(history):
            return values
        new = list(history[kept:])
        messages = messages + new
        values = values + [self._value(m) for m in new]
        with self._lock:
            self._messages, self._values = messages, values
        return values


def prefix_sum(value: Callable[[Message], int], min_length: int = 32) -> Callable[[Sequence[Message]], int]:
    """`sum(value(m) for m in history)`, over a `PrefixValues` (the sum itself runs in C)."""
    cache: PrefixValues[int] = PrefixValues(value, min_length)

    def total(history: Sequence[Message]) -> int:
        return sum(cache.values(history))

    return total
