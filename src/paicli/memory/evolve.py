"""How a new fact meets the stored ones (issues 28, 37): duplicate, supersession, pending conflict or plain store.

Pure policy over entries. The new fact is related to its neighbours (`neighbours.py`) by the claim parser
(`subject.py`): the same subject with another value, a negation of the stored value, or a statement that denies it
supersedes the stored fact; the old entry stays in the file with `supersededBy` and `supersededAt` and is never
served as a truth again. A relation the parser is not certain of may be decided by the relation judge's verified
verdict (`judge.py`); a certain one never is. Where the parser finds no relation, a marked change in a frame it does
not read (`marked_change.py`) may still supersede, never for sure, and so may a return to an earlier value, read
through the value's history (`returns.py`: the truth that value's chain ends at is the one replaced); a maybe or an
added fact never supersedes unless the parser is certain, a question or a plain `also` never. A near-identical fact
the parser cannot place is a conflict: it is stored as pending (`conflictPending`), excluded from retrieval until
the user settles it, so two contradicting facts are never both injected. When the new fact's subject is held by
several stored subjects that differ from each other (`版本` in `JDK 版本` and `Node 版本`), nothing is superseded on that
ground alone. A new subject that adds a qualifier to a truth's (`the admin session timeout`) is a narrower thing,
unless a version the truth superseded named it that way (`_earlier`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from paicli.memory import marked_change, returns, table
from paicli.memory import subject as subjects
from paicli.memory.dedup import ConflictDetector, is_duplicate, same_domain
from paicli.memory.denial import states_nothing, subject_named_in, widens
from paicli.memory.entry import MemoryEntry, format_instant
from paicli.memory.judge import Verdict
from paicli.memory.mentions import corrects_stored
from paicli.memory.neighbours import neighbours
from paicli.memory.relation import (
    denial_only,
    denies_for_another,
    relation,
    same_subject,
    subjectless_denial,
)
from paicli.memory.value_denial import Weighed, weigh

SUPERSEDED_BY = table.SUPERSEDED_BY
SUPERSEDED_AT = "supersededAt"
SUPERSEDES = "supersedes"
CONFLICT_PENDING = "conflictPending"
CONFLICT_WITH = "conflictWith"
CONFIRMATIONS = "confirmations"

Kind = Literal["duplicate", "supersede", "pending", "store"]
_JUDGED = {"duplicate": "same", "updates": "changed", "contradicts": "conflict", "unrelated": "none"}


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


def prepare(incoming: MemoryEntry) -> None:
    """Parse the incoming fact (and cache its claim and its marked-change clauses): the tokenizer and the word
    and numeral lexicons it needs load here, outside the store's lock, so eight writers queued on the lock
    never wait out one another's library loading."""
    subjects.claim_of(incoming.content)
    marked_change.parts(incoming.content)


def live_neighbours(entries: Iterable[MemoryEntry], incoming: MemoryEntry) -> list[MemoryEntry]:
    live = [e for e in entries if e.id != incoming.id and not is_superseded(e) and same_domain(e, incoming)]
    return neighbours(live, incoming)


def decide(
    entries: Iterable[MemoryEntry],
    incoming: MemoryEntry,
    detector: ConflictDetector,
    allow_conflict: bool,
    verdicts: Mapping[str, Verdict] | None = None,
) -> Decision:
    entries = list(entries)
    live = [e for e in entries if e.id != incoming.id and not is_superseded(e) and same_domain(e, incoming)]
    duplicate = next((e for e in live if is_duplicate(e, incoming)), None)
    if duplicate is not None:
        return Decision("duplicate", (duplicate,))
    if allow_conflict:
        return Decision("store")
    by_id = {e.id: e for e in entries}  # the id map the history readings below share
    topics = _denial_topics(live, by_id)
    pool = neighbours(live, incoming)
    pool += [e for e in live if e.id in topics and e not in pool and neighbours([topics[e.id]], incoming)]
    returned = returned_from(by_id, live, incoming)
    pool += [e for e in live if e.id == returned and e not in pool]
    related = relate_all(
        pool,
        incoming,
        verdicts or {},
        {i: e.content for i, e in topics.items()},
        returned,
        _earlier(pool, by_id),
    )
    # walked only when the new fact denies a name: a plain write stays off the O(N) path at any store size
    truths = (e for e in live if is_truth(e) and _JUDGED.get(_kind((verdicts or {}).get(e.id)), "") != "none")
    weighed = weigh(((e.id, e.content) for e in truths), incoming.content)
    # a correction read from one pair that only names the value defers to what the scope's truths say of it
    related = [r for r in related if not (r[1] == "corrects" and r[0].id in _overruled(weighed))]
    changed = _unambiguous(
        [(e, certain) for e, kind, certain in related if kind in ("changed", "corrects")], incoming.content
    )
    same = [e for e, kind, _ in related if kind == "same"]
    if changed:
        return Decision("supersede", _oldest_first([*changed, *same]))
    if same:
        return Decision("duplicate", (same[0],))
    if weighed.retired:
        return Decision("supersede", _oldest_first(e for e in live if e.id in weighed.retired))
    conflicts = [
        e
        for e, kind, certain in related
        if kind == "conflict" or (not certain and kind == "none" and detector.is_conflict(e, incoming))
    ]
    if conflicts:
        return Decision("pending", _oldest_first(conflicts))
    return Decision("store")


def _overruled(weighed: Weighed) -> frozenset[str]:
    return weighed.holders - frozenset(weighed.retired)


def _kind(verdict: Verdict | None) -> str:
    return verdict.kind if verdict is not None else ""


def _denial_topics(live: list[MemoryEntry], by_id: Mapping[str, MemoryEntry]) -> dict[str, MemoryEntry]:
    """The fact each live subjectless denial retired (`We got rid of Kafka` after `the queue is Kafka`): the
    denial is about that fact's subject, so a later value for the subject replaces the denial too."""
    topics: dict[str, MemoryEntry] = {}
    for entry in live:
        retired = [by_id[i] for i in _ids(entry.metadata.get(SUPERSEDES, "")) if i in by_id]
        if retired and subjectless_denial(entry.content):
            topics[entry.id] = retired[-1]
    return topics


def _earlier(pool: Iterable[MemoryEntry], by_id: Mapping[str, MemoryEntry]) -> dict[str, tuple[str, ...]]:
    """The texts each candidate superseded, back to the first: how the store has named its subject before."""
    found: dict[str, tuple[str, ...]] = {}
    for entry in pool:
        texts: list[str] = []
        seen = {entry.id}
        todo = _ids(entry.metadata.get(SUPERSEDES, ""))
        while todo:
            older = by_id.get(todo.pop())
            if older is None or older.id in seen:
                continue
            seen.add(older.id)
            texts.append(older.content)
            todo.extend(_ids(older.metadata.get(SUPERSEDES, "")))
        if texts:
            found[entry.id] = tuple(texts)
    return found


def returned_from(
    by_id: Mapping[str, MemoryEntry], live: Iterable[MemoryEntry], incoming: MemoryEntry
) -> str | None:
    """The id of the live truth `incoming` returns from to an earlier value (`returns.py`): the end of the
    supersession chain of a superseded fact that held the value."""
    if not returns.returning(incoming.content) or denial_only(incoming.content):
        return None  # a fact that only says a value is over goes back to nothing (`the #ci room is not used anymore`)
    live_ids = {e.id for e in live}
    history = [
        e for e in by_id.values() if is_superseded(e) and e.id != incoming.id and same_domain(e, incoming)
    ]
    found: list[tuple[str, str, str]] = []
    for earlier in neighbours(history, incoming):
        end = _chain_end(by_id, earlier)
        if end is not None and end.id in live_ids:
            found.append((earlier.content, end.content, end.id))
    return returns.pick(found, incoming.content)


def _chain_end(by_id: Mapping[str, MemoryEntry], entry: MemoryEntry) -> MemoryEntry | None:
    seen = {entry.id}
    current = entry
    while is_superseded(current):
        newer = by_id.get(current.metadata.get(SUPERSEDED_BY, "").strip())
        if newer is None or newer.id in seen:
            return None
        seen.add(newer.id)
        current = newer
    return current


def relate_all(
    candidates: Iterable[MemoryEntry],
    incoming: MemoryEntry,
    verdicts: Mapping[str, Verdict],
    topics: Mapping[str, str] | None = None,
    returned: str | None = None,
    earlier: Mapping[str, tuple[str, ...]] | None = None,
) -> list[tuple[MemoryEntry, str, bool]]:
    """(candidate, relation, certain): the parser's relation, or the judge's verdict where the parser is unsure.
    `topics`: for a subjectless denial, the text of the fact it retired (`_denial_topics`); `returned`: the
    truth the new fact returns from to an earlier value (`returned_from`); `earlier`: the texts each candidate
    superseded (`_earlier`)."""
    found: list[tuple[MemoryEntry, str, bool]] = []
    pool = list(candidates)
    relations = [_related(entry, incoming.content, topics or {}, earlier or {}) for entry in pool]
    # every candidate competes (a tie with one the parser placed is a tie too); only an unplaced one may win
    marked = marked_change.pick([entry.content for entry in pool], incoming.content)
    hedged = bool(pool) and marked_change.hedged(incoming.content)
    supposed = bool(pool) and states_nothing(incoming.content)
    asked = hedged and marked_change.asked(incoming.content)
    denying = bool(pool) and denial_only(incoming.content)
    widening = bool(pool) and widens(incoming.content)
    for i, (entry, local) in enumerate(zip(pool, relations, strict=True)):
        back = local.kind == "none" and entry.id == returned
        if local.apart:
            pass  # the parser placed the two apart: no rule that reads words, not grammar, joins them again
        elif local.kind == "none" and _corrects(entry.content, incoming.content):
            local = subjects.Relation("changed")  # the parser could not place it; the value slots can
        elif local.kind == "none" and ((i == marked and not denying) or back):
            # a marked change in a frame the parser does not read (a denial's other value is no new value), or a
            # return to a value this truth's chain moved away from
            local = subjects.Relation("changed")
        # a return weighed its own clause's hedges: `B moved to another team; A does it again`
        if hedged and local.kind in ("changed", "corrects") and (asked or not (local.certain or back)):
            # a question, a maybe or an added fact replaces nothing; a question or a plain `also` not even
            # where the parser read a value for sure (`Should … be capped at 8 now?`)
            local = subjects.Relation("none")
        if supposed and local.kind != "none":
            local = subjects.Relation("none")  # nor confirms anything, even when its reading is sure
        if widening and local.kind in ("changed", "corrects"):
            local = subjects.Relation("none")  # `not only A but also B`, `A is no longer the only …` adds B
        verdict = verdicts.get(entry.id)
        if verdict is not None and not local.certain:
            found.append((entry, _JUDGED[verdict.kind], True))
        else:
            found.append((entry, local.kind, local.certain))
    return found


def _corrects(stored: str, incoming: str) -> bool:
    """The value slots say the stored truth is changed or over, and no denial in it is about another subject."""
    return corrects_stored(stored, incoming) and not denies_for_another(stored, incoming)


def _related(
    entry: MemoryEntry, incoming: str, topics: Mapping[str, str], earlier: Mapping[str, tuple[str, ...]]
) -> subjects.Relation:
    local = relation(entry.content, incoming)
    if local.narrower and any(_names_as(text, incoming) for text in earlier.get(entry.id, ())):
        local = relation(entry.content, incoming, narrowing=False)  # a longer name the truth's history used
    if local.apart:
        return local  # another slot of the subject: no retired fact's subject makes it a change
    topic = topics.get(entry.id)
    if local.kind != "none" or topic is None:
        return local
    through = relation(topic, incoming)  # any value stated for the retired fact's subject ends the denial
    return subjects.Relation("changed", through.certain) if through.kind in ("changed", "same") else local


def _names_as(older: str, incoming: str) -> bool:
    """An earlier version of a truth named its subject the way the new fact does (not narrower than it)."""
    return relation(older, incoming).kind != "none" or same_subject(older, incoming)


def _unambiguous(changed: list[tuple[MemoryEntry, bool]], incoming: str) -> list[MemoryEntry]:
    """Certain matches win; unsure ones only while they all name one subject. A denial that meets facts on
    several subjects is about those whose every subject word it names (`We quit signing commits with A` is
    not about `The Draco project signs commits with A`)."""
    certain = [e for e, sure in changed if sure]
    if certain:
        keys = {_subject_key(e) for e in certain}
        return [e for e, sure in changed if sure or _subject_key(e) in keys]
    if len({_subject_key(e) for e, _ in changed}) > 1 and denial_only(incoming):
        changed = [(e, sure) for e, sure in changed if _named_in(e, incoming)]
    if len({_subject_key(e) for e, _ in changed}) > 1:
        return []
    return [e for e, _ in changed]


def _named_in(entry: MemoryEntry, incoming: str) -> bool:
    found = subjects.subject_of(entry.content)
    return found is not None and subject_named_in(found.latin, found.han, found.owner, incoming)


def _subject_key(entry: MemoryEntry) -> str:
    found = subjects.subject_of(entry.content)
    return f"{found.owner}|{found.render()}" if found is not None else f"?{entry.id}"


def _oldest_first(entries: Iterable[MemoryEntry]) -> tuple[MemoryEntry, ...]:
    unique = {e.id: e for e in entries}
    return tuple(sorted(unique.values(), key=lambda e: e.timestamp))


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
