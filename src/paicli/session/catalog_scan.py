"""What the session list says about one ledger (first input, inputs counted, answered, title), kept beside it in
`<ledger>.list` so the next listing reads only the bytes appended since (issue 49: `/resume` and `-c` list every
session of the project, and a list of many large ledgers must not read each one again).

Each listing reads at most `cap` bytes more of a ledger from where the last one stopped: a ledger larger than that
is counted over several listings (its count is a lower bound until then), never stalling one. The side file is
derived data tied to the ledger by the same digest as the turn index (`ledger_index.digest`): a replaced, torn or
truncated ledger is scanned again from the start. Only whole lines are counted; a line still being written waits
for the next listing.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import BinaryIO

from paicli.session.ledger_index import digest

LIST_SUFFIX = ".list"
LISTING_CAP_BYTES = 64 * 1024 * 1024  # read per ledger and listing at most
FORMAT = 1
_USER_EVENT = b'"event":"user"'
_USER_INPUT = b'"source":"user_input"'
_ANSWER_EVENT = b'"event":"assistant"'
_RENAME_EVENT = b'"event":"session_renamed"'  # session.retention.RENAME_EVENT
_NAME_HEAD = 400
_MEMORY_HEADER = "## 相关长期记忆"
_FIRST_INPUT_CHARS = 200
SUBMITTED_INPUT_KEY = "submittedInput"  # optional user_input metadata: the text as typed


@dataclass(frozen=True)
class Scanned:
    """The listing facts of a ledger's first `end` bytes (whole lines)."""

    end: int = 0
    first: str = ""
    turns: int = 0
    answered: bool = False
    title: str = ""


def list_path(ledger: Path) -> Path:
    return ledger.with_name(ledger.name + LIST_SUFFIX)


def scan_ledger(path: Path, cap: int) -> Scanned:
    """The facts up to the ledger's end, or up to `cap` bytes past the last listing's end."""
    with open(path, "rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        stored = _load(list_path(path), handle, size)
        known = stored or Scanned()
        scanned = _scan(handle, known, size, cap)
        if scanned.end > known.end or (stored is None and scanned.end > 0):
            _save(path, handle, scanned)
    return scanned


def _scan(handle: BinaryIO, known: Scanned, size: int, cap: int) -> Scanned:
    first, turns, answered, title, end = known.first, known.turns, known.answered, known.title, known.end
    handle.seek(end)
    stop = end + max(1, cap)
    for line in handle:
        if not line.endswith(b"\n") or end >= size:  # being written: counted once it is whole
            break
        end += len(line)
        if _USER_EVENT in line and _USER_INPUT in line:
            if turns == 0:
                first = _input_text(line)
            turns += 1
        elif _RENAME_EVENT in line[:_NAME_HEAD]:
            title = _title(line) or title
        answered = answered or _ANSWER_EVENT in line
        if end >= stop:
            break
    return replace(known, end=end, first=first, turns=turns, answered=answered, title=title)


def _title(line: bytes) -> str:
    try:
        value = (json.loads(line).get("metadata") or {}).get("title")
    except (ValueError, AttributeError):
        return ""
    return value if isinstance(value, str) else ""


def _input_text(line: bytes) -> str:
    """What the user typed: `metadata.submittedInput` when the loop recorded it, else the message text
    without a leading long-term-memory block (the loop may put one before the input)."""
    try:
        entry = json.loads(line)
        submitted = (entry.get("metadata") or {}).get(SUBMITTED_INPUT_KEY)
        content = submitted if isinstance(submitted, str) else (entry.get("message") or {}).get("content")
    except (ValueError, AttributeError):
        return ""
    if not isinstance(content, str):
        return ""
    if not isinstance(submitted, str) and content.startswith(_MEMORY_HEADER) and "\n\n" in content:
        content = content.rsplit("\n\n", 1)[1]
    return " ".join(content.split())[:_FIRST_INPUT_CHARS]


def _load(path: Path, handle: BinaryIO, size: int) -> Scanned | None:
    try:
        data = json.loads(path.read_bytes())
        scanned = Scanned(
            end=data["end"],
            first=data["first"],
            turns=data["turns"],
            answered=data["answered"],
            title=data["title"],
        )
        valid = data["format"] == FORMAT and data["digest"] == digest(handle, scanned.end)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    types = (int, str, int, bool, str)
    if not valid or not all(isinstance(v, t) for v, t in zip(asdict(scanned).values(), types, strict=True)):
        return None
    return scanned if 0 < scanned.end <= size and scanned.turns >= 0 else None


def _save(ledger: Path, handle: BinaryIO, scanned: Scanned) -> None:
    """Best effort: a side file that cannot be written only costs the next listing a scan."""
    data = {"format": FORMAT, "digest": digest(handle, scanned.end), **asdict(scanned)}
    target = list_path(ledger)
    with contextlib.suppress(OSError):
        fd, temporary = tempfile.mkstemp(prefix=target.name, suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, ensure_ascii=False)
            os.replace(temporary, target)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
