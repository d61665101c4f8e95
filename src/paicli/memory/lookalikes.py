"""Look-alike results: the same sentence with other values, or with more words around it (issue 37).

A long-lived store holds many of them: another project's global fact that says the same thing about other
versions, a fact about one component that repeats a general one. Shown together they fill the few places of
the memory block with one subject. So, over the best results, a result whose shape (its text with numbers and
ASCII names masked, punctuation and spaces dropped) contains, or is contained in, the shape of a result kept
before it, or is near-identical to it by the conflict detector's own test (bigram Dice >= 0.8), moves after
every result that is not a look-alike; when both match the query equally (same keyword score, same scope), the
more general of the two (the shorter shape) keeps the place. A shape shorter than the dedup rules' shortest
variant (8 characters) is a look-alike only of the same shape (the sentence with other values) or of itself said
of an owner (`网关的` + it); any looser overlap of so few characters is chance.

Once the places are filled, another project's copy among them gives its place up to this project's memory a
little further down (within the scan) that it looks like: the copy shared more of the question only through its
own values. This project's memory then ranks in its own order, after the distinct results kept before it.

Before any of this, scoring collapses exact copies by key (`copy_keys`, computed once per memory by the index):
another project's memory saying one of this project's matching sentences with other values, and all but the
first copy of a sentence this project does not state, follow every distinct match (`scoring.py`). The rules
here handle what a key cannot see: copies with more words around them, near-identical wordings.

The retriever ranks in two classes (matches that share a term with the query, then matches by meaning only):
a look-alike of a term match gives its place to a distinct match by meaning too, or a big store's copies of
one fact (tens of other projects' global versions, every component's) would fill every place before it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from itertools import chain, islice
from typing import Generic, TypeVar

from paicli.memory.dedup import DEFAULT_CONFLICT_THRESHOLD, bigram_dice, canonicalize, uncached_canonical
from paicli.memory.stopwords import content_terms
from paicli.memory.subject_words import ZH_ATTRIBUTIVE
from paicli.memory.tokenize import tokenize

T = TypeVar("T")
MIN_SHAPE = 8  # dedup's shortest grammatical variant: below this, two texts share a shape by chance
MIN_SHORT_SHAPE = 3  # characters besides values of a short sentence that only its own copies share
_VALUE = re.compile(r"[a-z0-9][a-z0-9._+#/:@-]*")
_MASK = "\ue000"


def shape(text: str) -> str:
    """The text without its values: ASCII names, versions and numbers masked, punctuation dropped."""
    return _VALUE.sub(_MASK, canonicalize(text))


MAX_OWNER = 8  # characters of an owner before its attributive marker (`风控服务的`)


def copy_keys(text: str) -> tuple[int, int]:
    """(copy key, core key) of a memory's text. Texts that say the same sentence with other values share a copy
    key; the core key is the copy key of the sentence without a leading owner (`网关的` + it), or the copy key
    itself when there is none. 0: too few characters besides values to tell a copy from chance (an English
    sentence, whose every word is a value here). Not cached (the index computes them once per memory)."""
    masked = _VALUE.sub(_MASK, uncached_canonical(text))
    key = _key(masked)
    owners = [
        (at, -len(marker), marker)
        for marker in ZH_ATTRIBUTIVE
        if (at := masked.find(marker, 1, MAX_OWNER + len(marker))) > 0 and _MASK not in masked[:at]
    ]
    if not owners:
        return key, key
    at, _, marker = min(owners)
    return key, _key(masked[at + len(marker) :])


def _key(masked: str) -> int:
    words = len(masked.replace(_MASK, ""))
    if words < MIN_SHORT_SHAPE or (words < MIN_SHAPE and _MASK not in masked):
        return 0
    digest = hashlib.blake2b(masked.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True) or 1


def look_alike(left: str, right: str) -> bool:
    shorter, longer = (left, right) if len(left) <= len(right) else (right, left)
    if len(shorter.replace(_MASK, "")) < MIN_SHAPE:
        # a short shape is a look-alike only of itself (the same sentence with other values) or of itself said
        # of an owner (`网关的` + the sentence): below MIN_SHAPE, any looser overlap is chance
        if len(shorter.replace(_MASK, "")) < MIN_SHORT_SHAPE or _MASK not in shorter:
            return False
        return shorter == longer or _said_of_owner(longer, shorter)
    if shorter in longer:
        return True
    # Dice <= 2 * shorter bigrams / all bigrams: below the threshold, the bigrams need not be counted
    bound = 2.0 * (len(shorter) - 1) / max(1, len(shorter) + len(longer) - 2)
    return bound >= DEFAULT_CONFLICT_THRESHOLD and bigram_dice(left, right) >= DEFAULT_CONFLICT_THRESHOLD


def _said_of_owner(longer: str, shorter: str) -> bool:
    """Whether `longer` is `shorter` after an owner and an attributive marker (`网关的` + `shorter`)."""
    if not longer.endswith(shorter):
        return False
    owner = longer[: len(longer) - len(shorter)]
    return any(
        owner.endswith(marker) and len(owner) > len(marker) and _MASK not in owner
        for marker in ZH_ATTRIBUTIVE
    )


def _asked_elsewhere(general: str, specific: str, question: str, terms: Collection[str]) -> bool:
    """Whether what `specific` (a shape holding `general`'s) says beyond it, its owner (`用户中心的`,
    attributive markers aside), holds a word of the question without the question naming that owner: the
    copy then matched on its owner's name, not on what the question asks."""
    extra = _extra(general, specific)
    if not extra.replace(_MASK, "") or extra in question:
        return False
    return any(term in extra for term in terms)


def _extra(general: str, specific: str) -> str:
    """What `specific` says beyond `general` (whose shape it holds), attributive markers aside."""
    extra = _words(specific.replace(general, "", 1))
    for marker in ZH_ATTRIBUTIVE:
        extra = extra.removesuffix(marker).removeprefix(marker)
    return extra


def _words(text: str) -> str:
    return "".join(ch for ch in text if ch.isalnum() or ch == _MASK)


class Spreader(Generic[T]):
    """Splits ranked classes into distinct results and look-alikes of a result kept before (in any class).

    With `home` (whether a result is this project's own memory) and the question, a result of this project
    takes the place of the look-alike kept before it when that one is another project's copy (a global fact,
    the same sentence with other values), or this project's more specific version that the question does not
    name (`用户中心的…` when the question never says 用户中心): the words that differ (a swapped-in value, a
    component's name) may be the question's own words, yet a copy said elsewhere is no answer here."""

    def __init__(
        self,
        text: Callable[[T], str],
        tie: Callable[[T], object],
        home: Callable[[T], bool] | None = None,
        question: str = "",
    ) -> None:
        self._text = text
        self._tie = tie
        self._home = home
        self._question = _words(shape(question)) if home is not None else ""
        self._asked = question
        self._terms: set[str] | None = None  # the question's terms, segmented only if a copy needs them
        self._kept: list[tuple[T, str]] = []

    def split(self, items: Iterable[T], wanted: int, scan: int) -> tuple[list[T], list[T], Iterator[T]]:
        """Of `items` (best first), at most `scan` are looked at, stopping once `wanted` distinct ones are
        kept: (distinct ones, look-alikes among those looked at, the items not looked at)."""
        rest = iter(items)
        first = len(self._kept)
        later: list[T] = []
        looked = 0
        for item in rest:
            looked += 1
            mine = shape(self._text(item))
            twins = [k for k, (_, theirs) in enumerate(self._kept) if look_alike(mine, theirs)]
            if not twins:
                self._kept.append((item, mine))
            elif twins[0] >= first and (
                all(self._general(item, mine, self._kept[k]) for k in twins)
                or all(self._answers_here(item, mine, self._kept[k]) for k in twins)
            ):
                # the more general statement of an equal match keeps the place of the first of its look-alikes
                # and takes the others' (copies of it said of two components are not look-alikes of each other)
                later.extend(self._kept[k][0] for k in twins)
                self._kept[twins[0]] = (item, mine)
                for k in reversed(twins[1:]):
                    del self._kept[k]
            else:
                later.append(item)
            if len(self._kept) - first >= wanted or looked >= scan:
                break
        passed = self._stand_ins(rest, first, scan - looked, later)
        return [item for item, _ in self._kept[first:]], later, chain(passed, rest)

    def _stand_ins(self, rest: Iterator[T], first: int, budget: int, later: list[T]) -> list[T]:
        """Once the places are filled: another project's copy kept in this class gives its place up to a memory of
        this project among the next `budget` items that it looks like (the same statement with this project's
        values): the copy moves to `later`, the memory joins the kept ones last. Returns the other items looked
        at, in order."""
        home = self._home
        if home is None or budget <= 0 or all(home(item) for item, _ in self._kept[first:]):
            return []
        passed: list[T] = []
        for item in islice(rest, budget):
            if home(item):
                mine = shape(self._text(item))
                for k in range(first, len(self._kept)):
                    twin = self._kept[k]
                    if (
                        not home(twin[0])
                        and look_alike(mine, twin[1])
                        and self._answers_here(item, mine, twin)
                    ):
                        later.append(twin[0])
                        del self._kept[k]
                        self._kept.append((item, mine))
                        break
                else:
                    passed.append(item)
                continue
            passed.append(item)
        return passed

    def _general(self, item: T, mine: str, twin: tuple[T, str]) -> bool:
        return self._tie(item) == self._tie(twin[0]) and len(mine) < len(twin[1])

    def _answers_here(self, item: T, mine: str, twin: tuple[T, str]) -> bool:
        """Whether `item`, this project's, is the answer here rather than its look-alike `twin` kept before."""
        home = self._home
        if home is None or not home(item):
            return False
        if not home(twin[0]):
            return not self._names_its_owner(mine, twin[1])  # another project's copy
        theirs = twin[1]
        if not (len(mine) < len(theirs) and mine in theirs):
            return False
        if self._terms is None:
            self._terms = content_terms(tokenize(self._asked.lower()))
        return _asked_elsewhere(mine, theirs, self._question, self._terms)

    def _names_its_owner(self, mine: str, theirs: str) -> bool:
        """Whether the question names what another project's copy says beyond this project's statement."""
        if not (len(mine) < len(theirs) and mine in theirs):
            return False
        extra = _extra(mine, theirs)
        return bool(extra.replace(_MASK, "")) and extra in self._question


def spread_classes(
    classes: Sequence[Iterable[T]],
    text: Callable[[T], str],
    tie: Callable[[T], object],
    wanted: int,
    scan: int,
    home: Callable[[T], bool] | None = None,
    question: str = "",
) -> Iterator[T]:
    """Ranked classes (a class's results all before the next's): the first `wanted` places go to distinct
    results, class by class; then each class's remaining results in order, its look-alikes last. A look-alike
    of a result of an earlier class counts too, so a big store's copies of one fact (other projects, other
    components) never keep a distinct result of a later class out of the best places. Only the first `scan`
    results of a class are looked at (the cost of a query stays bounded in a big store)."""
    spreader: Spreader[T] = Spreader(text, tie, home, question)
    kept: list[T] = []
    tails: list[tuple[Iterator[T], list[T]]] = []
    for items in classes:
        if len(kept) >= wanted:
            tails.append((iter(items), []))
            continue
        distinct, later, rest = spreader.split(items, wanted - len(kept), scan)
        kept.extend(distinct)
        tails.append((rest, later))
    yield from kept
    for rest, later in tails:
        yield from rest
        yield from later
