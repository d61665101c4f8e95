"""The seam between agent loops and model providers."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from paicli.cancel import CancelToken
from paicli.llm.messages import ChatResponse, Message


@dataclass(frozen=True)
class StreamDelta:
    kind: Literal["text", "reasoning", "tool_call"]
    text: str  # for "tool_call": the tool name when a call starts


DeltaCallback = Callable[[StreamDelta], None]


class LLMError(Exception):
    """A provider call failed after retries (or was not retryable)."""

    def __init__(self, message: str, status: int | None = None, retryable: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable


class LLMClient(Protocol):
    @property
    def model(self) -> str: ...

    def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None = None,
        *,
        on_delta: DeltaCallback | None = None,
        cancel: CancelToken | None = None,
        tool_choice: str | None = None,
        max_tokens: int | None = None,
    ) -> ChatResponse:
        """One streamed completion. Raises LLMError on failure and paicli.cancel.Cancelled on cancel.

        `tool_choice="none"` sends the tools (so the prompt matches a cached prefix) but forbids calling them.
        `max_tokens` caps the answer (side calls whose answer has a known size: the extractor, the judge)."""
        ...

    def with_model(self, model: str) -> LLMClient:
        """The same provider connection talking to another model (summaries, light side calls)."""
        ...
