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
from collections.abc import Collection, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from paicli.memory.subject import claim_of
from paicli.memory.subject_words import EN_DETERMINERS, EN_OWNER_PREPOSITIONS, GENERIC, ZH_ATTRIBUTIVE

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from paicli.memory.vector import IntArray

    BoolArray = npt.NDArray[np.bool_]

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
        # the parser's own cache keeps whole claims; only the subject is needed here
        readings = claim_of.__wrapped__(text).readings
        subject = readings[0].subject if readings else None
        found = ("", "") if subject is None else (_owner_words(subject.owner), subject.render())
        _OWNERS[text] = found
    return found


def normalized_query(query: str) -> str:
    return _SPACES.sub("", query.lower())


def named(owner: str, query: str) -> bool:
    """Whether the question (from `normalized_query`) names the owner."""
    return not owner or owner in query


def demote_elsewhere(
    contents: Sequence[str | None], ordered: IntArray, own: BoolArray, query: str, terms: Collection[str]
) -> IntArray:
    """The permutation of `ordered` (rows, best first) that moves each memory about another owner right after
    the last of this project's memories with no such owner that holds a query term of its subject (one subject
    holds the other, the claim parser's rule for subjects of different length): `Orion-37 项目的发布审批人是刘洋`
    goes after this project's `审批人是王强` however many more of the question's words it shares, and stays
    before every other memory. Only the memories before this project's last match are read (none after it can
    move), so a query over a big store parses few texts."""
    import numpy as np

    wanted = normalized_query(query)
    rows = ordered.tolist()
    mine = own.tolist()
    reach = max((p for p, row in enumerate(rows) if mine[p] and _holds(contents[row], terms)), default=-1)
    last: dict[str, int] = {}
    elsewhere: list[tuple[int, list[str]]] = []
    for position in range(reach + 1):
        text = contents[rows[position]] or ""
        owner, subject = qualifier(text)
        if not named(owner, wanted):
            held = [term for term in terms if term in subject]
            if held:
                elsewhere.append((position, held))
        elif mine[position]:
            lowered = text.lower()
            last.update((term, position) for term in terms if term in lowered)
    places = np.arange(len(rows), dtype=np.float64)
    for position, held in elsewhere:
        behind = max((last.get(term, -1) for term in held), default=-1)
        if behind > position:
            places[position] = behind + 0.5
    return np.argsort(places, kind="stable")


def _holds(text: str | None, terms: Collection[str]) -> bool:
    lowered = (text or "").lower()
    return any(term in lowered for term in terms)
