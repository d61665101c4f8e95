"""The conversation as it happened, read back from a ledger for the user to see again on resume.

Unlike the fold (session.resume), which rebuilds the compacted view the model continues from, this reads the
raw message entries of the last turns (a summary replaced them in the view, never in the ledger) and counts
the turns before them. It reads from the end of the file: the cost follows the turns shown; the turns before them are
counted from the ledger's side index. A `/clear` ends what is shown, as it ended the view.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from paicli.llm.messages import Message
from paicli.session.ledger_index import INTERNAL_SOURCES, read_index
from paicli.session.ledger_keys import HISTORY_CLEAR_EVENT, OUTCOME_KEY, REWIND_EVENT
from paicli.session.resume import (
    MESSAGE_EVENTS,
    LedgerEntry,
    parse_entries,
)
from paicli.session.scan import BLOCK

_CLEAR_EVENT = f'"event":"{HISTORY_CLEAR_EVENT}"'.encode()
_REWIND_EVENT = f'"event":"{REWIND_EVENT}"'.encode()
_HEAD = 400  # event, mode, actor and source come first in every entry (ledger.encode_entry)
SUBMITTED_INPUT_KEY = "submittedInput"


@dataclass(frozen=True)
class ShownTurn:
    """One turn to show: what the user typed and every message entry that followed it."""

    typed: str
    messages: tuple[Message, ...]
    outcomes: Mapping[str, str] = field(default_factory=dict)  # tool call id -> outcome, where recorded


@dataclass(frozen=True)
class Transcript:
    turns: tuple[ShownTurn, ...]
    earlier_turns: int  # turns before the shown ones (since the last /clear)
    skipped_lines: int = 0  # torn or invalid lines among the ones read

    @property
    def total_turns(self) -> int:
        return self.earlier_turns + len(self.turns)


def runs_backwards(handle: BinaryIO, end: int, block_size: int = BLOCK) -> Iterator[tuple[int, bytes]]:
    """(offset, bytes) runs of whole lines before `end` (a line start), last first, read in fixed-size blocks."""
    position, carry = end, b""
    while position > 0:
        start = max(0, position - block_size)
        handle.seek(start)
        block = handle.read(position - start) + carry
        position = start
        if start == 0:
            yield 0, block
            return
        cut = block.find(b"\n")
        if cut < 0:  # a line longer than the block: read on
            carry = block
            continue
        carry = block[:cut]
        yield start + cut + 1, block[cut + 1 :]


def lines_backwards(handle: BinaryIO, end: int, block_size: int = BLOCK) -> Iterator[tuple[int, bytes]]:
    """(offset, line) for every line before `end`, last first."""
    for offset, run in runs_backwards(handle, end, block_size):
        lines = run.split(b"\n")
        starts = [offset]
        for line in lines[:-1]:
            starts.append(starts[-1] + len(line) + 1)
        yield from zip(reversed(starts), reversed(lines), strict=True)


def _identity(mode: str, actor: str) -> bytes:
    return f'"mode":{json.dumps(mode)},"actor":{json.dumps(actor)}'.encode()


def starts_turn(entry: LedgerEntry) -> bool:
    return entry.event == "user" and entry.source not in INTERNAL_SOURCES and entry.message is not None


def read_transcript(path: Path, last_turns: int, mode: str = "react", actor: str = "agent") -> Transcript:
    """The last `last_turns` turns of (mode, actor) and how many came before them."""
    identity = _identity(mode, actor)
    collected: list[LedgerEntry] = []
    shown = skipped = 0
    cut: int | None = None  # entries from this sequence on were taken back by a /rewind read so far
    with open(path, "rb") as handle:
        rest = 0  # where the lines not read for showing end
        for offset, line in lines_backwards(handle, handle.seek(0, 2)):
            if shown >= last_turns:
                rest = offset + len(line)  # this line and every one before it
                break
            head = line[:_HEAD]
            if identity not in head:
                continue
            if _CLEAR_EVENT in head:
                break
            entries, notices = parse_entries([line], first_line=None)
            skipped += len(notices)
            if not entries:
                continue
            entry = entries[0]
            if _REWIND_EVENT in head:
                target = entry.metadata.get("toSequence")
                if isinstance(target, int):
                    cut = target if cut is None else min(cut, target)
            elif cut is not None and entry.sequence >= cut:
                continue
            elif entry.event in MESSAGE_EVENTS and entry.message is not None:
                collected.append(entry)
                shown += starts_turn(entry)
        earlier = _earlier_turns(path, handle, rest, mode, actor) if rest else 0
    return Transcript(tuple(_turns(reversed(collected))), earlier, skipped)


def _earlier_turns(path: Path, handle: BinaryIO, end: int, mode: str, actor: str) -> int:
    """From the ledger's side index (session.ledger_index): the cost follows what was appended since it was
    last brought up to date, not the file; a byte scan back to the start when the index cannot be read."""
    try:
        return read_index(path).turns_before(end, mode, actor)
    except OSError:
        return count_turns_before(handle, end, _identity(mode, actor))


def count_turns_before(handle: BinaryIO, end: int, identity: bytes) -> int:
    """Turns of `identity` before `end`, back to a /clear, from the entry heads alone: byte counts over
    whole blocks, no JSON parse (a head's quotes cannot occur unescaped inside a JSON string)."""
    user = b'"event":"user",' + identity + b',"source":"'
    internal = [user + source.encode() + b'"' for source in INTERNAL_SOURCES]
    clear = f'"event":"{HISTORY_CLEAR_EVENT}",'.encode() + identity
    count = 0
    for _, run in runs_backwards(handle, end):
        cleared = run.rfind(clear)
        if cleared >= 0:
            run = run[cleared:]
        count += run.count(user) - sum(run.count(marker) for marker in internal)
        if cleared >= 0:
            break
    return count


def _turns(entries: Iterator[LedgerEntry]) -> list[ShownTurn]:
    turns: list[tuple[str, list[Message], dict[str, str]]] = []
    for entry in entries:
        message = entry.message
        assert message is not None
        if starts_turn(entry):
            turns.append((typed_input(entry), [], {}))
        elif turns and message.role != "system":
            turns[-1][1].append(message)
            outcome = entry.metadata.get(OUTCOME_KEY)
            if message.tool_call_id and isinstance(outcome, str):
                turns[-1][2][message.tool_call_id] = outcome
    return [ShownTurn(typed, tuple(messages), outcomes) for typed, messages, outcomes in turns]


_MEMORY_HEADER = "## 相关长期记忆"
_STDIN_MARKER = "\n\n以下是通过标准输入传入的内容："


def typed_input(entry: LedgerEntry) -> str:
    """The input as typed: `submittedInput` when the loop recorded it, else the message text without a
    long-term-memory block before it or piped stdin after it."""
    submitted = entry.metadata.get(SUBMITTED_INPUT_KEY)
    if isinstance(submitted, str):
        return submitted.strip()
    return typed_text((entry.message.content or "") if entry.message else "")


def typed_text(content: str) -> str:
    if content.startswith(_MEMORY_HEADER) and "\n\n" in content:
        content = content.rsplit("\n\n", 1)[1]
    return content.split(_STDIN_MARKER, 1)[0].strip()
