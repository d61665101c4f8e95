"""How a new fact meets the stored ones (issue 28): duplicate, supersession, pending conflict or plain store.

Pure policy over entries. A fact on the same subject with another value (or one whose correction cue names a
stored value as old) supersedes the stored fact; the old entry stays in the file with `supersededBy` and
`supersededAt` and is never served as a truth again. A near-identical fact that the subject key cannot place
is a conflict: without a correction cue it is stored as pending (`conflictPending`), excluded from retrieval
until the user settles it, so two contradicting facts are never both injected.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from paicli.memory import subject as subjects
from paicli.memory.dedup import ConflictDetector, is_duplicate, same_domain
from paicli.memory.entry import MemoryEntry, format_instant

SUPERSEDED_BY = "supersededBy"
SUPERSEDED_AT = "supersededAt"
SUPERSEDES = "supersedes"
CONFLICT_PENDING = "conflictPending"
CONFLICT_WITH = "conflictWith"
CONFIRMATIONS = "confirmations"
SUBJECT_KEY = "subjectKey"

Kind = Literal["duplicate", "supersede", "pending", "store"]


@dataclass(frozen=True)
class Decision:
    kind: Kind
    targets: tuple[MemoryEntry, ...] = field(default=())


def is_superseded(entry: MemoryEntry) -> bool:
    return bool(entry.metadata.get(SUPERSEDED_BY, "").strip())


def is_conflict_pending(entry: MemoryEntry) -> bool:
    return entry.metadata.get(CONFLICT_PENDING, "").strip().lower() == "true"


def is_truth(entry: MemoryEntry) -> bool:
    """May be served to the model as a fact: neither superseded nor waiting for a conflict to be settled."""
    return not is_superseded(entry) and not is_conflict_pending(entry)


def confirmations(metadata: Mapping[str, str]) -> int:
    raw = metadata.get(CONFIRMATIONS, "").strip()
    return int(raw) if raw.isdigit() else 0


def subject_for(entry: MemoryEntry) -> subjects.Subject | None:
    raw = entry.metadata.get(SUBJECT_KEY)
    if raw is not None:
        usable, found = subjects.decode(raw)
        if usable:
            return found
    return subjects.subject_of(entry.content)


def prepare(incoming: MemoryEntry) -> None:
    """Compute (and cache) the incoming fact's subject: the tokenizer loads here, outside the store's lock."""
    subjects.subject_of(incoming.content)


def decide(
    entries: Iterable[MemoryEntry], incoming: MemoryEntry, detector: ConflictDetector, allow_conflict: bool
) -> Decision:
    live = [e for e in entries if e.id != incoming.id and not is_superseded(e) and same_domain(e, incoming)]
    duplicate = next((e for e in live if is_duplicate(e, incoming)), None)
    if duplicate is not None:
        return Decision("duplicate", (duplicate,))
    if allow_conflict:
        return Decision("store")
    related = _related(live, incoming)
    same = [e for e, kind in related if kind == "same"]
    if same:
        return Decision("duplicate", (same[0],))
    corrected = [e for e, kind in related if kind in ("changed", "corrects")]
    if corrected:
        return Decision("supersede", tuple(sorted(corrected, key=lambda e: e.timestamp)))
    conflicts = tuple(
        sorted((e for e in live if detector.is_conflict(e, incoming)), key=lambda e: e.timestamp)
    )
    if not conflicts:
        return Decision("store")
    if subjects.has_correction_cue(incoming.content):
        return Decision("supersede", conflicts)
    return Decision("pending", conflicts)


def _related(live: list[MemoryEntry], incoming: MemoryEntry) -> list[tuple[MemoryEntry, str]]:
    """The subject relation to every plausible stored fact; a cheap substring scan picks the candidates."""
    new = subjects.subject_of(incoming.content)
    needles = set(new.words) if new is not None else set()
    for clause in subjects.old_value_clauses(incoming.content):
        needles.update(subjects.values_in(clause))
        needles.update(word for word in clause.split() if len(word) >= 2)
    if not needles:
        return []
    found: list[tuple[MemoryEntry, str]] = []
    for entry in live:
        lowered = entry.content.lower()
        if not any(needle in lowered for needle in needles):
            continue
        kind = subjects.relate_subjects(subject_for(entry), new, incoming.content)
        if kind != "none":
            found.append((entry, kind))
    return found


def superseded(old: MemoryEntry, by: str, when: datetime) -> MemoryEntry:
    metadata = {k: v for k, v in old.metadata.items() if k not in (CONFLICT_PENDING, CONFLICT_WITH)}
    metadata[SUPERSEDED_BY] = by
    metadata[SUPERSEDED_AT] = format_instant(when)
    return old.model_copy(update={"metadata": metadata})


def superseding(new: MemoryEntry, olds: Iterable[MemoryEntry]) -> MemoryEntry:
    metadata = dict(new.metadata)
    metadata[SUPERSEDES] = ",".join(old.id for old in olds)
    return new.model_copy(update={"metadata": metadata})


def pending(new: MemoryEntry, conflicts: Iterable[MemoryEntry]) -> MemoryEntry:
    metadata = dict(new.metadata)
    metadata[CONFLICT_PENDING] = "true"
    metadata[CONFLICT_WITH] = ",".join(e.id for e in conflicts)
    return new.model_copy(update={"metadata": metadata})


def confirmed(entry: MemoryEntry, when: datetime) -> MemoryEntry:
    """A re-statement, duplicate save or /memory verify: verified now, one more confirmation."""
    refreshed = entry.with_last_verified_at(when)
    metadata = dict(refreshed.metadata)
    metadata[CONFIRMATIONS] = str(confirmations(entry.metadata) + 1)
    return refreshed.model_copy(update={"metadata": metadata})


def settled(entry: MemoryEntry) -> MemoryEntry:
    metadata = {k: v for k, v in entry.metadata.items() if k not in (CONFLICT_PENDING, CONFLICT_WITH)}
    return entry.model_copy(update={"metadata": metadata})


def history(entries: Mapping[str, MemoryEntry], entry_id: str) -> list[MemoryEntry]:
    """The chain of versions an entry belongs to, oldest first (following supersedes / supersededBy)."""
    start = entries.get(entry_id)
    if start is None:
        return []
    chain = [start]
    seen = {start.id}
    current = start
    while True:  # back to the oldest
        older = [entries[i] for i in _ids(current.metadata.get(SUPERSEDES, "")) if i in entries]
        older = [e for e in older if e.id not in seen]
        if not older:
            break
        chain[:0] = older
        seen.update(e.id for e in older)
        current = older[0]
    current = start
    while True:  # forward to the newest
        newer_id = current.metadata.get(SUPERSEDED_BY, "").strip()
        newer = entries.get(newer_id)
        if newer is None or newer.id in seen:
            break
        chain.append(newer)
        seen.add(newer.id)
        current = newer
    return chain


def _ids(raw: str) -> list[str]:
    return [part.strip() for part in raw.split(",") if part.strip()]


def conflict_partners(entry: MemoryEntry) -> list[str]:
    return _ids(entry.metadata.get(CONFLICT_WITH, ""))
