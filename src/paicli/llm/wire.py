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
from collections.abc import Iterator, Sequence
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


class ResponseTooLarge(Exception):
    """The reply streamed past the configured byte limit."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"模型的回答超过了 {limit:,} 字节的回答长度上限，已停止接收")


def open_stream(sdk: Any, request: ChatRequest, max_bytes: int | None = None) -> Any:
    """The SDK's stream over a posted body; chunks arrive as plain dicts when the SDK takes a raw body. With
    `max_bytes`, reading past that many bytes of the reply raises `ResponseTooLarge`."""
    if not _takes_raw_content(type(sdk).post):
        stream = sdk.chat.completions.create(**request.params())  # an SDK without the raw-body path
    else:
        from openai import Stream
        from openai.types.chat import ChatCompletion

        stream = sdk.post(
            CHAT_PATH,
            cast_to=ChatCompletion,
            content=request.body(),
            options={"security": {"bearer_auth": True}},
            stream=True,
            stream_cls=Stream[object],
        )
    if max_bytes is not None:
        _bound(stream, max_bytes)
    return stream


def _bound(stream: Any, limit: int) -> None:
    """Every byte of the reply counts, whatever its framing (an event that never ends counts too): the stream's
    reader, and `read()` for a plain JSON reply, pull the response's bytes through `iter_bytes`, which has not
    been called yet when the stream is handed back."""
    response: Any = getattr(stream, "response", None)
    read = getattr(response, "iter_bytes", None)
    if response is None or read is None:
        return

    def limited(*args: Any, **kwargs: Any) -> Iterator[bytes]:
        total = 0
        for piece in read(*args, **kwargs):
            total += len(piece)
            if total > limit:
                raise ResponseTooLarge(limit)
            yield piece

    response.iter_bytes = limited


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
