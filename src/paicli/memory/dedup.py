"""Duplicate and conflict rules for long-term memories (spec 4.6-4.8). Pure functions over entries."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from datetime import datetime, timedelta
from functools import lru_cache

from paicli.memory.clock import as_utc
from paicli.memory.entry import MemoryEntry

DEFAULT_CONFLICT_THRESHOLD = 0.8
MAX_STALE_DAYS = 999_999_999  # timedelta's limit

_LETTER_OR_DIGIT = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})
_SYMBOLS = frozenset({"Sm", "Sc", "Sk", "So"})
_KEPT_PUNCTUATION = frozenset("#/@\\%_-!:&|^~")
_APOSTROPHES = frozenset("'’")
_PARTICLES = frozenset("的地得是")
_VARIANT_MIN_LENGTH = 8
_VARIANT_MIN_RATIO = 0.82
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)*")
_NUMBER_MASK = "\ue000"


def is_letter_or_digit(ch: str) -> bool:
    """Java's Character.isLetterOrDigit (not str.isalnum, which also accepts No/Nl)."""
    return unicodedata.category(ch) in _LETTER_OR_DIGIT


def canonicalize(text: str | None) -> str:
    if not text:
        return ""
    return _canonical(text)


@lru_cache(maxsize=65536)
def _canonical(text: str) -> str:
    """Cached: every write compares the new fact with every stored one."""
    folded = unicodedata.normalize("NFKC", text).lower()
    return "".join(ch for i, ch in enumerate(folded) if _kept(folded, i, ch))


def uncached_canonical(text: str) -> str:
    """`canonicalize` without filling its cache (indexing reads each memory once)."""
    return _canonical.__wrapped__(text) if text else ""


def _kept(text: str, i: int, ch: str) -> bool:
    if is_letter_or_digit(ch) or unicodedata.category(ch) in _SYMBOLS or ch in _KEPT_PUNCTUATION:
        return True
    if ch != "." and ch not in _APOSTROPHES:
        return False
    # an inner dot or apostrophe (v1.2, don't) carries meaning; elsewhere it is punctuation
    return 0 < i < len(text) - 1 and is_letter_or_digit(text[i - 1]) and is_letter_or_digit(text[i + 1])


def same_domain(a: MemoryEntry, b: MemoryEntry) -> bool:
    if a.type != b.type or a.scope != b.scope:
        return False
    if a.scope == "project":
        left, right = a.project.strip(), b.project.strip()
        return bool(left) and left == right
    return True


def is_duplicate(a: MemoryEntry, b: MemoryEntry) -> bool:
    if not same_domain(a, b):
        return False
    return canonical_duplicate(canonicalize(a.content), canonicalize(b.content))


def canonical_duplicate(left: str, right: str) -> bool:
    if left == right:
        return True
    if not left or not right:
        return False
    return is_grammatical_variant(left, right)


def is_grammatical_variant(left: str, right: str) -> bool:
    """The longer string is the shorter one with only 的/地/得/是 inserted, and not much longer."""
    shorter, longer = (left, right) if len(left) <= len(right) else (right, left)
    if len(shorter) < _VARIANT_MIN_LENGTH or len(shorter) / len(longer) < _VARIANT_MIN_RATIO:
        return False
    if len(shorter) == len(longer):  # different strings of equal length: nothing was inserted
        return False
    matched = 0
    for ch in longer:
        if matched < len(shorter) and ch == shorter[matched]:
            matched += 1
        elif ch not in _PARTICLES:
            return False
    return matched == len(shorter)


def is_numeric_variant(left: str, right: str) -> bool:
    masked_left = _NUMBER.sub(_NUMBER_MASK, left)
    return _NUMBER_MASK in masked_left and masked_left == _NUMBER.sub(_NUMBER_MASK, right)


@lru_cache(maxsize=65536)
def _bigrams(text: str) -> Counter[str]:
    """Cached and shared: callers must not mutate the result."""
    return Counter(text[i : i + 2] for i in range(len(text) - 1))


def bigram_dice(left: str, right: str) -> float:
    lefts, rights = _bigrams(left), _bigrams(right)
    if not lefts or not rights:
        return 0.0
    total = (len(left) - 1) + (len(right) - 1)
    shared = sum(min(count, rights.get(pair, 0)) for pair, count in lefts.items())
    return 2.0 * shared / total


class ConflictDetector:
    """Same domain, not a duplicate, and either only numbers differ or the texts are near-identical."""

    def __init__(self, threshold: float = DEFAULT_CONFLICT_THRESHOLD) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"conflict threshold must be in (0, 1]: {threshold}")
        self.threshold = threshold

    def is_conflict(self, existing: MemoryEntry, incoming: MemoryEntry) -> bool:
        if not same_domain(existing, incoming):
            return False
        left, right = canonicalize(existing.content), canonicalize(incoming.content)
        if not left or not right or canonical_duplicate(left, right):
            return False
        return is_numeric_variant(left, right) or bigram_dice(left, right) >= self.threshold


def is_stale(entry: MemoryEntry, now: datetime, days: int) -> bool:
    """Stale when not verified within `days` (<= 0 disables the label)."""
    if days <= 0:
        return False
    # subtract rather than add, and cap the period: a huge configured period must not overflow datetime
    return as_utc(now) - entry.last_verified_at > timedelta(days=min(days, MAX_STALE_DAYS))
