"""How much of a question a memory covers, for the keyword tier of retrieval with the local index (issue 37).

The reference counts the query terms found as substrings of a memory. In a big store that tier is coarse and
blind to wording: a copy of another fact with one query word as its value ties with the memory that answers in
other words, and `user` does not meet `UserRepository`. Here a term is held by a memory that has one of its forms
(the index's `term_forms`: the word, an identifier part, its stem, its concept), or, for a Han term, has it
anywhere in the text (Han words have no spaces to cut at). Terms that name one concept (`web frontend`) are one
unit of the question, so a memory that holds the concept does not count it twice. An ASCII term inside a longer
word (`tell` in `IntelliJ`, `123` in `1234`) is not held. (Weighing units by idf was tried: it lost recall on the
dev half at every size, since the copies a big store holds make every word about as common as any other.)
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import TYPE_CHECKING

from paicli.memory.features import term_forms

if TYPE_CHECKING:
    from paicli.memory.ranking import BoolArray
    from paicli.memory.vector import FloatArray, IntArray


def units(terms: Collection[str]) -> list[list[str]]:
    """The terms grouped by the concept they name (a term with none is a unit of its own), in a stable order."""
    grouped: dict[str, list[str]] = {}
    for term in sorted(terms):
        concepts = sorted(form for form in term_forms(term) if form.startswith("c:"))
        grouped.setdefault(concepts[0] if concepts else term, []).append(term)
    return list(grouped.values())


def groups(terms: Collection[str]) -> list[Collection[str]]:
    """The feature groups `VectorIndex.search` is asked for: each term's forms, unit by unit."""
    return [term_forms(term) for unit in units(terms) for term in unit]


def covered(
    terms: Collection[str],
    held: Sequence[BoolArray | None],
    term_rows: Mapping[str, IntArray],
    rows: IntArray,
    place: IntArray,
    known: BoolArray,
    count: int,
) -> FloatArray:
    """Per row of `rows` (whose index positions are `place`, valid where `known`): the share of the question's
    units it holds. `held` answers `groups(terms)` (index positions per group), `term_rows[term]` gives the table
    rows (of `count`) whose text contains it."""
    import numpy as np

    total = np.zeros(len(rows), dtype=np.float64)
    grouped = units(terms)
    answers = iter(held)
    for unit in grouped:
        mark = np.zeros(len(rows), dtype=bool)
        for term in unit:
            found = next(answers)
            if found is not None:
                mark[known] |= found[place[known]]
            if not term.isascii():
                inside = np.zeros(count, dtype=bool)
                inside[term_rows[term]] = True
                mark |= inside[rows]
        total += mark
    return total / len(grouped) if grouped else total
