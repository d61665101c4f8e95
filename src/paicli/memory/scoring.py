"""How retrieval ranks the rows of an `EntryTable` for a query (pure: arrays in, an order out).

Per row: the reference's keyword score (spec 6.1: the whole query inside the text -> 1.0, else the share of
query terms found in it, times the time decay; x 1.2), plus, with the local vector on, the cosine and a BM25
tie-breaker, times a boost per confirmation. Issue 37's rules:

- function words are not query terms (`stopwords.py`), so `what is the` or `是什么` match nothing;
- with the local index, the keyword share of this project's memories is the share of the question they hold
  (`coverage.py`): a term counts when the memory has one of its forms (the word, an identifier part, its stem,
  its concept: `user` in `UserRepository`, `expiry` in `TTL`), and terms naming one concept count once; other
  projects' memories keep the reference's share;
- a match that holds no term of the query (the whole query is not in it and no query term is one of its
  words: `tell` inside `IntelliJ`, `123` inside `1234`) counts only by meaning: it needs the cosine floor that
  matches without any keyword hit need, and follows every match that shares a term;
- on a tie of the reference's own score, this project's entries come before global ones (facts another
  project saved with `--global`); the local scores order what is still tied;
- on a tie of the share of the question, this project's memories about the project come before its memories
  about a part of it the question does not name (`网关的…`), and those before other projects' global facts;
- a match whose subject carries an owner the question does not name (`支付服务的发布审批人`, `the timeout of the
  gateway`) gives its place to this project's memory on that subject (`ranking.py`), however many more of the
  question's words it shares;
- a query term that a copy holds as a value (an ASCII word in a sentence with words besides its values) counts
  `VALUE_WEIGHT`: a copy is another project's memory, or this project's sentence said of a component (its core key,
  the copy key without a leading owner, is one of this project's statements); a swapped-in value that happens to
  be the question's word is weak evidence that the copy answers here;
- a truth that superseded others holds the query terms, features and best cosine of its chain
  (`retriever_lineage.py`): `Upgraded to 1.7 now` is found by `our infrastructure code pins Terraform 1.5`;
- copies made elsewhere follow both classes: another project's memory with the copy key of one of this project's
  matches (this project's statement answers here), and every copy after the first of a key this project does not
  state (`lookalikes.copy_keys`, kept by the index, so no text is read per query).

Order: matches that share a term (by keyword score, then scope and owner, then total score; then owned memories
moved after this project's memory on their subject), then the rest (by scope, then score), then the copies made
elsewhere; equal keys keep row order.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING

from paicli.memory import coverage, ranking, retriever_lineage
from paicli.memory.arrays import member
from paicli.memory.stopwords import content_terms
from paicli.memory.table import EntryTable
from paicli.memory.tokenize import tokenize

if TYPE_CHECKING:
    from paicli.memory.ranking import BoolArray
    from paicli.memory.vector import FloatArray, IntArray, VectorIndex

SCORE_FACTOR = 1.2
VECTOR_WEIGHT = 0.5
VECTOR_FLOOR = 0.15
BM25_WEIGHT = (
    0.02  # of the best BM25 score among the candidates: a tie-breaker (evals/retrieval: more costs MRR)
)
VALUE_WEIGHT = 0.5  # of a query term found only as a value of a memory said elsewhere or of a component
CONFIRMATION_BOOST = 0.1  # per confirmation the user gave (duplicate save, /memory verify, re-statement)
MAX_CONFIRMATIONS = 5


@dataclass(frozen=True)
class Scored:
    rows: IntArray  # best first
    scores: FloatArray
    keyword: FloatArray  # the reference's score part (0 for a match that shares no term)
    classes: tuple[
        int, int
    ]  # ends of the classes: matches that share a term, matches by meaning (copies follow)


def _epoch(moment: datetime) -> float:
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    return aware.timestamp()


def _keyword_hits(
    table: EntryTable, query_lower: str, terms: set[str]
) -> tuple[IntArray, IntArray, dict[str, IntArray]]:
    """Per row: whether the whole query is in it, and how many query terms are; and each term's rows."""
    import numpy as np

    count = len(table.ids)
    full = np.zeros(count, dtype=np.int64)
    if query_lower.strip():
        full[table.rows_containing(query_lower)] = 1
    matched = np.zeros(count, dtype=np.int64)
    found: dict[str, IntArray] = {}
    for term in terms:
        found[term] = table.rows_containing(term)
        matched[found[term]] += 1
    return full, matched, found


def score(
    table: EntryTable,
    rows: IntArray,
    query: str,
    now: datetime,
    project_key: str | None,
    index: VectorIndex | None = None,
    positions: IntArray | None = None,
    lineage: IntArray | None = None,
) -> Scored:
    """Every row of `rows` with a score > 0, best first. `index` and `positions` (row -> index position,
    -1 when absent) switch on the local vector; without them the order is the reference's. `lineage` (row ->
    the row of the truth that replaced it, `retriever_lineage.heirs`) lets a truth hold its predecessors' words."""
    import numpy as np

    if not len(rows):  # nothing to rank: the query is not even segmented (jieba stays unloaded)
        return Scored(rows, np.zeros(0), np.zeros(0), (0, 0))
    query_lower = query.lower()
    terms = content_terms(tokenize(query_lower))
    full_all, matched_all, term_rows = _keyword_hits(table, query_lower, terms)
    if lineage is not None:
        lineage = retriever_lineage.for_query(lineage, full_all, term_rows, table)
    if lineage is not None:
        full_all, matched_all, term_rows = retriever_lineage.inherit_terms(
            lineage, full_all, matched_all, term_rows
        )
    full = full_all[rows] > 0
    ages = np.maximum(0.0, (_epoch(now) - table.stamp[rows]) / 3600.0)
    decay = np.maximum(0.5, 1.0 - ages / 24.0)
    # the reference's share of query terms found in the text; with the index, the share of the question held
    held = matched_all[rows] / len(terms) if terms else np.zeros(len(rows))
    cosine = np.zeros(len(rows), dtype=np.float64)
    bm25 = np.zeros(len(rows), dtype=np.float64)
    keys = (np.zeros(len(rows), dtype=np.int64), np.zeros(len(rows), dtype=np.int64))  # lookalikes.copy_keys
    if index is not None and positions is not None:
        place = positions[rows]
        known = place >= 0
        similarities, forms = index.search(query, coverage.groups(terms))
        if lineage is not None:
            similarities, forms = retriever_lineage.inherit_positions(lineage, positions, similarities, forms)
        bm25_all, holds_all = index.bm25(terms)
        cosine[known] = similarities[place[known]]
        bm25[known] = bm25_all[place[known]]
        holds = np.zeros(len(rows), dtype=bool)
        holds[known] = holds_all[place[known]]
        # this project's memories (every memory when no project is asked about): the share of the question they
        # hold in any form; another project's: the reference's share, once a query term is one of its words
        # (another project's fact holds the question only in its words, or every `X uses Y` and every copy in
        # the other language would tie with this project's own statement)
        code = table.projects.get(project_key) if project_key else None
        home = table.project[rows] == code if code is not None else np.full(len(rows), not project_key)
        mine = coverage.covered(terms, forms, term_rows, rows, place, known, len(table.ids))
        held = np.where(home, mine, np.where(holds, held, 0.0))
        keys = _keys(index, place, known)
        weak = _value_slots(terms, term_rows, rows, home, keys, len(table.ids))
        if weak is not None:
            units = len(coverage.units(terms))
            penalty = weak * (1.0 - VALUE_WEIGHT) / np.where(home, units, len(terms))
            held = np.maximum(held - penalty, held * VALUE_WEIGHT)
    share = held * decay
    keyword = np.where(full, 1.0, share) * SCORE_FACTOR
    term_match = keyword > 0
    meaning = ~term_match & (cosine >= VECTOR_FLOOR)
    keep = np.flatnonzero(term_match | meaning)
    if not len(keep):
        return Scored(rows[:0], cosine[:0], cosine[:0], (0, 0))
    vector = cosine[keep] * decay[keep] * VECTOR_WEIGHT * SCORE_FACTOR
    best = float(bm25[keep].max())
    if best > 0:
        vector += bm25[keep] / best * decay[keep] * BM25_WEIGHT * SCORE_FACTOR
    boost = 1.0 + CONFIRMATION_BOOST * np.minimum(table.confirmed[rows[keep]], MAX_CONFIRMATIONS)
    totals = (np.where(term_match[keep], keyword[keep], 0.0) + vector) * boost
    code = table.projects.get(project_key) if project_key else None
    own = (table.project[rows[keep]] == code) if code is not None else np.zeros(len(keep), dtype=bool)
    group = term_match[keep].astype(np.int64)
    tier = np.where(term_match[keep], np.round(keyword[keep], 9), 0.0)
    order = np.lexsort((-totals, -own.astype(np.int64), -tier, -group))
    sharing = int(term_match[keep].sum())
    classes = (sharing, len(keep))
    if index is not None:  # the reference's order stays as it is without the local vector
        head = order[:sharing]
        read = _reader(table.contents, index, positions)
        head = head[ranking.home_first(table.contents, rows[keep][head], tier[head], own[head], query, read)]
        ordered = rows[keep][head]
        holding = {term: _mask(len(table.ids), found)[ordered] for term, found in term_rows.items()}
        place = ranking.demote_elsewhere(table.contents, ordered, own[head], query, holding, read)
        order[:sharing] = head[place]
        # with no project asked about, every memory is the user's own: none is a copy of another
        owners: BoolArray = own if project_key else np.ones(len(keep), dtype=bool)
        order, classes = _copies_last(order, sharing, owners, keys[0][keep])
    reported = np.where(term_match[keep], keyword[keep], 0.0)
    return Scored(rows[keep][order], totals[order], reported[order], classes)


def _value_slots(
    terms: set[str],
    term_rows: dict[str, IntArray],
    rows: IntArray,
    home: BoolArray,
    keys: tuple[IntArray, IntArray],
    count: int,
) -> FloatArray | None:
    """Per row of `rows`: how many ASCII query terms it holds as a value (an ASCII word in a sentence with
    words besides its values: a name, a version, an identifier), counted only for copies: another project's
    memories, and this project's statements said of a component (`网关的` + a sentence this project states
    without an owner: the same core key). A copy with another value swapped in holds the question's word there;
    that is weak evidence that it answers here. None when no row has any."""
    import numpy as np

    values = [term for term in terms if term.isascii()]
    if not values:
        return None
    copy, core = keys
    keyed = copy != 0
    stated = copy[home & keyed & (core == copy)]
    component = home & (core != copy) & (core != 0) & member(core, stated)
    said = keyed & (~home | component)
    if not said.any():
        return None
    hits = np.zeros(len(rows), dtype=np.float64)
    for term in values:
        hits += _mask(count, term_rows[term])[rows]
    hits[~said] = 0.0
    return hits if hits.any() else None


def _keys(index: VectorIndex, place: IntArray, known: BoolArray) -> tuple[IntArray, IntArray]:
    """Copy and core keys (`lookalikes.copy_keys`) of rows at index positions `place` (0 where not `known`)."""
    import numpy as np

    copy, core = np.zeros(len(place), dtype=np.int64), np.zeros(len(place), dtype=np.int64)
    copies, cores = index.key_arrays()
    copy[known], core[known] = copies[place[known]], cores[place[known]]
    return copy, core


def _copies_last(
    order: IntArray, sharing: int, own: BoolArray, keys: IntArray
) -> tuple[IntArray, tuple[int, int]]:
    """`order` with the copies made elsewhere moved after both classes, and the classes' new ends. A copy is a
    memory of another project (a global fact) that says the same sentence as one of this project's matches
    with other values (the same copy key): this project's statement answers here, whatever the copy's values
    share with the question; or, where this project says nothing of that shape, any such copy after the best
    one. This project's own memories are never copies of each other (two facts of one shape are two facts)."""
    import numpy as np

    ordered = keys[order]
    mine = own[order]
    keyed = ordered != 0
    copy = keyed & ~mine & member(ordered, ordered[keyed & mine])
    single = np.flatnonzero(keyed & ~mine & ~copy)
    if len(single):
        _, first = np.unique(ordered[single], return_index=True)
        copy[single] = True
        copy[single[first]] = False
    if not copy.any():
        return order, (sharing, len(order))
    term, meaning = order[:sharing][~copy[:sharing]], order[sharing:][~copy[sharing:]]
    return np.concatenate([term, meaning, order[copy]]), (len(term), len(term) + len(meaning))


def _reader(
    contents: list[str], index: VectorIndex, positions: IntArray | None
) -> Callable[[int], tuple[str, str]]:
    """A row's owner reading: the one the index keeps for its text, else parsed now."""

    def read(row: int) -> tuple[str, str]:
        text = contents[row]
        place = int(positions[row]) if positions is not None else -1
        if place >= 0 and index.holds_text(place, text):
            return index.readings.get(place, text)
        return ranking.qualifier(text)

    return read


def _mask(count: int, rows: IntArray) -> BoolArray:
    import numpy as np

    mask = np.zeros(count, dtype=bool)
    mask[rows] = True
    return mask
