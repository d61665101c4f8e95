"""What a second process can do with a session another process holds (see session.flock): fork it (a new
session that starts as a copy, so two processes never interleave one file) or show it read-only."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from paicli.llm.messages import Message
from paicli.session.flock import SessionInUse, in_use, release, try_lock
from paicli.session.ledger import (
    SCHEMA_VERSION,
    SESSION_START_EVENT,
    ConversationLedger,
    encode_entry,
    epoch_millis,
    new_session_id,
)
from paicli.session.resume import load_view, parse_entries
from paicli.session.scan import read_last_sequence

__all__ = [
    "SessionInUse",
    "discard_if_empty",
    "fork_session",
    "in_use",
    "read_only_view",
    "release",
    "try_lock",
]

SESSION_FORKED_EVENT = "session_forked"
_VIEW_CHARS = 600


def fork_session(source: Path, clock: Callable[[], int] = epoch_millis, *, reason: str = "resume") -> Path:
    """A new ledger beside `source` holding a copy of its entries under a new session id, plus a
    `session_forked` event naming the source (`reason`: its source, `resume` for a session held elsewhere,
    `slash_fork` for /fork). Lines that do not parse are copied as they are."""
    tick = clock
    session_id = new_session_id(tick)
    target = source.parent / f"{session_id}.jsonl"
    source_id = source.name[: -len(".jsonl")]
    raw = source.read_bytes()
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    elif lines:
        lines.pop()  # a torn last line: the other process is writing it right now
    out: list[bytes] = []
    for line in lines:
        out.append(_renamed(line, session_id))
    last, _ = read_last_sequence(source)
    marker = {
        "schemaVersion": SCHEMA_VERSION,
        "sessionId": session_id,
        "sequence": last + 1,
        "timestamp": tick(),
        "event": SESSION_FORKED_EVENT,
        "mode": "react",
        "actor": "cli",
        "source": reason,
        "message": None,
        "metadata": {"forkedFrom": source_id, "pid": os.getpid()},
    }
    payload = b"".join(out) + encode_entry(marker)
    fd, temp = tempfile.mkstemp(dir=source.parent, prefix=".fork-", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, 0o600)
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    return target


def _renamed(line: bytes, session_id: str) -> bytes:
    try:
        entry = json.loads(line)
    except ValueError:
        return line + b"\n"
    if not isinstance(entry, dict):
        return line + b"\n"
    entry["sessionId"] = session_id
    return encode_entry(entry)


def read_only_view(path: Path) -> str:
    """The conversation of a session as text, for looking at it without opening it."""
    result = load_view(path)
    session_id = path.name[: -len(".jsonl")]
    lines = [f"📖 只读查看会话 {session_id}（{len(result.messages)} 条消息，不会写入该会话）"]
    for message in result.messages:
        line = _message_line(message)
        if line:
            lines.append(line)
    return "\n".join(lines)


def _message_line(message: Message) -> str | None:
    text = message.content if isinstance(message.content, str) else ""
    if len(text) > _VIEW_CHARS:
        text = text[:_VIEW_CHARS] + "…"
    if message.role == "user":
        return f"\n> {text}"
    if message.role == "assistant":
        calls = [f"⏺ {call.name} {call.arguments[:120]}" for call in message.tool_calls]
        return "\n".join([text, *calls]).strip() or None
    return None


_START_EVENTS = frozenset({SESSION_START_EVENT, "system"})  # what a session writes before anyone types


def discard_if_empty(ledger: ConversationLedger) -> bool:
    """Close `ledger`, and delete its file when it records nothing but its own start (no input, no answer, no
    event): a session left at once for another (`--resume`'s picker, `/resume`) leaves no empty ledger."""
    ledger.close()
    path = ledger.path
    if path is None:
        return False
    try:
        entries = parse_entries(path.read_bytes().splitlines())[0]
    except OSError:
        return False
    if any(entry.event not in _START_EVENTS for entry in entries):
        return False
    with contextlib.suppress(OSError):
        path.unlink()
        return True
    return False
