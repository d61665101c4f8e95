"""The chat request as bytes, posted through the SDK's raw-body path.

`chat.completions.create` walks every message's typed parameters on every call: Python work in proportion to the
whole history, again for each request of a long session (issue 49: 81% of a late turn's CPU). paicli's messages are
already in wire shape, so the body is spliced from each message's JSON, serialised once and cached on the message
(`Message.wire_json`), and posted with the same SDK client: its headers, authentication, status errors and stream
reader stay the SDK's own.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from paicli.llm.messages import Message, dump_json
from paicli.llm.prefix_cache import PrefixValues

CHAT_PATH = "/chat/completions"


def _fragment(message: Message) -> bytes:
    return message.wire_json()


def _fragment_reasoning(message: Message) -> bytes:
    return message.wire_json(bool(message.tool_calls))  # reasoning goes back only beside tool calls


# one history per flag: a session's clients share the flag, and its side calls are short (not cached)
_FRAGMENTS = (PrefixValues(_fragment), PrefixValues(_fragment_reasoning))


@dataclass(frozen=True)
class ChatRequest:
    """Every field of the body but `messages` (`head`), and the messages as JSON fragments."""

    head: dict[str, Any]
    messages: Sequence[bytes] = field(default=())

    @staticmethod
    def build(head: dict[str, Any], history: Sequence[Message], include_reasoning: bool) -> ChatRequest:
        return ChatRequest(head, _FRAGMENTS[include_reasoning].values(history))

    def body(self) -> bytes:
        head = dump_json(self.head)  # b'{...}': a JSON object, never empty (the model is always there)
        joined = b",".join(self.messages)
        separator = b"," if len(head) > 2 else b""
        return b"".join((head[:-1], separator, b'"messages":[', joined, b"]}"))

    def params(self) -> dict[str, Any]:
        """The same body as keyword arguments for `chat.completions.create`."""
        parsed: dict[str, Any] = json.loads(self.body())
        return parsed


def open_stream(sdk: Any, request: ChatRequest) -> Any:
    """The SDK's stream over a posted body; chunks arrive as plain dicts when the SDK takes a raw body."""
    if not _takes_raw_content(type(sdk).post):
        return sdk.chat.completions.create(**request.params())  # an SDK without the raw-body path
    from openai import Stream
    from openai.types.chat import ChatCompletion

    return sdk.post(
        CHAT_PATH,
        cast_to=ChatCompletion,
        content=request.body(),
        options={"security": {"bearer_auth": True}},
        stream=True,
        stream_cls=Stream[object],
    )


_RAW_CONTENT: dict[Any, bool] = {}


def _takes_raw_content(post: Any) -> bool:
    known = _RAW_CONTENT.get(post)
    if known is None:
        try:
            known = "content" in inspect.signature(post).parameters
        except (TypeError, ValueError):
            known = False
        _RAW_CONTENT[post] = known
    return known
