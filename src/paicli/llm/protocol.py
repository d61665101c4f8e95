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


@dataclass(frozen=True)
class ContextLimit:
    """A request the server refused as too long for its context, with the figures it gave (None: not said)."""

    window: int | None = None  # the server's context size (llama.cpp n_ctx, "maximum context length is N")
    prompt_tokens: int | None = None  # what the server counted for the refused request


class LLMError(Exception):
    """A provider call failed after retries (or was not retryable)."""

    def __init__(
        self,
        message: str,
        status: int | None = None,
        retryable: bool = False,
        context_limit: ContextLimit | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
        self.context_limit = context_limit  # set when the request did not fit the server's context


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
