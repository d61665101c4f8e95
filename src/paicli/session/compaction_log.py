"""A conversation's compactions read back from its ledger: the newest receipt (with what the next response
observed), and the view as it would be had that compaction not happened (`/compact undo`). Pure.

A compaction writes, for its conversation, one `compaction` event per step, then a view checkpoint, then its
receipt: the entries of that conversation right before a receipt are the ones to leave out. Everything else,
also what was appended after the compaction, folds as usual.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paicli.context.receipt_events import OBSERVED_EVENT, RECEIPT_EVENT, UNDO_EVENT
from paicli.context.receipts import Receipt, receipt_from
from paicli.session.ledger_keys import HISTORY_CLEAR_EVENT, VIEW_CHECKPOINT_EVENT
from paicli.session.resume import (
    LedgerEntry,
    ResumeResult,
    is_full_checkpoint,
    rebuild_view,
)

_GROUP_EVENTS = frozenset({"compaction", VIEW_CHECKPOINT_EVENT})


@dataclass(frozen=True)
class LoggedCompaction:
    receipt: Receipt
    sequence: int  # the receipt entry's
    group: frozenset[int]  # its compaction events and checkpoint
    undone: bool
    rebuilt_after: bool = False  # /clear or a whole new view since: undoing it would not give that view back


def _mine(entry: LedgerEntry, mode: str, actor: str) -> bool:
    return entry.mode == mode and entry.actor == actor


def last_compaction(
    entries: Sequence[LedgerEntry],
    mode: str = "react",
    actor: str = "agent",
    *,
    with_summary: bool = False,
) -> LoggedCompaction | None:
    """The newest compaction of (mode, actor) with a readable receipt (`with_summary`: the newest that wrote a
    summary or note), observed figures folded in."""
    for index in range(len(entries) - 1, -1, -1):
        entry = entries[index]
        if entry.event != RECEIPT_EVENT or not _mine(entry, mode, actor):
            continue
        receipt = receipt_from(entry.metadata)
        if receipt is None or (with_summary and not receipt.summary):
            continue
        return _logged(entries, index, receipt, mode, actor)
    return None


def _logged(
    entries: Sequence[LedgerEntry], index: int, receipt: Receipt, mode: str, actor: str
) -> LoggedCompaction:
    group: set[int] = set()
    for earlier in range(index - 1, -1, -1):
        entry = entries[earlier]
        if not _mine(entry, mode, actor):
            continue
        if entry.event not in _GROUP_EVENTS:
            break
        group.add(entry.sequence)
    sequence = entries[index].sequence
    undone = rebuilt = observed_seen = False
    for entry in entries[index + 1 :]:
        if not _mine(entry, mode, actor):
            continue
        if entry.event == RECEIPT_EVENT:
            break
        if entry.event == HISTORY_CLEAR_EVENT or is_full_checkpoint(entry):
            rebuilt = True
        if entry.event == OBSERVED_EVENT and not observed_seen:
            observed_seen = True
            prompt, cached = entry.metadata.get("promptTokens"), entry.metadata.get("cachedTokens")
            if isinstance(prompt, int) and isinstance(cached, int):
                receipt = receipt.observed(prompt, cached)
        if entry.event == UNDO_EVENT and entry.metadata.get("receiptSequence") == sequence:
            undone = True
    return LoggedCompaction(receipt, sequence, frozenset(group), undone, rebuilt)


def view_without(
    entries: Sequence[LedgerEntry], compaction: LoggedCompaction, mode: str = "react", actor: str = "agent"
) -> ResumeResult:
    """The view of (mode, actor) folded as if `compaction` had not happened."""
    skipped = compaction.group | {compaction.sequence}
    kept = [entry for entry in entries if entry.sequence not in skipped]
    return rebuild_view(kept, mode, actor)
