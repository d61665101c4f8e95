"""Specificity: a memory about something else ranks after the memories about what the question asks (issue 37).

A long-lived store holds the same statement said of many owners: `支付服务的发布审批人是李娜`, `Orion-37 项目那边
的代码审查人是刘洋`, `the timeout of the gateway is 60 s`, `For the Vega project, the build tool is Bazel`. Such a
memory often shares more words with a question than this project's own fact does (`release approver` against a
fact that says only `the approver`), so term overlap alone ranks it first. What tells them apart is grammar: its
subject carries an owner qualifier, attached by the closed class of attributive and possessive markers the claim
parser uses (`X 的 S`, `X 那边 S`, `X's S`, `S of X`, `for X, S`), and the question does not name that owner.

`qualifier(text)` gives the owner of the subject of a memory's main statement, as the claim parser reads it
(`subject.py`, used as a library); an owner made of generic words (`我们团队的`, `本项目的`, `our team's`) is none.
`demote_elsewhere` moves a memory whose owner the question does not name right after the last of this project's
memories without one that holds a query term of its subject: it gives its place to what the question asks about
and to nothing else. Another project's global fact takes no one's place: a fact with no owner saved elsewhere is
no better an answer here than this project's fact about one of its components. The markers are grammar, not
phrasings: no component or project name is listed.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from paicli.memory.claim_tokens import fold
from paicli.memory.features import features, term_forms
from paicli.memory.subject import claim_of
from paicli.memory.subject_words import EN_DETERMINERS, EN_OWNER_PREPOSITIONS, GENERIC, ZH_ATTRIBUTIVE

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]
    BoolArray = npt.NDArray[np.bool_]
    FloatArray = npt.NDArray[np.float64]

HOME_SCAN = 200  # places of a ranking whose tie blocks are ordered by owner (`home_first`)
OWNER_CACHE = 65_536  # texts whose owner was parsed; the dict refers to texts the store keeps anyway
# Any marker the parser reads an owner from: a text without one has no owner and is not parsed at all.
_MARKERS = re.compile(
    "|".join(
        [
            *map(re.escape, sorted(ZH_ATTRIBUTIVE, key=len, reverse=True)),
            r"'s\b",
            *(rf"\b{preposition}\b" for preposition in sorted(EN_OWNER_PREPOSITIONS)),
        ]
    )
)
_SPACES = re.compile(r"\s+")
_HAN = re.compile(r"[\u3400-\u9fff]")
_GENERIC_HAN = sorted((word for word in GENERIC if _HAN.search(word)), key=len, reverse=True)
_OWNERS: dict[str, tuple[str, str]] = {}  # text -> (owner, the subject's words)


@lru_cache(maxsize=4096)
def _owner_words(owner: str) -> str:
    """The owner, or "" when it is made of generic words only (`我们团队`, `本项目`, `our team`: the speaker's
    own project is not another owner)."""
    words = [w for w in _SPACES.split(owner.strip()) if w and w not in GENERIC and w not in EN_DETERMINERS]
    rest = "".join(words)
    if _HAN.search(rest):
        for generic in _GENERIC_HAN:
            rest = rest.replace(generic, "")
    return "".join(words) if rest.strip() else ""


def qualifier(text: str) -> tuple[str, str]:
    """(owner, subject) of the text's main statement, as the claim parser reads them: the owner qualifier of its
    subject (lower-cased, spaces dropped; "" when it carries none) and the subject's own words. ("", "") for a
    text without any marker an owner is attached by: such a text is not parsed at all. Cached, since the same
    memories come back query after query."""
    if not _MARKERS.search(text.lower()):
        return "", ""
    found = _OWNERS.get(text)
    if found is None:
        if len(_OWNERS) >= OWNER_CACHE:
            _OWNERS.clear()
        found = _OWNERS[text] = _parse(text)
    return found


def read_once(text: str) -> tuple[str, str]:
    """`qualifier` for a text read once (indexing a memory: the index keeps the result)."""
    return _parse(text) if _MARKERS.search(text.lower()) else ("", "")


def _parse(text: str) -> tuple[str, str]:
    # the parser's own cache keeps whole claims; only the subject is needed here
    readings = claim_of.__wrapped__(text).readings
    subject = readings[0].subject if readings else None
    return ("", "") if subject is None else (_owner_words(subject.owner), subject.render())


def normalized_query(query: str) -> str:
    return _SPACES.sub("", query.lower())


def named(owner: str, query: str) -> bool:
    """Whether the question (from `normalized_query`) names the owner."""
    return not owner or owner in query


def demote_elsewhere(
    contents: Sequence[str | None],
    ordered: IntArray,
    own: BoolArray,
    query: str,
    holding: Mapping[str, BoolArray],
    read: Callable[[int], tuple[str, str]] | None = None,
) -> IntArray:
    """The permutation of `ordered` (rows, best first) that moves each memory about another owner right after
    the last of this project's memories with no such owner that holds a query term of its subject (one subject
    holds the other, the claim parser's rule for subjects of different length): `Orion-37 项目的发布审批人是刘洋`
    goes after this project's `审批人是王强` however many more of the question's words it shares, and stays
    before every other memory. `holding[term]` says which of `ordered` hold the query term in their lower-cased
    text (the keyword score's own lookups); `read(row)` gives a row's `qualifier` (saved ones: `readings.py`).

    Parsing a memory (the claim parser segments it) is the cost, so a text is parsed only when its owner can
    change the order (issue 49): this project's memories from the last one holding each term backwards, until
    one without another owner is found; and a memory before such a one whose characters could spell that term
    at all (a subject is made of the text's own folded characters, so a term the text cannot spell is not in
    its subject). Nothing after this project's last match can move."""
    import numpy as np

    rows = ordered.tolist()
    count = len(rows)
    places = np.arange(count, dtype=np.float64)
    if not count or not holding:
        return np.argsort(places, kind="stable")
    wanted = normalized_query(query)
    owned = {term: np.flatnonzero(own & held).tolist() for term, held in holding.items()}
    known: dict[int, tuple[str, str]] = {}

    def reading(position: int) -> tuple[str, str]:
        found = known.get(position)
        if found is None:
            row = rows[position]
            found = known[position] = read(row) if read is not None else qualifier(contents[row] or "")
        return found

    last: dict[str, int] = {}
    for term, positions in owned.items():
        for position in reversed(positions):
            if named(reading(position)[0], wanted):
                last[term] = position
                break
    reach = max((positions[-1] for positions in owned.values() if positions), default=-1)
    bound = max(last.values(), default=-1)
    concepts = {term: bool(_concepts(term)) for term in last}
    for position in range(min(bound, reach + 1)):
        text = contents[rows[position]] or ""
        if not _MARKERS.search(text.lower()):
            continue  # no owner: it keeps its place (and it counts above when it is this project's)
        spelled = _spellable(text, last, position)
        # a term the text cannot spell may still be its subject's in the other language (`connection pool size`
        # for 连接池): the concepts of the subject's words then say so
        crossed = [term for term, at in last.items() if at > position and concepts[term]]
        if not spelled and not crossed:
            continue
        owner, subject = reading(position)
        if named(owner, wanted):
            continue
        held = [term for term in {*spelled, *crossed} if subject_holds(subject, term)]
        behind = max((last[term] for term in held), default=-1)
        if behind > position:
            places[position] = behind + 0.5
    return np.argsort(places, kind="stable")


def home_first(
    contents: Sequence[str | None],
    ordered: IntArray,
    tier: FloatArray,
    own: BoolArray,
    query: str,
    read: Callable[[int], tuple[str, str]],
    scan: int = HOME_SCAN,
) -> IntArray:
    """The permutation of `ordered` (rows, best first, in blocks of equal `tier`, this project's first in each)
    that puts, within each block, this project's memories whose subject carries no owner the question does not
    name before its memories about such an owner (`网关的回滚用 …` when the question never says 网关): on a tie of
    the share of the question, a statement about the project comes before one about a part of it. Only blocks
    starting in the first `scan` places are looked at (a big store's long tail cannot reach the memory block),
    and a text is parsed only when it holds an owner marker."""
    import numpy as np

    count = len(ordered)
    places = np.arange(count, dtype=np.float64)
    wanted = normalized_query(query)
    rows = ordered.tolist()
    start = 0
    while start < min(count, scan):
        stop = start + 1
        while stop < count and tier[stop] == tier[start]:
            stop += 1
        home = start
        while home < stop and own[home]:
            home += 1
        for position in range(start, home):
            text = contents[rows[position]] or ""
            if _MARKERS.search(text.lower()) and not named(read(rows[position])[0], wanted):
                # after this project's other memories of the block, before the block's other memories
                places[position] = home - 0.5 + (position - start) / (2.0 * (home - start + 1))
        start = stop
    return np.argsort(places, kind="stable")


def subject_holds(subject: str, term: str) -> bool:
    """Whether a memory's subject holds a query term: as its own characters, or through a concept its words name
    (`connection pool size` holds 连接池)."""
    return term in subject or bool(subject and _concepts(term) & _subject_concepts(subject))


def _concepts(term: str) -> frozenset[str]:
    return frozenset(form for form in term_forms(term) if form.startswith("c:"))


@lru_cache(maxsize=4096)
def _subject_concepts(subject: str) -> frozenset[str]:
    """The concepts a subject's words name (a big store repeats a few subjects in many copies: cached)."""
    return frozenset(form for form in features(subject) if form.startswith("c:"))


def _spellable(text: str, last: Mapping[str, int], position: int) -> list[str]:
    """The terms whose last holder comes after `position` and that `text` has every character of. A subject
    holds only the folded text's own characters (values and words cut from it, `端口号` read as `端口`), so a
    term missing one of them cannot be in it; an apostrophe's contractions (`isn't` -> `is not`) add letters,
    so such a text keeps every term."""
    later = [term for term, at in last.items() if at > position]
    if not later or "'" in text or "\u2019" in text:
        return later
    letters = set(fold(text))
    return [term for term in later if letters.issuperset(term)]
