"""A current truth is found by the words of the facts it replaced (issue 37).

A correction is often said in other words than the question: `Standup got moved to 10:15` after `The team standup
is at 9:30`, `Upgraded to Terraform 1.7 now` after `Our infrastructure code pins Terraform 1.5`. Once the write
path linked them (`supersededBy`), they are one chain on one subject, and the chain's words name that subject
better than its last line alone. So, for ranking only, the current truth holds every query term and feature any
of its predecessors holds, and its cosine is the best of the chain's; the predecessors themselves stay out of
the results (they are history). A truth with no predecessor, and a fact of another chain, gain nothing: a
question that shares no word with a chain still finds none of it.

`heirs` maps each superseded row to the row of the live truth at the end of its chain; the other functions fold
a per-row or per-position answer of the predecessors into that truth.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from paicli.memory.arrays import distinct, member
from paicli.memory.recall_block import MemoryEntryLike
from paicli.memory.table import SUPERSEDED_BY, EntryTable

if TYPE_CHECKING:
    from paicli.memory.ranking import BoolArray
    from paicli.memory.vector import FloatArray, IntArray

# query terms a chain's words are compared by (one bit each); a longer query compares its first
MAX_TERMS = 62
MAX_HOPS = 64  # a chain longer than this (or a loop in a hand-edited file) ends where it is


def heirs(table: EntryTable, entries: Mapping[str, MemoryEntryLike]) -> IntArray | None:
    """Per table row: the row of the live truth its chain of `supersededBy` links ends at, -1 for a row that is
    no predecessor (a truth, a pending conflict, a chain that ends at a deleted or pending fact). None when no
    row has an heir. Reads only the metadata of rows that are not truths."""
    import numpy as np

    count = len(table.ids)
    if not count:
        return None
    candidates = np.flatnonzero(table.alive[:count] & ~table.truth[:count]).tolist()
    if not candidates:
        return None
    heir = np.full(count, -1, dtype=np.int64)
    found = False
    for row in candidates:
        end = _end_of_chain(table, entries, table.ids[row])
        if end is not None:
            heir[row] = end
            found = True
    return heir if found else None


def _end_of_chain(table: EntryTable, entries: Mapping[str, MemoryEntryLike], start: str | None) -> int | None:
    current = start
    seen: set[str] = set()
    for _ in range(MAX_HOPS):
        entry = entries.get(current) if current is not None else None
        if entry is None:
            return None
        successor = str(entry.metadata.get(SUPERSEDED_BY, "")).strip()
        if not successor:
            row = table.row_of.get(entry.id)
            return row if current != start and row is not None and bool(table.truth[row]) else None
        if successor in seen:
            return None
        seen.add(successor)
        current = successor
    return None


def for_query(
    heir: IntArray, full: IntArray, term_rows: Mapping[str, IntArray], table: EntryTable
) -> IntArray | None:
    """`heir` for one question, without the chains whose words a newer fact of the same project says itself.

    A newer truth that holds every query term the chain's history would add to its end (`Cache backend is
    Redis` after the chain `We run Hazelcast as the cache backend` -> `Hazelcast is not in use anymore`) is the
    chain's continuation that the write path did not link; those words lead to it, so the chain's end keeps
    only its own. None when no chain is left."""
    import numpy as np

    count = len(heir)
    bits = np.zeros(count, dtype=np.int64)
    for number, rows in enumerate(term_rows.values()):
        if number == MAX_TERMS:
            break
        bits[rows] |= np.int64(1) << np.int64(number)
    bits[np.flatnonzero(full)] |= np.int64(-1) ^ (np.int64(-1) << np.int64(min(len(term_rows), MAX_TERMS)))
    before = np.flatnonzero((heir >= 0) & (bits != 0))
    if not len(before):
        return heir
    gained = np.zeros(count, dtype=np.int64)
    np.bitwise_or.at(gained, heir[before], bits[before])
    gained &= ~bits
    ends = np.flatnonzero(gained)
    live = table.alive[:count] & table.truth[:count]
    codes = table.project[:count].astype(np.int64) + 1  # GLOBAL (-1) -> 0
    blocked: list[IntArray] = []
    for mask in sorted(set(gained[ends].tolist())):
        holders = np.flatnonzero(live & ((bits & mask) == mask))
        if not len(holders):
            continue
        newest = np.full(int(codes.max()) + 1, -np.inf)
        np.maximum.at(newest, codes[holders], table.stamp[holders])
        mine = ends[gained[ends] == mask]
        blocked.append(mine[newest[codes[mine]] > table.stamp[mine]])
    if not blocked or not sum(len(b) for b in blocked):
        return heir
    kept = heir.copy()
    kept[member(heir, np.concatenate(blocked))] = -1
    return kept if (kept >= 0).any() else None


def inherit_terms(
    heir: IntArray, full: IntArray, matched: IntArray, term_rows: Mapping[str, IntArray]
) -> tuple[IntArray, IntArray, dict[str, IntArray]]:
    """`_keyword_hits` of scoring.py (whole query inside, terms held, rows per term; all per table row) with
    each truth holding what its predecessors hold. Only a term some predecessor holds costs anything."""
    import numpy as np

    grown = dict(term_rows)
    held = matched
    for term, rows in term_rows.items():
        later = heir[rows]
        later = later[later >= 0]
        if not len(later):
            continue
        holding = np.zeros(len(heir), dtype=bool)
        holding[rows] = True
        new = later[~holding[later]]  # truths that do not hold the term themselves
        if len(new):
            new = distinct(new)
            held = held.copy() if held is matched else held
            held[new] += 1
            grown[term] = np.concatenate([rows, new])
    later = heir[np.flatnonzero(full)]
    later = later[later >= 0]
    whole = full
    if len(later):
        whole = full.copy()
        whole[later] = 1
    return whole, held, grown


def inherit_positions(
    heir: IntArray,
    positions: IntArray,
    similarities: FloatArray,
    held: Sequence[BoolArray | None],
) -> tuple[FloatArray, list[BoolArray | None]]:
    """The index's answers (cosine per position, the positions holding each feature group) with each truth's
    position holding its predecessors' features and the best cosine of its chain."""
    import numpy as np

    before = np.flatnonzero(heir >= 0)
    source, target = positions[before], positions[heir[before]]
    known = (source >= 0) & (target >= 0)
    source, target = source[known], target[known]
    if not len(source):
        return similarities, list(held)
    best = similarities.copy()
    np.maximum.at(best, target, similarities[source])
    grown: list[BoolArray | None] = []
    for mark in held:
        if mark is None:
            grown.append(None)
            continue
        mark = mark.copy()
        mark[target[mark[source]]] = True
        grown.append(mark)
    return best, grown
