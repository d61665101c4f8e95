"""A correction told in words the claim parser cannot place: the new fact names the stored value (issue 37).

When the parser finds no relation between a stored truth and a new fact, the value slots still speak: if the
new fact names the stored subject and the stored value, and either denies something (a negator, a verb of
ceasing, a value it says is gone) or states another value without restating the stored one, it is a correction
of the stored truth, whatever its wording (`GitLab CI is out`, `S, formerly A: B`). Never when the new fact
restates the stored value or is about another owner's subject. Pure; the verdict is never certain, so the relation judge
may overrule it.
"""

from __future__ import annotations

import re
from functools import lru_cache

from paicli.memory.claim_grammar import ending, negator
from paicli.memory.claim_tokens import clauses, fold
from paicli.memory.denial import denies
from paicli.memory.subject import Claim, Reading, Subject, claim_of


def _main(claim: Claim) -> Reading | None:
    return next(
        (r for r in claim.readings if r.subject and r.value and not r.reverse and not r.negated), None
    )


_INFLECTIONS = frozenset(["", "s", "es", "d", "ed", "r", "er", "ers", "ing"])


@lru_cache(maxsize=4096)
def _pattern(value: str) -> re.Pattern[str]:
    """`alibabacloudhangzhou` in `Alibaba Cloud Hangzhou`, `45秒` in `45 秒`; an ASCII edge stops at a word edge."""
    body = r"\s*".join(re.escape(ch) for ch in value)
    start = r"(?<![a-z0-9])" if value[0].isascii() and value[0].isalnum() else ""
    end = r"(?![a-z0-9])" if value[-1].isascii() and value[-1].isalnum() else ""
    return re.compile(start + body + end)


def _names(subject: Subject, text: str, claim: Claim) -> bool:
    if any(r.subject is not None and r.subject.match(subject) for r in claim.readings if not r.reverse):
        return True
    words = {t.text for clause in clauses(text) for t in clause}
    latin = {part for word in words for part in word.replace("-", ".").split(".")} | words
    flat = fold(text).replace(" ", "")
    named = all(any(_stem_match(word, other) for other in latin) for word in subject.latin)
    return bool(subject.han or subject.latin) and subject.han in flat and named


def _stem_match(word: str, other: str) -> bool:
    """The same English word in another inflection (`owner` and `owns`, `hosting` and `hosted`): a shared stem of
    three letters or more, each word ending in an inflection after it (`service` and `server` do not)."""
    if word == other:
        return True
    if not (word.isascii() and other.isascii()):
        return False
    shared = next(
        (i for i, (a, b) in enumerate(zip(word, other, strict=False)) if a != b), min(len(word), len(other))
    )
    return shared >= 3 and word[shared:] in _INFLECTIONS and other[shared:] in _INFLECTIONS


def _denies(text: str, claim: Claim) -> bool:
    if claim.denied or any(r.negated for r in claim.readings):
        return True
    return any(negator(t) or ending(t) for clause in clauses(text) for t in clause)


def corrects_stored(stored: str, incoming: str) -> bool:
    """Whether `incoming` gives the stored truth's subject another value or says its value is over."""
    old = _main(claim_of(stored))
    if old is None or old.subject is None:
        return False
    new = claim_of(incoming)
    if not _pattern(old.value).search(fold(incoming)):
        return False
    positive = [r for r in new.readings if not r.reverse and not r.negated and r.value]
    if any(_pattern(old.value).search(r.value) for r in positive):
        return False  # it restates the stored value (`移动端团队用 A 部署` holds `A` beside `我们用 A 部署`)
    if any(r.subject is not None and r.subject.owner != old.subject.owner for r in new.readings):
        return False  # another component's or project's subject
    if old.subject.owner and old.subject.owner not in fold(incoming).replace(" ", ""):
        return False  # the stored fact is about another owner, the new one does not name it
    if not _names(old.subject, incoming, new):
        return False
    # another value beside the stored one, which is not restated, or the stored value's own clause denies it
    return _denies(incoming, new) or denies(incoming, old.value) or bool(positive)
