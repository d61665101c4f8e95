"""Folds Chat Completions stream chunks (as plain dicts) into one ChatResponse. Pure: no I/O."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from paicli.llm.messages import ChatResponse, Message, ToolCall, Usage
from paicli.llm.protocol import StreamDelta
from paicli.textsafe import encodable


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)
    announced: bool = False


def _as_int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, (int, float)):
        return int(value)
    return 0


def usage_from_dict(raw: Mapping[str, Any]) -> Usage:
    """Provider usage → Usage; cached tokens from OpenAI's details or DeepSeek's prompt_cache_hit_tokens."""
    details = raw.get("prompt_tokens_details")
    cached = _as_int(details.get("cached_tokens")) if isinstance(details, Mapping) else 0
    cached = max(cached, _as_int(raw.get("prompt_cache_hit_tokens")))
    return Usage(_as_int(raw.get("prompt_tokens")), _as_int(raw.get("completion_tokens")), cached)


class StreamAssembler:
    """Feed chunks in arrival order; `feed` returns the deltas worth showing; `result()` builds the reply."""

    def __init__(self, id_prefix: str | None = None) -> None:
        self._text: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self._usage: Usage | None = None
        self._finish_reason: str | None = None
        self._model = ""
        self._id_prefix = id_prefix if id_prefix is not None else f"call_{uuid.uuid4().hex[:8]}_"
        self.chunks = 0

    @property
    def has_output(self) -> bool:
        """True once anything a user could have seen arrived (text, reasoning or a tool call)."""
        return bool(self._text or self._reasoning or self._calls)

    def feed(self, chunk: Mapping[str, Any]) -> list[StreamDelta]:
        self.chunks += 1
        if isinstance(chunk.get("model"), str) and chunk["model"]:
            self._model = chunk["model"]
        usage = chunk.get("usage")
        if isinstance(usage, Mapping):
            self._usage = usage_from_dict(usage)
        deltas: list[StreamDelta] = []
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, Mapping) or _as_int(choice.get("index")) != 0:
                continue
            if choice.get("finish_reason"):
                self._finish_reason = str(choice["finish_reason"])
            delta = choice.get("delta") or choice.get("message")
            if isinstance(delta, Mapping):
                deltas.extend(self._feed_delta(delta))
        return deltas

    def _feed_delta(self, delta: Mapping[str, Any]) -> list[StreamDelta]:
        out: list[StreamDelta] = []
        reasoning = delta.get("reasoning_content")
        if not isinstance(reasoning, str):
            reasoning = delta.get("reasoning")
        if isinstance(reasoning, str) and reasoning:
            self._reasoning.append(reasoning)
            out.append(StreamDelta("reasoning", encodable(reasoning)))
        content = delta.get("content")
        if isinstance(content, str) and content:
            self._text.append(content)
            out.append(StreamDelta("text", encodable(content)))
        for raw in delta.get("tool_calls") or []:
            if isinstance(raw, Mapping):
                out.extend(self._feed_call(raw))
        return out

    def _index_of(self, raw: Mapping[str, Any]) -> int:
        if "index" in raw:
            return _as_int(raw.get("index"))
        # Providers that omit the index send whole calls: a new id starts a call, no id continues the last.
        call_id = raw.get("id")
        for index, call in self._calls.items():
            if call_id and call.id == call_id:
                return index
        if call_id or not self._calls:
            return max(self._calls, default=-1) + 1
        return max(self._calls)

    def _feed_call(self, raw: Mapping[str, Any]) -> list[StreamDelta]:
        index = self._index_of(raw)
        call = self._calls.setdefault(index, _PartialCall())
        if isinstance(raw.get("id"), str) and raw["id"] and not call.id:
            call.id = raw["id"]
        function = raw.get("function")
        if isinstance(function, Mapping):
            name = function.get("name")
            if isinstance(name, str) and name:
                # Some providers resend the full name on every chunk; others split it. Append only new text.
                call.name = name if name.startswith(call.name) else call.name + name
            arguments = function.get("arguments")
            if isinstance(arguments, str) and arguments:
                call.arguments.append(arguments)
        if call.name and not call.announced:
            call.announced = True
            return [StreamDelta("tool_call", encodable(call.name))]
        return []

    def result(self) -> ChatResponse:
        calls: list[ToolCall] = []
        seen: set[str] = set()
        for n, (_, call) in enumerate(sorted(self._calls.items())):
            if not call.name:
                continue
            # A missing or repeated id would leave two tool results indistinguishable; give it a fresh one.
            call_id = call.id if call.id and call.id not in seen else f"{self._id_prefix}{n}"
            seen.add(call_id)
            calls.append(ToolCall(call_id, call.name, "".join(call.arguments)))
        text = "".join(self._text)
        reasoning = "".join(self._reasoning) or None
        message = Message.assistant(text if (text or not calls) else None, tuple(calls), reasoning)
        finish = self._finish_reason or ("tool_calls" if calls else None)
        return ChatResponse(message, self._usage, finish, self._model)


def assemble(chunks: list[Mapping[str, Any]], id_prefix: str | None = None) -> ChatResponse:
    """Convenience for tests and non-streamed fallbacks: fold a whole list of chunks."""
    assembler = StreamAssembler(id_prefix)
    for chunk in chunks:
        assembler.feed(chunk)
    return assembler.result()
