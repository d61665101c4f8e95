"""An `LLMClient` that reports the usage of every call it makes: compaction's summary calls are the session's
spend as much as the agent's own, so the figures the user sees count them."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from paicli.cancel import CancelToken
from paicli.llm.messages import ChatResponse, Message, Usage
from paicli.llm.protocol import DeltaCallback, LLMClient

UsageSink = Callable[[Usage | None], None]


class MeteredClient:
    def __init__(self, inner: LLMClient, record: UsageSink) -> None:
        self._inner = inner
        self._record = record

    @property
    def model(self) -> str:
        return self._inner.model

    @property
    def inner(self) -> LLMClient:
        return self._inner

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
        response = self._inner.chat(
            messages,
            tools,
            on_delta=on_delta,
            cancel=cancel,
            tool_choice=tool_choice,
            max_tokens=max_tokens,
        )
        self._record(response.usage)
        return response

    def with_model(self, model: str) -> MeteredClient:
        return MeteredClient(self._inner.with_model(model), self._record)

    def __getattr__(self, name: str) -> Any:  # prewarm, options, ... of the wrapped client
        return getattr(self._inner, name)
