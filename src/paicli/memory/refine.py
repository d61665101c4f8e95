"""The judge's second look at a write that the local rules already decided (issue 37).

Every write (/save, save_memory, automatic extraction) is decided at once by the local rules, so the user sees
the outcome immediately and a turn never waits for a model. Afterwards, off the critical path, `refine` asks the
relation judge about the neighbours the parser was unsure of and re-decides the written entry with its verified
verdicts: a supersession the parser missed is added, an unsure one the judge calls unrelated is undone, and a
contradiction nothing else settled becomes a pending conflict. `plan` and `apply` are pure over the entries; the
store runs `apply` under its lock, so a concurrent write in between is seen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, MutableMapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Protocol, TypeVar

from paicli.memory import evolve
from paicli.memory.dedup import ConflictDetector
from paicli.memory.entry import MemoryEntry
from paicli.memory.judge import Verdict

R = TypeVar("R")
Entries = MutableMapping[str, MemoryEntry]


class JudgeLike(Protocol):
    def judge(self, new: str, candidates: list[MemoryEntry]) -> dict[str, Verdict]: ...


class TransactingStore(Protocol):
    """What `LongTermMemory` offers refinement: a snapshot and a locked reload-change-write."""

    detector: ConflictDetector

    def get_all(self, project_key: str | None = None) -> list[MemoryEntry]: ...

    def transact(self, change: Callable[[Entries], tuple[R, bool]]) -> R: ...


@dataclass(frozen=True)
class Refinement:
    added: tuple[MemoryEntry, ...] = field(default=())  # newly superseded by the entry
    restored: tuple[MemoryEntry, ...] = field(default=())  # no longer superseded by it
    conflicts: tuple[MemoryEntry, ...] = field(default=())  # the entry is now pending against these

    @property
    def changed(self) -> bool:
        return bool(self.added or self.restored or self.conflicts)


def _superseded_by(entries: Mapping[str, MemoryEntry], new: MemoryEntry) -> list[MemoryEntry]:
    ids = [i.strip() for i in new.metadata.get(evolve.SUPERSEDES, "").split(",") if i.strip()]
    return [
        entries[i] for i in ids if i in entries and entries[i].metadata.get(evolve.SUPERSEDED_BY) == new.id
    ]


def _live_again(entry: MemoryEntry) -> MemoryEntry:
    metadata = {
        k: v for k, v in entry.metadata.items() if k not in (evolve.SUPERSEDED_BY, evolve.SUPERSEDED_AT)
    }
    return entry.model_copy(update={"metadata": metadata})


def _pool(
    entries: Mapping[str, MemoryEntry], new: MemoryEntry, known: frozenset[str] | None
) -> list[MemoryEntry]:
    """What the entry is compared with again: the live entries that existed when it was written (`known`; a later
    write must never be superseded by an earlier one), with the ones it superseded made live again, and the
    history (a return to an earlier value is read through it: `evolve.returned_from`)."""
    olds = {e.id: _live_again(e) for e in _superseded_by(entries, new)}
    return [
        olds.get(e.id, e)
        for e in entries.values()
        if e.id in olds or evolve.is_superseded(e) or known is None or e.id in known
    ]


def unsure_neighbours(
    entries: Mapping[str, MemoryEntry], entry_id: str, known: frozenset[str] | None = None
) -> list[MemoryEntry]:
    """The neighbours of a written entry whose relation the parser is not certain of (what the judge sees)."""
    new = entries.get(entry_id)
    if new is None or evolve.is_superseded(new):
        return []
    candidates = evolve.live_neighbours(_pool(entries, new, known), new)
    return [e for e, _, certain in evolve.relate_all(candidates, new, {}) if not certain]


def plan(
    entries: Mapping[str, MemoryEntry],
    entry_id: str,
    verdicts: Mapping[str, Verdict],
    detector: ConflictDetector,
    known: frozenset[str] | None = None,
) -> Refinement:
    new = entries.get(entry_id)
    if new is None or evolve.is_superseded(new) or not verdicts:
        return Refinement()
    olds = {e.id: _live_again(e) for e in _superseded_by(entries, new)}
    pool = _pool(entries, new, known)
    decision = evolve.decide(pool, new, detector, False, verdicts)
    targets = {e.id for e in decision.targets} if decision.kind in ("supersede", "duplicate") else set()
    added = tuple(e for e in decision.targets if e.id in targets and e.id not in olds)
    restored = tuple(e for e in olds.values() if e.id not in targets)
    conflicts: tuple[MemoryEntry, ...] = ()
    if decision.kind == "pending" and not evolve.is_conflict_pending(new) and len(restored) == len(olds):
        conflicts = decision.targets
    return Refinement(added, restored, conflicts)


def apply(entries: Entries, entry_id: str, refinement: Refinement, now: datetime) -> bool:
    """Write `refinement` into `entries` (in place); False when there was nothing to change."""
    new = entries.get(entry_id)
    if new is None or not refinement.changed:
        return False
    for old in refinement.added:
        entries[old.id] = evolve.superseded(entries.get(old.id, old), new.id, now)
    for old in refinement.restored:
        entries[old.id] = _live_again(entries.get(old.id, old))
    keep = [e for e in _superseded_by(entries, new)]
    metadata = {k: v for k, v in new.metadata.items() if k != evolve.SUPERSEDES}
    if keep:
        metadata[evolve.SUPERSEDES] = ",".join(e.id for e in keep)
    updated = new.model_copy(update={"metadata": metadata})
    if refinement.added and evolve.is_conflict_pending(updated):
        updated = evolve.settled(updated)  # the judge saw a correction where the parser saw a conflict
    if refinement.conflicts:
        updated = evolve.pending(updated, refinement.conflicts)
    entries[entry_id] = updated
    return True


def refine(
    store: TransactingStore,
    judge: JudgeLike,
    entry: MemoryEntry,
    now: Callable[[], datetime],
    known: frozenset[str] | None = None,
) -> Refinement:
    """Ask the judge about the entry's unsure neighbours and apply what its verified verdicts change. `known`:
    the ids stored when the entry was written (None: compare with everything stored now)."""
    snapshot = {e.id: e for e in store.get_all()}
    unsure = unsure_neighbours(snapshot, entry.id, known)
    if not unsure:
        return Refinement()
    verdicts = judge.judge(entry.content, unsure)
    if not verdicts:
        return Refinement()

    def change(entries: Entries) -> tuple[Refinement, bool]:
        refinement = plan(entries, entry.id, verdicts, store.detector, known)
        return refinement, apply(entries, entry.id, refinement, now())

    return store.transact(change)


def _brief(text: str, limit: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def notice(entry: MemoryEntry, refinement: Refinement) -> str:
    """What the user is told when the second look changed the outcome (empty when it did not)."""
    lines: list[str] = []
    if refinement.added:
        olds = "；".join(_brief(e.content) for e in refinement.added)
        lines.append(f"🔁 复核后：“{_brief(entry.content)}”（{entry.id}）取代了旧的“{olds}”")
    for old in refinement.restored:
        lines.append(
            f"↩️ 复核后：“{_brief(old.content)}”（{old.id}）和新记下的那条说的不是一回事，已恢复为有效记忆"
        )
    if refinement.conflicts:
        olds = "；".join(f"{e.id} {_brief(e.content)}" for e in refinement.conflicts)
        lines.append(
            f"⚠️ 复核后：“{_brief(entry.content)}”（{entry.id}）与已有记忆冲突（{olds}），已改为待确认；/memory conflicts 查看"
        )
    return "\n".join(lines)
