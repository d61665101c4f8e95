"""Keeps the turn's long-term memories in the view after compaction (memory placement `turn`).

The loop asks the retriever once per turn, leaving out memories already visible in the history. A later
summary or fallback in the same turn may remove the message that made them visible; `restore` asks again
against the view as it will be sent and puts whatever is missing in front of the latest user message (which
compaction never removes). Wraps the MemoryPort the loop already uses, so the loop does not change.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from paicli.context.rounds import latest_user_index
from paicli.llm.messages import Message


class MemorySource(Protocol):
    """What the wrapped MemoryPort must offer (paicli.agent.ports.MemoryPort)."""

    def context_for_query(self, query: str, max_tokens: int, exclude_text: str = "") -> str: ...


@dataclass(frozen=True)
class _Query:
    text: str
    max_tokens: int


class TurnMemory:
    """A MemoryPort that remembers the turn's query, so the memories can be restored after compaction."""

    def __init__(self, inner: MemorySource) -> None:
        self.inner = inner
        self._query: _Query | None = None
        self._lock = threading.Lock()

    def context_for_query(self, query: str, max_tokens: int, exclude_text: str = "") -> str:
        with self._lock:
            self._query = _Query(query, max_tokens)
        return self.inner.context_for_query(query, max_tokens, exclude_text)

    def forget(self) -> None:
        with self._lock:
            self._query = None

    def restore(self, history: list[Message]) -> bool:
        """Re-inject memories of this turn that the view no longer shows. True when the view changed."""
        with self._lock:
            query = self._query
        if query is None:
            return False
        latest = latest_user_index(history)
        if latest is None:
            return False
        visible = visible_text(history)
        block = self.inner.context_for_query(query.text, query.max_tokens, visible)
        if not block.strip():
            return False
        message = history[latest]
        history[latest] = message.with_content(f"{block.rstrip()}\n\n{message.content or ''}")
        return True


def visible_text(history: Sequence[Message]) -> str:
    """The text the model will see, minus the system prompt (as the loop computes it at turn start)."""
    start = 1 if history and history[0].role == "system" else 0
    return "\n".join(m.text for m in history[start:])
