"""SessionResume (spec 3.4): rebuild the exact view the model last saw from a ledger.

The last full `view_checkpoint` (with `messages`) plus every message entry after it is the view; compact
checkpoints after it (`replacedResults`: tool results cleared or offloaded in place) are folded in as they
come; without a full checkpoint the whole file is replayed. Torn or invalid lines are skipped with a notice, unknown events are ignored, and the
result is always protocol-valid: a tool call whose process died mid-tool gets an "interrupted" result.
Everything here is pure except `load_view`, which reads the file from its end.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO

from paicli.llm.messages import Message
from paicli.session.ledger_index import read_index
from paicli.session.ledger_keys import (
    HISTORY_CLEAR_EVENT,
    REFS_KEY,
    REPLACED_RESULTS_KEY,
    VIEW_CHECKPOINT_EVENT,
)
from paicli.session.scan import find_backwards, line_start

# the events a message entry can carry (spec 3.1); anything else is an event this version does not know
MESSAGE_EVENTS = frozenset({"system", "user", "tool_result", "tool_call", "assistant", "message"})
_CHECKPOINT_MARKER = b'"event":"view_checkpoint"'

INTERRUPTED_RESULT = (
    "[工具调用已中断] 上一次运行在这个工具执行完之前就结束了（进程退出或被终止），"
    "这次调用没有完成，结果未知。如果还需要它的结果，请先确认当前状态，再决定是否重新调用。"
)


@dataclass(frozen=True)
class LedgerEntry:
    sequence: int
    timestamp: int
    event: str
    mode: str
    actor: str
    source: str
    message: Message | None
    metadata: Mapping[str, Any]


@dataclass(frozen=True)
class ResumeResult:
    messages: list[Message]  # the view without the system prompt (build a fresh one and put it first)
    notices: list[str]
    last_sequence: int
    plan_state: Any = None  # the checkpoint's `planState`, untouched (the Plan issue defines it)
    checkpoint_sequence: int | None = None
    repaired: int = 0  # synthetic results added plus stray tool messages dropped
    extra: Mapping[str, Any] = field(default_factory=dict)


def _bad_line(line_number: int | None) -> str:
    where = f"第 {line_number} 行" if line_number is not None else "一行"
    return f"会话记录中{where}已损坏或不完整（可能是写入时被中断），已跳过。"


def _entry_from(data: Any) -> LedgerEntry | None:
    if not isinstance(data, dict):
        return None
    event, sequence = data.get("event"), data.get("sequence")
    if not isinstance(event, str) or not isinstance(sequence, int) or isinstance(sequence, bool):
        return None
    raw_message, metadata = data.get("message"), data.get("metadata")
    message: Message | None = None
    if raw_message is not None:
        if not isinstance(raw_message, dict):
            return None
        try:
            message = Message.from_json(raw_message)
        except ValueError:
            return None
    timestamp = data.get("timestamp")
    return LedgerEntry(
        sequence,
        timestamp if isinstance(timestamp, int) else 0,
        event,
        str(data.get("mode") or ""),
        str(data.get("actor") or ""),
        str(data.get("source") or ""),
        message,
        metadata if isinstance(metadata, dict) else {},
    )


def parse_entries(
    lines: Iterable[str | bytes], first_line: int | None = 1
) -> tuple[list[LedgerEntry], list[str]]:
    """Parse ledger lines; blank lines are ignored, torn or invalid ones are skipped with a notice."""
    entries: list[LedgerEntry] = []
    notices: list[str] = []
    for offset, line in enumerate(lines):
        if not line.strip():
            continue
        try:
            entry = _entry_from(json.loads(line))
        except ValueError:
            entry = None
        if entry is None:
            notices.append(_bad_line(None if first_line is None else first_line + offset))
        else:
            entries.append(entry)
    return entries, notices


def _checkpoint_messages(entry: LedgerEntry) -> list[Any] | None:
    raw = entry.metadata.get("messages")
    return raw if entry.event == VIEW_CHECKPOINT_EVENT and isinstance(raw, list) else None


def is_full_checkpoint(entry: LedgerEntry) -> bool:
    """A view checkpoint carrying the whole view (not a compact one of replaced results)."""
    return _checkpoint_messages(entry) is not None


def _last_checkpoint(entries: Sequence[LedgerEntry], mode: str, actor: str) -> int | None:
    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index]
        if entry.mode == mode and entry.actor == actor and _checkpoint_messages(entry) is not None:
            return index
    return None


def _parsable_arguments(message: Message) -> Message:
    """A stored call whose arguments are not a JSON object would make every resumed request fail (HTTP 400)."""
    if not message.tool_calls:
        return message
    calls = tuple(
        call
        if _is_json_object(call.arguments)
        else replace(call, arguments=repaired_arguments(call.arguments))
        for call in message.tool_calls
    )
    return replace(message, tool_calls=calls)


def _is_json_object(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def repaired_arguments(text: str) -> str:
    if not text.strip():
        return "{}"
    return json.dumps({"_unparsed_arguments": text}, ensure_ascii=False)


def _for_view(message: Message) -> Message | None:
    if message.role == "system":
        return None
    message = _parsable_arguments(message)
    if message.role == "assistant" and not message.tool_calls:
        # the ledger keeps the final answer's reasoning; the view holds only its text
        return Message.assistant(message.content or "").with_ref(message.ref)
    return message


def _ref(raw: Any) -> tuple[int, int] | None:
    if isinstance(raw, list) and len(raw) == 2 and all(type(v) is int for v in raw):
        return raw[0], raw[1]
    return None


def _checkpoint_view(checkpoint: LedgerEntry) -> list[Message]:
    raws = _checkpoint_messages(checkpoint) or []
    refs = checkpoint.metadata.get(REFS_KEY)
    refs = refs if isinstance(refs, list) and len(refs) == len(raws) else [None] * len(raws)
    view: list[Message] = []
    for raw, ref in zip(raws, refs, strict=True):
        try:
            message = _for_view(Message.from_json(raw)) if isinstance(raw, dict) else None
        except ValueError:
            message = None
        if message is not None:
            view.append(message.with_ref(_ref(ref)))
    return view


def repair_tool_pairs(messages: Sequence[Message]) -> tuple[list[Message], int]:
    """Make a view protocol-valid: every tool call answered right after it, no stray tool messages."""
    out: list[Message] = []
    fixes = 0
    index = 0
    while index < len(messages):
        message = messages[index]
        index += 1
        if message.role == "tool":
            fixes += 1  # answers no open call (its call was compacted away or the line was lost)
            continue
        out.append(message)
        if message.role != "assistant" or not message.tool_calls:
            continue
        open_ids = [call.id for call in message.tool_calls]
        answered: set[str] = set()
        while index < len(messages) and messages[index].role == "tool":
            result = messages[index]
            index += 1
            if result.tool_call_id in open_ids and result.tool_call_id not in answered:
                answered.add(result.tool_call_id)
                out.append(result)
            else:
                fixes += 1
        for call_id in open_ids:
            if call_id not in answered:
                answered.add(call_id)
                out.append(Message.tool(call_id, INTERRUPTED_RESULT))
                fixes += 1
    return out, fixes


def _apply_replaced(view: list[Message], replaced: Any) -> None:
    """Fold a compact checkpoint: each listed tool result takes its new content (clearing, offload)."""
    if not isinstance(replaced, dict) or not replaced:
        return
    for index, message in enumerate(view):
        if message.role != "tool" or message.tool_call_id not in replaced:
            continue
        content = replaced[message.tool_call_id]
        if isinstance(content, str):
            view[index] = message.with_content(content)


def rebuild_view(entries: Sequence[LedgerEntry], mode: str = "react", actor: str = "agent") -> ResumeResult:
    """Last checkpoint of (mode, actor) + the message entries after it, or a replay of all of them."""
    notices: list[str] = []
    start = _last_checkpoint(entries, mode, actor)
    view: list[Message] = []
    plan_state: Any = None
    extra: dict[str, Any] = {}
    if start is not None:
        checkpoint = entries[start]
        view = _checkpoint_view(checkpoint)
        plan_state = checkpoint.metadata.get("planState")
        extra = {k: v for k, v in checkpoint.metadata.items() if k not in ("messages", "planState", REFS_KEY)}
    compacted_without_checkpoint = False
    for entry in entries[(start + 1) if start is not None else 0 :]:
        if entry.mode != mode or entry.actor != actor:
            continue
        if entry.event == HISTORY_CLEAR_EVENT:
            view.clear()
        elif entry.event == VIEW_CHECKPOINT_EVENT:
            _apply_replaced(view, entry.metadata.get(REPLACED_RESULTS_KEY))
        elif entry.event == "compaction" and start is None:
            compacted_without_checkpoint = True
        elif entry.message is not None and entry.event in MESSAGE_EVENTS:
            message = _for_view(entry.message)
            if message is not None:
                view.append(message.with_ref((entry.sequence, entry.sequence)))
    if compacted_without_checkpoint:
        notices.append(
            "这份会话记录没有视图检查点，已按原始消息重建上下文（之前的压缩结果不会保留，需要时会重新压缩）。"
        )
    repaired, fixes = repair_tool_pairs(view)
    if fixes:
        notices.append(
            f"上次会话在工具调用过程中中断，已修复 {fixes} 处工具调用与结果的配对（未完成的调用标记为已中断）。"
        )
    last_sequence = max((entry.sequence for entry in entries), default=0)
    checkpoint_sequence = entries[start].sequence if start is not None else None
    return ResumeResult(repaired, notices, last_sequence, plan_state, checkpoint_sequence, fixes, extra)


def _matching_checkpoint(line: bytes, mode: str, actor: str) -> LedgerEntry | None:
    try:
        entry = _entry_from(json.loads(line))
    except ValueError:
        return None
    if entry is None or entry.mode != mode or entry.actor != actor or _checkpoint_messages(entry) is None:
        return None
    return entry


def load_view(path: Path, mode: str = "react", actor: str = "agent") -> ResumeResult:
    """Rebuild the view from a ledger file, reading from the end: the cost follows the tail, not the file.

    Scans backwards for the last valid checkpoint line of (mode, actor) and parses from there; falls back
    to a full forward replay when the file has none.
    """
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        for start in _checkpoint_starts(path, handle, size, mode, actor):
            handle.seek(start)
            checkpoint = _matching_checkpoint(handle.readline(), mode, actor)
            if checkpoint is not None:
                rest, notices = parse_entries(handle.read().split(b"\n"), first_line=None)
                return _with_notices(rebuild_view([checkpoint, *rest], mode, actor), notices)
        handle.seek(0)
        entries, notices = parse_entries(handle)
    return _with_notices(rebuild_view(entries, mode, actor), notices)


def _checkpoint_starts(path: Path, handle: BinaryIO, size: int, mode: str, actor: str) -> Iterator[int]:
    """Line starts of view checkpoints, last first: the side index's (each line is still parsed and checked
    before it is used), then a backward scan of the file, which only a ledger without a usable one reaches."""
    indexed: Sequence[int]
    try:
        indexed = read_index(path).checkpoints(mode, actor)
    except OSError:
        indexed = ()
    yield from reversed(indexed)
    for hit in find_backwards(handle, _CHECKPOINT_MARKER, size):
        yield line_start(handle, hit)


def _with_notices(result: ResumeResult, notices: list[str]) -> ResumeResult:
    if not notices:
        return result
    return ResumeResult(
        result.messages,
        notices + result.notices,
        result.last_sequence,
        result.plan_state,
        result.checkpoint_sequence,
        result.repaired,
        result.extra,
    )
