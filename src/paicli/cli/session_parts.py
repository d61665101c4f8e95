"""Small pieces of the session backend: the resume recap line and usage accounting of side calls."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from paicli.llm.messages import Message, Usage
from paicli.memory.extractor import AutoFactExtractor


def last_answer(messages: Sequence[Message], limit: int = 100) -> str:
    """The final answer the resumed conversation ended with, on one short line (where the user left off)."""
    from paicli.cli.render import shorten

    for message in reversed(messages):
        if message.role == "assistant" and not message.tool_calls and (message.content or "").strip():
            return shorten(message.content or "", limit)
    return ""


class UsageRecordingExtractor:
    """Counts the extraction call in the session's token statistics (spec 5.1)."""

    def __init__(self, extractor: AutoFactExtractor, record: Callable[[Usage | None], None]) -> None:
        self._extractor = extractor
        self._record = record

    def extract(self, text: str) -> list[str]:
        outcome = self._extractor.extract(text)
        if outcome.model_called:
            self._record(outcome.usage)
        return list(outcome)
