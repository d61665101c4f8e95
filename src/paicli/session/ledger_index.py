"""Where a ledger's turns, /clears and view checkpoints start, kept in a side file beside it (`<ledger>.idx`).

A resume shows the last turns and counts the ones before them, and folds the view from the last checkpoint: with
these offsets neither reads more of a 1 GB ledger than what it shows and restores. The side file is derived data:
it describes the ledger up to `covered` (the end of its last complete line when it was written) and carries a
digest of the bytes just before that point and of the ledger's first bytes; when the digest does not match the
ledger (missing, torn, replaced or truncated file), it is rebuilt by one pass over the ledger. Each use scans only
the bytes appended since, and offsets are checked against the ledger's own lines before anything relies on them.
The ledger's format is untouched.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

INDEX_SUFFIX = ".idx"
FORMAT = 1
BLOCK = 4 * 1024 * 1024
DIGEST_SPAN = 4096
HEAD_LIMIT = 400  # event, mode, actor and source come first in every entry (ledger.encode_entry)
CLEAR, CHECKPOINT, USER = "history_clear", "view_checkpoint", "user"
# user-role entries the loop writes itself (skill bodies, reminders): never the start of a turn
INTERNAL_SOURCES = frozenset({"runaway_reminder", "skill_injection", "budget_finalization"})
_STRING = rb'"((?:[^"\\]|\\.)*)"'
# A structural quote never occurs unescaped inside a JSON string, so these bytes only match an entry's head
# (checked: the match lies within the first bytes of a line that opens an object).
_HEAD = re.compile(
    rb'"event":"(user|history_clear|view_checkpoint)","mode":'
    + _STRING
    + rb',"actor":'
    + _STRING
    + rb',"source":'
    + _STRING
)


@dataclass
class Marks:
    """One (mode, actor)'s line offsets, in file order."""

    turns: list[int] = field(default_factory=list)
    clears: list[int] = field(default_factory=list)
    checkpoints: list[int] = field(default_factory=list)

    def add(self, kind: str, offset: int) -> None:
        {"turn": self.turns, CLEAR: self.clears, CHECKPOINT: self.checkpoints}[kind].append(offset)


@dataclass
class LedgerIndex:
    size: int  # the ledger's size when read: every offset below it is indexed
    marks: dict[tuple[str, str], Marks] = field(default_factory=dict)

    def of(self, mode: str, actor: str) -> Marks:
        return self.marks.get((mode, actor)) or Marks()

    def turns_before(self, end: int, mode: str, actor: str) -> int:
        """Turns of (mode, actor) starting before `end`, back to the last /clear before it."""
        marks = self.of(mode, actor)
        cleared = bisect.bisect_left(marks.clears, end)
        since = marks.clears[cleared - 1] if cleared else -1
        return bisect.bisect_left(marks.turns, end) - bisect.bisect_right(marks.turns, since)

    def checkpoints(self, mode: str, actor: str) -> list[int]:
        return self.of(mode, actor).checkpoints


def index_path(ledger: Path) -> Path:
    return ledger.with_name(ledger.name + INDEX_SUFFIX)


def read_index(ledger: Path) -> LedgerIndex:
    """The ledger's marks, up to date with its current size; the side file is refreshed on the way (best
    effort: a side file that cannot be written only costs the next resume a scan)."""
    with open(ledger, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        stored = _load(index_path(ledger), handle, size)
        covered, marks = stored if stored is not None else (0, {})
        index = LedgerIndex(size, marks)
        end = _scan(handle, covered, size, index)
        if end > covered or stored is None:
            _save(ledger, handle, end, index)
    return index


# ---- scanning -------------------------------------------------------------------------------------------


def _scan(handle: BinaryIO, start: int, size: int, index: LedgerIndex) -> int:
    """Add the marks of the lines from `start`; returns the end of the last complete line."""
    complete = start
    for offset, run in _runs(handle, start, size):
        for found in _HEAD.finditer(run):
            line = run.rfind(b"\n", 0, found.start()) + 1
            if found.start() - line > HEAD_LIMIT or not run.startswith(b"{", line):
                continue
            kind = found.group(1).decode()
            if kind == USER:
                if _decode(found.group(4)) in INTERNAL_SOURCES:
                    continue
                kind = "turn"
            key = (_decode(found.group(2)), _decode(found.group(3)))
            index.marks.setdefault(key, Marks()).add(kind, offset + line)
        last = run.rfind(b"\n")
        if last >= 0:
            complete = offset + last + 1
    return complete


def _runs(handle: BinaryIO, start: int, size: int) -> Iterator[tuple[int, bytes]]:
    """(offset, bytes) runs of whole lines from `start` (the last run may end in a line without its newline)."""
    handle.seek(start)
    offset, carry = start, b""
    while True:
        block = handle.read(min(BLOCK, max(0, size - offset - len(carry))))
        if not block:
            if carry:
                yield offset, carry
            return
        run = carry + block
        cut = run.rfind(b"\n") + 1
        if cut == 0:  # a line longer than the block: read on
            carry = run
            continue
        yield offset, run[:cut]
        offset, carry = offset + cut, run[cut:]


def _decode(raw: bytes) -> str:
    try:
        value = json.loads(b'"' + raw + b'"')
    except ValueError:
        return raw.decode("utf-8", "replace")
    return value if isinstance(value, str) else ""


# ---- the side file ----------------------------------------------------------------------------------------


def _digest(handle: BinaryIO, covered: int) -> str:
    """What ties a side file to its ledger: the ledger's first bytes and the bytes just before `covered`."""
    handle.seek(0)
    first = handle.read(min(DIGEST_SPAN, covered))
    handle.seek(max(0, covered - DIGEST_SPAN))
    last = handle.read(min(DIGEST_SPAN, covered))
    return hashlib.sha256(covered.to_bytes(8, "big") + first + b"\0" + last).hexdigest()


def _load(path: Path, handle: BinaryIO, size: int) -> tuple[int, dict[tuple[str, str], Marks]] | None:
    try:
        data: Any = json.loads(path.read_bytes())
        covered = data["covered"]
        if data.get("format") != FORMAT or not isinstance(covered, int) or not 0 < covered <= size:
            return None
        if data["digest"] != _digest(handle, covered):
            return None
        marks = {
            (str(item["mode"]), str(item["actor"])): Marks(
                _offsets(item["turns"], covered),
                _offsets(item["clears"], covered),
                _offsets(item["checkpoints"], covered),
            )
            for item in data["marks"]
        }
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return (covered, marks) if _lines_start_at(handle, marks) else None


def _offsets(raw: Any, covered: int) -> list[int]:
    # checked by builtins that loop in C: this runs on every resume, over every turn of the session
    if not isinstance(raw, list) or not set(map(type, raw)) <= {int}:
        raise ValueError("offsets are not integers")
    if raw and (raw[0] < 0 or raw[-1] >= covered or raw != sorted(set(raw))):
        raise ValueError("offsets out of range or order")
    return raw


def _lines_start_at(handle: BinaryIO, marks: dict[tuple[str, str], Marks]) -> bool:
    """Spot check: the last offset of each kind is where a matching entry's line starts in the ledger."""
    for marks_of in marks.values():
        for offsets in (marks_of.turns, marks_of.clears, marks_of.checkpoints):
            if offsets and not _entry_head_at(handle, offsets[-1]):
                return False
    return True


def _entry_head_at(handle: BinaryIO, offset: int) -> bool:
    if offset > 0:
        handle.seek(offset - 1)
        if handle.read(1) != b"\n":
            return False
    handle.seek(offset)
    head = handle.read(HEAD_LIMIT + 200)
    found = _HEAD.search(head)
    return head.startswith(b"{") and found is not None and found.start() <= HEAD_LIMIT


def _save(ledger: Path, handle: BinaryIO, covered: int, index: LedgerIndex) -> None:
    if covered <= 0:
        return
    data = {
        "format": FORMAT,
        "covered": covered,
        "digest": _digest(handle, covered),
        "marks": [
            {
                "mode": mode,
                "actor": actor,
                "turns": [x for x in marks.turns if x < covered],
                "clears": [x for x in marks.clears if x < covered],
                "checkpoints": [x for x in marks.checkpoints if x < covered],
            }
            for (mode, actor), marks in index.marks.items()
        ],
    }
    target = index_path(ledger)
    with contextlib.suppress(OSError):
        fd, temporary = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, separators=(",", ":"))
            os.replace(temporary, target)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
