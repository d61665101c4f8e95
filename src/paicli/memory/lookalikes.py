"""Look-alike results: the same sentence with other values, or with more words around it (issue 37).

A long-lived store holds many of them: another project's global fact that says the same thing about other
versions, a fact about one component that repeats a general one. Shown together they fill the few places of
the memory block with one subject. So, over the best results, a result whose shape (its text with numbers and
ASCII names masked, punctuation and spaces dropped) contains, or is contained in, the shape of a result kept
before it, or is near-identical to it by the conflict detector's own test (bigram Dice >= 0.8), moves after
every result that is not a look-alike; when both match the query equally (same keyword score, same scope), the
more general of the two (the shorter shape) keeps the place. Shapes shorter than the dedup rules' shortest
variant (8 characters) are too generic to call anything a look-alike.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TypeVar

from paicli.memory.dedup import DEFAULT_CONFLICT_THRESHOLD, bigram_dice, canonicalize

T = TypeVar("T")
MIN_SHAPE = 8  # dedup's shortest grammatical variant: below this, two texts share a shape by chance
_VALUE = re.compile(r"[a-z0-9][a-z0-9._+#/:@-]*")


def shape(text: str) -> str:
    """The text without its values: ASCII names, versions and numbers masked, punctuation dropped."""
    return _VALUE.sub("\ue000", canonicalize(text))


def look_alike(left: str, right: str) -> bool:
    shorter, longer = (left, right) if len(left) <= len(right) else (right, left)
    if len(shorter.replace("\ue000", "")) < MIN_SHAPE:
        return False
    return shorter in longer or bigram_dice(left, right) >= DEFAULT_CONFLICT_THRESHOLD


def spread(items: Sequence[T], text: Callable[[T], str], tie: Callable[[T], object]) -> list[T]:
    """`items` (best first) with look-alikes of an earlier result moved after the distinct ones."""
    kept: list[tuple[T, str]] = []
    later: list[T] = []
    for item in items:
        mine = shape(text(item))
        twin = next((k for k, (_, theirs) in enumerate(kept) if look_alike(mine, theirs)), None)
        if twin is None:
            kept.append((item, mine))
            continue
        other, theirs = kept[twin]
        if tie(item) == tie(other) and len(mine) < len(theirs):
            kept[twin] = (item, mine)  # the more general statement of an equal match keeps the place
            later.append(other)
        else:
            later.append(item)
    return [item for item, _ in kept] + later
