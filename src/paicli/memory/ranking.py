"""Specificity: a memory about something else ranks after the memories about what the question asks (issue 37).

A long-lived store holds the same statement said of many owners: `支付服务的发布审批人是李娜`, `Orion-37 项目那边
的代码审查人是刘洋`, `the timeout of the gateway is 60 s`, `For the Vega project, the build tool is Bazel`. Such a
memory often shares more words with a question than this project's own fact does (`release approver` against a
fact that says only `the approver`), so term overlap alone ranks it first. What tells them apart is grammar: its
subject carries an owner qualifier, attached by the closed class of attributive and possessive markers the claim
parser uses (`X 的 S`, `X 那边 S`, `X's S`, `S of X`, `for X, S`), and the question does not name that owner.

`qualifier(text)` reads the owner qualifier of a memory's opening statement (before its predicate), if any;
`about(...)` is true for a memory whose qualifier is absent, generic (`我们的`, `本项目的`, `our`) or named by the
question. The retriever ranks memories that are about the question before those about something else, within
each class of match (scoring.py). The markers are grammar, not phrasings: no component or project name is listed.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from paicli.memory.subject_words import (
    EN_BE,
    EN_DETERMINERS,
    EN_LINKING,
    EN_OWNER_PREPOSITIONS,
    GENERIC,
    ZH_ATTRIBUTIVE,
    ZH_COPULAS,
)

if TYPE_CHECKING:
    from paicli.memory.vector import IntArray

    import numpy as np
    import numpy.typing as npt

    BoolArray = npt.NDArray[np.bool_]

MAX_QUALIFIER = 24  # characters of a Chinese owner (an English one: words up to twice that): a name, not a clause
_CLAUSE_END = "，,。；;：:！!？?\n"
_VERBS = (EN_BE | EN_LINKING) - {"="}
_MARKERS = tuple(sorted(ZH_ATTRIBUTIVE, key=len, reverse=True))
_MARKER = r"(?:" + "|".join(map(re.escape, _MARKERS)) + r")"
_ATTRIBUTIVE = re.compile(
    rf"\s*(?P<owner>[^{_CLAUSE_END}是]{{1,{MAX_QUALIFIER}}}?)\s*{_MARKER}\s*(?=[^\s{_CLAUSE_END}是])"
)
_FRONTED = re.compile(rf"\s*(?:{'|'.join(sorted(EN_OWNER_PREPOSITIONS))})\s+(?P<owner>[^{_CLAUSE_END}]{{1,{2 * MAX_QUALIFIER}}}?)\s*,")
_FRONT_PREFIXES = tuple(f"{p} " for p in sorted(EN_OWNER_PREPOSITIONS))
_ANY_MARKER = re.compile("|".join(map(re.escape, _MARKERS)))
_ENGLISH_HINT = re.compile(r"'s\s|\s(?:" + "|".join(sorted(EN_OWNER_PREPOSITIONS)) + r")\s")
_WORD = re.compile(r"[^\s,.;:!?，。；：！？]+")
_SPACES = re.compile(r"\s+")
_HAN = re.compile(r"[\u3400-\u9fff]")
_ZH_VERB_ENDINGS = tuple(word for word in ZH_COPULAS if len(word) == 1 and word != "=")
_GENERIC_HAN = sorted((word for word in GENERIC if _HAN.search(word)), key=len, reverse=True)


@lru_cache(maxsize=4096)
def _owner_words(owner: str) -> str:
    """The owner's words other than generic ones, spaces dropped (`the Vega-3 project` -> `vega-3`), or ""
    when nothing else is left (`我们团队`, `本项目`, `our team`: the speaker's own project is not another owner)."""
    words = [w for w in _SPACES.split(owner.strip()) if w and w not in GENERIC and w not in EN_DETERMINERS]
    rest = "".join(words)
    if _HAN.search(rest):
        for generic in _GENERIC_HAN:
            rest = rest.replace(generic, "")
    return "".join(words) if rest.strip() else ""


def _english_owner(opening: str) -> str:
    """`the mobile app's reviewer is …` and `the reviewer of the mobile app is …`: the owner stands before
    the statement's first verb (after it, `of` and `for` belong to the value: `we use pytest for tests`)."""
    words = _WORD.findall(opening)
    for i, word in enumerate(words[:12]):
        if word in _VERBS:
            return ""
        if word.endswith("'s") and len(word) > 2:
            return " ".join([*words[:i], word[:-2]])
        if i and word in EN_OWNER_PREPOSITIONS:
            verb = next((k for k in range(i + 1, min(len(words), i + 10)) if words[k] in _VERBS), None)
            return " ".join(words[i + 1 : verb]) if verb is not None else ""
    return ""


def qualifier(text: str) -> str:
    """The owner qualifier of the text's opening statement (lower-cased, generic words and spaces dropped), or
    "" when its subject carries none."""
    opening = text[: 3 * MAX_QUALIFIER].lower()
    if opening.lstrip().startswith(_FRONT_PREFIXES):
        fronted = _FRONTED.match(opening)
        return _owner_words(fronted.group("owner")) if fronted else ""
    if _ANY_MARKER.search(opening, 0, MAX_QUALIFIER + 4):
        found = _ATTRIBUTIVE.match(opening)
        if found is not None:
            owner = found.group("owner")
            # `测试用的库是 …`: a verb right before 的 nominalises it; there is no owner
            return "" if owner.rstrip().endswith(_ZH_VERB_ENDINGS) else _owner_words(owner)
    if opening[:1].isascii() and _ENGLISH_HINT.search(opening):
        return _owner_words(_english_owner(opening.split(",", 1)[0]))
    return ""


def normalized_query(query: str) -> str:
    return _SPACES.sub("", query.lower())


def named(owner: str, query: str) -> bool:
    """Whether the question (from `normalized_query`) names the owner."""
    return not owner or owner in query


def about(contents: Sequence[str | None], rows: IntArray, query: str) -> BoolArray:
    """Per row: the memory is about what the question asks (its subject carries no owner the query leaves out)."""
    import numpy as np

    wanted = normalized_query(query)
    flags = np.ones(len(rows), dtype=bool)
    for i, row in enumerate(rows.tolist()):
        text = contents[row]
        if text:
            flags[i] = named(qualifier(text), wanted)
    return flags
