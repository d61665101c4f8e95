"""The turns of a session's conversation as its ledger recorded them, for going back (issue 43: `/rewind`).

A turn is one input of the main conversation (a Plan or Team run is one input: its goal is recorded once it
ends); a `conversation_rewind` event takes back every turn from the one it names, and `/clear` starts over.
Each turn knows where it began (`after`: the ledger position before it), so the workspace snapshot taken
before its first change is the first one whose unit started after that position, also for a run, whose input
line comes last. `view_before` folds the ledger up to a turn: the view the model saw just before it, compacted
or not, as it was then. Reading touches only the heads of lines that cannot matter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from paicli.session.ledger_keys import HISTORY_CLEAR_EVENT, REWIND_EVENT, VIEW_CHECKPOINT_EVENT
from paicli.session.resume import (
    LedgerEntry,
    ResumeResult,
    parse_entries,
    rebuild_view,
)
from paicli.session.transcript import starts_turn, typed_input

SNAPSHOT_EVENT = "workspace_snapshot"  # written by snapshots.recorder
_HEAD = 400
_SEQUENCE = re.compile(rb'"sequence":(\d+)')
_IDENTITY = b'"mode":"react","actor":"agent"'
_TURN_MARK = b'"event":"user"'
_REWIND_MARK = f'"event":"{REWIND_EVENT}"'.encode()
_CLEAR_MARK = f'"event":"{HISTORY_CLEAR_EVENT}"'.encode()
_SNAPSHOT_MARK = f'"event":"{SNAPSHOT_EVENT}"'.encode()
_CHECKPOINT_MARK = f'"event":"{VIEW_CHECKPOINT_EVENT}"'.encode()


@dataclass(frozen=True)
class TurnStart:
    sequence: int  # the input's ledger entry
    after: int  # the ledger position before the turn began (previous turn, rewind or /clear)
    timestamp: int
    typed: str
    run_mode: str = ""  # plan or team for a Plan/Team run, "" for a ReAct turn


@dataclass(frozen=True)
class SnapshotMark:
    sequence: int
    commit: str
    kind: str
    unit_start: int | None  # None: recorded before units existed


@dataclass(frozen=True)
class Timeline:
    turns: tuple[TurnStart, ...]  # the conversation's turns now, oldest first
    snapshots: tuple[SnapshotMark, ...]  # every snapshot recorded in the session, in order

    def snapshot_before(self, turn: TurnStart) -> SnapshotMark | None:
        """The first snapshot taken in this turn or a later one: the files as they were before the turn.
        None: no turn changed a file since (as far as snapshots saw)."""
        for mark in self.snapshots:
            if mark.kind != "turn":
                continue  # a restore's own snapshot is the state before that restore, not before a turn
            if mark.unit_start is not None and mark.unit_start > turn.after:
                return mark
            if mark.unit_start is None and mark.sequence > turn.sequence:
                return mark
        return None


def _sequence(line: bytes) -> int | None:
    match = _SEQUENCE.search(line[:_HEAD])
    return int(match.group(1)) if match else None


def _entry(line: bytes) -> LedgerEntry | None:
    entries, _ = parse_entries([line], first_line=None)
    return entries[0] if entries else None


def _lines(path: Path) -> Iterator[bytes]:
    with open(path, "rb") as handle:
        yield from handle


def read_timeline(path: Path) -> Timeline:
    return timeline_of(_lines(path))


def timeline_of(lines: Iterable[bytes]) -> Timeline:
    turns: list[TurnStart] = []
    snapshots: list[SnapshotMark] = []
    boundary = 0
    for line in lines:
        head = line[:_HEAD]
        if _SNAPSHOT_MARK in head:
            mark = _snapshot_mark(line)
            if mark is not None:
                snapshots.append(mark)
            continue
        if _IDENTITY not in head or not (_TURN_MARK in head or _REWIND_MARK in head or _CLEAR_MARK in head):
            continue
        entry = _entry(line)
        if entry is None:
            continue
        if entry.event == HISTORY_CLEAR_EVENT:
            turns.clear()
            boundary = entry.sequence
        elif entry.event == REWIND_EVENT:
            cut = entry.metadata.get("toSequence")
            if isinstance(cut, int):
                turns = [turn for turn in turns if turn.sequence < cut]
            boundary = entry.sequence
        elif starts_turn(entry):
            mode = entry.metadata.get("runMode")
            run_mode = mode if isinstance(mode, str) else ""
            turns.append(TurnStart(entry.sequence, boundary, entry.timestamp, typed_input(entry), run_mode))
            boundary = entry.sequence
    return Timeline(tuple(turns), tuple(snapshots))


def _snapshot_mark(line: bytes) -> SnapshotMark | None:
    entry = _entry(line)
    if entry is None:
        return None
    metadata = entry.metadata
    commit, start = metadata.get("snapshot"), metadata.get("unitStart")
    if not isinstance(commit, str) or not commit:
        return None
    unit_start = start if isinstance(start, int) and not isinstance(start, bool) else None
    return SnapshotMark(entry.sequence, commit, str(metadata.get("kind") or "turn"), unit_start)


def view_before(path: Path, sequence: int) -> ResumeResult:
    """The main conversation's view just before the entry `sequence` (the last full checkpoint before it plus
    the entries after that checkpoint), protocol-valid as a resume would make it."""
    kept: list[bytes] = []
    for line in _lines(path):
        head = line[:_HEAD]
        if _IDENTITY not in head:
            continue
        at = _sequence(line)
        if at is None or at >= sequence:
            continue
        if _CHECKPOINT_MARK in head and _full_checkpoint(line):
            kept = [line]  # the fold restarts from every whole view
        else:
            kept.append(line)
    entries, notices = parse_entries(kept, first_line=None)
    result = rebuild_view(entries)
    return ResumeResult(
        result.messages, notices + result.notices, result.last_sequence, None, result.checkpoint_sequence
    )


def _full_checkpoint(line: bytes) -> bool:
    try:
        data = json.loads(line)
    except ValueError:
        return False
    metadata = data.get("metadata") if isinstance(data, dict) else None
    return isinstance(metadata, dict) and isinstance(metadata.get("messages"), list)
