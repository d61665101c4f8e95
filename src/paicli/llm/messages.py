"""Conversation values in the OpenAI Chat Completions wire shape."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal, TypeVar

from paicli.llm.content_parts import ImagePart, ledger_image_count, ledger_parts, pruned_note, wire_content
from paicli.textsafe import encodable, encodable_json, encodable_or_none

Role = Literal["system", "user", "assistant", "tool"]
_T = TypeVar("_T")


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
    images: tuple[ImagePart, ...] = ()  # image content parts after the text (a user message)

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

    def without_images(self) -> Message:
        """Spec 8.1 `withoutImageContent`: the text, and the note standing for the images taken out."""
        if not self.images:
            return self
        note = pruned_note(len(self.images))
        return replace(self, content=f"{self.content}\n{note}" if self.content else note, images=())

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
        elif self.images:
            wire["content"] = wire_content(self.content, self.images)
        else:
            wire["content"] = self.content if self.content is not None else ""
        if self.role == "tool":
            wire["tool_call_id"] = self.tool_call_id
        if include_reasoning and self.reasoning_content and self.role == "assistant":
            wire["reasoning_content"] = self.reasoning_content
        return wire

    def wire_json(self, include_reasoning: bool = False) -> bytes:
        """`to_wire` as compact UTF-8 JSON, computed once per message and flag: a long history is sent again on
        every call, and only its new messages should cost anything (issue 49)."""
        return self.memo(_WIRE_KEYS[include_reasoning], _WIRE_JSON[include_reasoning])

    def memo(self, key: object, compute: Callable[[Message], _T]) -> _T:
        """A value derived from this message, computed once per `key` and kept with it (serialisations, token
        counts): a value object never changes, so what is derived from it never goes stale. Cheap when found,
        since a long history asks for every message's values on every call."""
        try:
            value: _T = self.__dict__["_memos"][key]
            return value
        except KeyError:
            pass
        value = compute(self)
        # beside the fields, so eq, hash, repr and replace ignore it
        self.__dict__.setdefault("_memos", {})[key] = value
        return value

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
            "contentParts": ledger_parts(self.content, self.images) if self.images else None,
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
        images = ledger_image_count(data.get("contentParts"))
        if images:  # the ledger kept references only: the view gets the note, never the images again
            note = pruned_note(images)
            content = f"{content}\n{note}" if isinstance(content, str) and content else note
        reasoning = data.get("reasoningContent")
        call_id = data.get("toolCallId")
        return Message(
            role,
            content if isinstance(content, str) else None,
            calls,
            call_id if isinstance(call_id, str) else None,
            reasoning if isinstance(reasoning, str) else None,
        )


_WIRE_KEYS = (("wire_json", False), ("wire_json", True))


def _wire_json(message: Message) -> bytes:
    return dump_json(message.to_wire())


def _wire_json_reasoning(message: Message) -> bytes:
    return dump_json(message.to_wire(include_reasoning=True))


_WIRE_JSON = (_wire_json, _wire_json_reasoning)


def dump_json(value: Any) -> bytes:
    """JSON as the openai SDK sends a request body: UTF-8, no spaces, no NaN."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


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
