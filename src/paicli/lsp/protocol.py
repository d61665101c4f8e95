"""LSP's JSON-RPC framing (pure): a `Content-Length` header, a blank line, then a UTF-8 JSON body."""

from __future__ import annotations

import json
from typing import IO, Any

MAX_BODY_BYTES = 64 * 1024 * 1024


class ProtocolError(Exception):
    """The server wrote something that is not an LSP message."""


def encode(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: " + str(len(body)).encode() + b"\r\n\r\n" + body


def read_message(stream: IO[bytes]) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream."""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        text = line.decode("ascii", "replace").strip()
        if not text:
            if length is None:
                continue  # stray blank line between messages
            break
        name, _, value = text.partition(":")
        if name.strip().lower() == "content-length":
            try:
                length = int(value.strip())
            except ValueError:
                raise ProtocolError(f"bad Content-Length: {value!r}") from None
    if length < 0 or length > MAX_BODY_BYTES:
        raise ProtocolError(f"message of {length} bytes")
    body = stream.read(length)
    if len(body) < length:
        return None
    try:
        message = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise ProtocolError(str(error)) from None
    if not isinstance(message, dict):
        raise ProtocolError("message is not an object")
    return message
