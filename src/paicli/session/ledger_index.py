"""Where a ledger's turns, /clears and view checkpoints start, kept in a side file beside it (`<ledger>.idx`).

A resume shows the last turns and counts the ones before them, and folds the view from the last checkpoint: with
these offsets neither reads more of a 1 GB ledger than what it shows and restores. The side file is derived data:
it describes the ledger up to `covered` (the end of its last complete line when it was written) and carries a
digest of the bytes just before that point and of the ledger's first bytes; when the digest does not match the
ledger (missing, torn, replaced or truncated file), it is rebuilt by one pass over the ledger. Each use scans only
the bytes appended since, and offsets are checked against the ledger's own lines before anything relies on them.
The ledger's format is untouched.

The side file is one JSON header line (format, covered end, digest, byte order, a CRC of the rest, and per
(mode, actor) how many offsets of each kind follow) and then the offsets as unsigned 64-bit integers: loading it
copies bytes into arrays and costs no Python object per offset, so a resume of a 1 GB ledger's many turns reads
it about as fast as a small one's.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import os
import re
import sys
import tempfile
import zlib
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

INDEX_SUFFIX = ".idx"
FORMAT = 2
KINDS = ("turns", "clears", "checkpoints")
BLOCK = 4 * 1024 * 1024
DIGEST_SPAN = 4096
HEAD_LIMIT = 400  # event, mode, actor and source come first in every entry (ledger.encode_entry)
CLEAR, CHECKPOINT, USER = "history_clear", "view_checkpoint", "user"
# user-role entries the loop writes itself (skill bodies, reminders): never the start of a turn
INTERNAL_SOURCES = frozenset({"runaway_reminder", "skill_injection", "budget_finalization", "workspace_note"})
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


def offsets(values: Any = ()) -> array[int]:
    return array("Q", values)


@dataclass
class Marks:
    """One (mode, actor)'s line offsets, in file order."""

    turns: array[int] = field(default_factory=offsets)
    clears: array[int] = field(default_factory=offsets)
    checkpoints: array[int] = field(default_factory=offsets)

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

    def checkpoints(self, mode: str, actor: str) -> array[int]:
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


def digest(handle: BinaryIO, covered: int) -> str:
    """What ties a side file to its ledger: the ledger's first bytes and the bytes just before `covered`."""
    handle.seek(0)
    first = handle.read(min(DIGEST_SPAN, covered))
    handle.seek(max(0, covered - DIGEST_SPAN))
    last = handle.read(min(DIGEST_SPAN, covered))
    return hashlib.sha256(covered.to_bytes(8, "big") + first + b"\0" + last).hexdigest()


def _load(path: Path, handle: BinaryIO, size: int) -> tuple[int, dict[tuple[str, str], Marks]] | None:
    try:
        covered, stored_digest, marks = decode_side(path.read_bytes())
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not 0 < covered <= size or stored_digest != digest(handle, covered):
        return None
    return (covered, marks) if _lines_start_at(handle, marks) else None


def decode_side(data: bytes) -> tuple[int, str, dict[tuple[str, str], Marks]]:
    """(covered, digest, marks) of a side file; ValueError (or KeyError, TypeError) for anything not written
    whole by `encode_side` on a machine of this byte order."""
    head, newline, body = data.partition(b"\n")
    header: Any = json.loads(head)
    covered, digest = header["covered"], header["digest"]
    if not newline or header.get("format") != FORMAT or header.get("order") != sys.byteorder:
        raise ValueError("not this format")
    if not isinstance(covered, int) or not isinstance(digest, str) or zlib.crc32(body) != header["crc"]:
        raise ValueError("torn or altered")
    values, marks, at = offsets(), {}, 0
    values.frombytes(body)  # a length that is not a whole number of offsets raises ValueError
    for item in header["marks"]:
        counts = [item[kind] for kind in KINDS]
        if not all(isinstance(count, int) and count >= 0 for count in counts):
            raise ValueError("bad counts")
        kinds = []
        for count in counts:
            kinds.append(values[at : at + count])
            at += count
        marks[(str(item["mode"]), str(item["actor"]))] = Marks(*kinds)
    if at != len(values):
        raise ValueError("counts do not match the offsets")
    return covered, digest, marks


def encode_side(covered: int, digest: str, marks: dict[tuple[str, str], Marks]) -> bytes:
    """The side file's bytes for the offsets below `covered` (offsets are kept in file order, so a cut)."""
    body, items = offsets(), []
    for (mode, actor), marks_of in marks.items():
        item: dict[str, Any] = {"mode": mode, "actor": actor}
        for kind, values in zip(KINDS, (marks_of.turns, marks_of.clears, marks_of.checkpoints), strict=True):
            kept = values[: bisect.bisect_left(values, covered)]
            item[kind] = len(kept)
            body.extend(kept)
        items.append(item)
    data = body.tobytes()
    header = {"format": FORMAT, "covered": covered, "digest": digest, "order": sys.byteorder}
    header |= {"crc": zlib.crc32(data), "marks": items}
    return json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode() + b"\n" + data


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
    data = encode_side(covered, digest(handle, covered), index.marks)
    target = index_path(ledger)
    with contextlib.suppress(OSError):
        fd, temporary = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(temporary, target)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
