"""Conversation values in the OpenAI Chat Completions wire shape."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from paicli.textsafe import encodable, encodable_json, encodable_or_none

Role = Literal["system", "user", "assistant", "tool"]


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # raw JSON text exactly as the model produced it (made UTF-8 encodable)

    def __post_init__(self) -> None:
        # A lone surrogate (half an emoji) or an escaped file-name byte would fail every later request.
        object.__setattr__(self, "id", encodable(self.id))
        object.__setattr__(self, "name", encodable(self.name))
        object.__setattr__(self, "arguments", encodable_json(self.arguments))

    def to_wire(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class Message:
    """One history entry. Histories are lists of these, mutated in place by replacing elements."""

    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    reasoning_content: str | None = None
    # Not part of the message: the ledger sequences (first, last) of the original text this message stands
    # for (itself once recorded; a cleared result its original; a summary the span it replaced). Compaction
    # carries it along so placeholders and summaries can name what `recall` gives back.
    ref: tuple[int, int] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "content", encodable_or_none(self.content))
        object.__setattr__(self, "reasoning_content", encodable_or_none(self.reasoning_content))

    @staticmethod
    def system(content: str) -> Message:
        return Message("system", content)

    @staticmethod
    def user(content: str) -> Message:
        return Message("user", content)

    @staticmethod
    def assistant(
        content: str | None,
        tool_calls: tuple[ToolCall, ...] = (),
        reasoning_content: str | None = None,
    ) -> Message:
        return Message("assistant", content, tool_calls, None, reasoning_content)

    @staticmethod
    def tool(tool_call_id: str, content: str) -> Message:
        return Message("tool", content, (), tool_call_id)

    def with_content(self, content: str | None) -> Message:
        return replace(self, content=content)

    def with_ref(self, ref: tuple[int, int] | None) -> Message:
        return self if ref == self.ref else replace(self, ref=ref)

    def without_reasoning(self) -> Message:
        return self if self.reasoning_content is None else replace(self, reasoning_content=None)

    @property
    def text(self) -> str:
        return self.content or ""

    def to_wire(self, include_reasoning: bool = False) -> dict[str, Any]:
        wire: dict[str, Any] = {"role": self.role}
        if self.role == "assistant" and self.tool_calls:
            wire["content"] = self.content if self.content else None
            wire["tool_calls"] = [call.to_wire() for call in self.tool_calls]
        else:
            wire["content"] = self.content if self.content is not None else ""
        if self.role == "tool":
            wire["tool_call_id"] = self.tool_call_id
        if include_reasoning and self.reasoning_content and self.role == "assistant":
            wire["reasoning_content"] = self.reasoning_content
        return wire

    def to_json(self) -> dict[str, Any]:
        """The ledger's message layout (spec 3.1): camelCase keys in the reference's order."""
        return {
            "role": self.role,
            "content": self.content,
            "reasoningContent": self.reasoning_content,
            "toolCalls": [
                {"id": c.id, "function": {"name": c.name, "arguments": c.arguments}} for c in self.tool_calls
            ]
            or None,
            "toolCallId": self.tool_call_id,
            "contentParts": None,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> Message:
        role = data.get("role")
        if role not in ("system", "user", "assistant", "tool"):
            raise ValueError(f"unknown role: {role!r}")
        calls = tuple(
            ToolCall(
                str(c.get("id", "")),
                str((c.get("function") or {}).get("name", "")),
                str((c.get("function") or {}).get("arguments", "")),
            )
            for c in (data.get("toolCalls") or [])
        )
        content = data.get("content")
        reasoning = data.get("reasoningContent")
        call_id = data.get("toolCallId")
        return Message(
            role,
            content if isinstance(content, str) else None,
            calls,
            call_id if isinstance(call_id, str) else None,
            reasoning if isinstance(reasoning, str) else None,
        )


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            self.cached_tokens + other.cached_tokens,
        )


@dataclass(frozen=True)
class ChatResponse:
    message: Message  # role "assistant"; reasoning_content kept
    usage: Usage | None = None
    finish_reason: str | None = None
    model: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
