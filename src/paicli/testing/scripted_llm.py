"""A scripted LLMClient for unit tests: replies from a list, records every request."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from paicli.cancel import Cancelled, CancelToken
from paicli.llm.messages import ChatResponse, Message, ToolCall, Usage
from paicli.llm.protocol import DeltaCallback, LLMError, StreamDelta


@dataclass
class Request:
    messages: list[Message]
    tools: list[dict[str, Any]] | None
    model: str
    tool_choice: str | None = None
    max_tokens: int | None = None

    @property
    def without_callable_tools(self) -> bool:
        """A side request (summary, extraction, ...): no tools, or tools it may not call."""
        return self.tools is None or self.tool_choice == "none"


def tool_call_reply(*calls: tuple[str, str], content: str | None = None, prefix: str = "call") -> Message:
    """An assistant message calling tools: tool_call_reply(("read_file", '{"path":"a"}'))."""
    return Message.assistant(
        content, tuple(ToolCall(f"{prefix}-{i + 1}", name, args) for i, (name, args) in enumerate(calls))
    )


@dataclass
class ScriptedLLM:
    """Answers each chat() with the next scripted reply. Strings become final answers."""

    replies: list[Any] = field(default_factory=list)
    model_name: str = "scripted-model"
    usage: Usage | None = None
    requests: list[Request] = field(default_factory=list)
    default_reply: Any = None

    @property
    def model(self) -> str:
        return self.model_name

    @property
    def calls(self) -> int:
        return len(self.requests)

    def with_model(self, model: str) -> ScriptedLLM:
        return self  # shares the script and the request log on purpose

    def push(self, *replies: Any) -> None:
        self.replies.extend(replies)

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
        if cancel is not None and cancel.cancelled:
            raise Cancelled()
        request = Request(
            list(messages),
            [dict(t) for t in tools] if tools is not None else None,
            self.model_name,
            tool_choice,
            max_tokens,
        )
        self.requests.append(request)
        if self.replies:
            reply = self.replies.pop(0)
        elif self.default_reply is not None:
            reply = self.default_reply
        else:
            raise LLMError("scripted LLM has no reply left")
        if callable(reply) and not isinstance(reply, (Message, ChatResponse)):
            reply = reply(request)
        if isinstance(reply, Exception):
            raise reply
        if isinstance(reply, str):
            reply = Message.assistant(reply)
        if isinstance(reply, Message):
            if on_delta is not None and reply.content:
                on_delta(StreamDelta("text", reply.content))
            return ChatResponse(
                reply, self.usage, "tool_calls" if reply.tool_calls else "stop", self.model_name
            )
        if isinstance(reply, ChatResponse):
            return reply
        raise TypeError(f"unsupported scripted reply: {reply!r}")
