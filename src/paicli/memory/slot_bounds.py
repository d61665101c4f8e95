"""A bound's slot: the thing bounded and the bound's direction, whether the bound is a noun or a clause.

`The maximum queue depth is 1000` names the bound as a noun (the degree word opens the subject: the thing
is the words around it up to the copula); `The queue holds no more than 5000 messages` and `群成员现在不超过 500
人` say it as a clause (the degree word is in the predicate: the thing is the clause's words before it, with its
auxiliaries, time words and the verb right before the degree word left out). Two facts hold one bound slot
when each states one bound in the same direction, each gives an amount, and the bounded things agree: one's
words are all the other's, and the other has at most one more, its head (`size`, `length`, `大小`, `人数`:
the dimension of the thing, which the clause form leaves in its verb). Another thing bounded (`avatars` /
`attachment size`, `builds` / `job runtime`) or a thing with two words of its own is another slot.

The degree words are the closed class in `subject_forms` (`maximum`, `at most`, `up to`, `capped`, `最多`, `不超过`,
`至少` …). Pure.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from paicli.memory import change_words as cw
from paicli.memory import subject_words as w
from paicli.memory.change_values import values
from paicli.memory.claim_tokens import fold
from paicli.memory.claim_verbs import singular
from paicli.memory.subject_forms import LOWER, UPPER
from paicli.memory.tokenize import segment

_CLAUSE = re.compile(r"[，,；;。！!？?\n]+|\.(?=\s|$)")
_WORD = re.compile(r"[a-z][a-z0-9'+-]*|[\u3400-\u9fff]+|\d[\d.,]*")
_COPULA = w.EN_BE | w.ZH_COPULAS | {":"}
_HEAD = 2  # a Han head beyond the shared thing: one word (`大小`, `人数`, `数`)


@dataclass(frozen=True)
class Bound:
    upper: bool
    latin: frozenset[str]  # the thing's English words, singular
    han: str  # its Han characters, in order
    amounts: frozenset[tuple[str, str]]


def _words(text: str) -> list[str]:
    found: list[str] = []
    for run in _WORD.findall(text):
        found.extend(segment(run) if not run.isascii() else [run])
    return [word.strip() for word in found if word.strip()]


def _content(words: list[str]) -> list[str]:
    return [word for word in words if word not in cw.LIGHT and word != "的" and not word[0].isdigit()]


def _before(words: list[str]) -> list[str]:
    """The clause's words before the degree word: its subject, without the verb right before the degree word
    (`the queue holds`) when nothing lighter stands between them (`log lines can be` keeps `lines`)."""
    found = _content(words)
    if len(found) > 1 and words and words[-1] == found[-1] and "VERB" in cw.parts_of_speech(found[-1]):
        found = found[:-1]
    return found


def _after(words: list[str]) -> list[str]:
    """The noun form goes on to its copula (`maximum queue depth is`): those words are the thing's too."""
    for i, word in enumerate(words):
        if word in _COPULA:
            return _content(words[:i])
        if word[0].isdigit():
            break
    return []


@lru_cache(maxsize=4096)
def bound_of(text: str) -> Bound | None:
    """The one bound `text` states, or None (no bound, both directions, or no amount)."""
    found: list[Bound] = []
    for clause in _CLAUSE.split(fold(text).lower()):
        marks = [(m, True) for m in UPPER.finditer(clause)] + [(m, False) for m in LOWER.finditer(clause)]
        if not marks:
            continue
        amounts = frozenset(
            s for s in values(clause).slots if s[0].startswith("number:") or s[0] == "duration"
        )
        mark, upper = min(marks, key=lambda pair: pair[0].start())
        thing = [*_before(_words(clause[: mark.start()])), *_after(_words(clause[mark.end() :]))]
        if any(up != upper for _, up in marks) or not amounts or not thing:
            return None
        latin = frozenset(singular(word) for word in thing if word.isascii())
        found.append(Bound(upper, latin, "".join(word for word in thing if not word.isascii()), amounts))
    return found[0] if len(found) == 1 else None


def same_bound(stored: str, incoming: str) -> bool:
    """Both facts state one bound in one direction on one thing, with another amount: a changed bound."""
    old, new = bound_of(stored), bound_of(incoming)
    if old is None or new is None or old.upper != new.upper or old.amounts == new.amounts:
        return False
    small, large = sorted((old, new), key=lambda b: (len(b.latin) + bool(b.han), len(b.han)))
    if not small.latin <= large.latin or not large.han.startswith(small.han):
        return False
    head = large.han[len(small.han) :]
    return len(head) <= _HEAD and len(large.latin - small.latin) + bool(head) <= 1
