"""The few stored entries a new fact can be a duplicate of, conflict with or correct (issue 49).

`evolve.decide` and `store` look at every entry of the new fact's domain (same type, scope and project); this
module finds, through indexes kept per domain, a set of candidates that contains every entry those rules can
pick, so running them over the candidates decides exactly what running them over the whole store decides
(tests/memory/test_candidates.py checks that on generated stores). What the rules read, and the index that
finds it:

- a duplicate (equal canonical text, or the same text with 的/地/得/是 inserted): the canonical text without
  those particles, looked up in a dict;
- a numeric variant (only numbers differ): the canonical text with every number masked, in a dict;
- near-identical text (bigram Dice >= the conflict threshold): such an entry shares at least
  m = ceil(t * a / (2 - t)) of the new text's a bigrams, so it contains one of any set of bigrams that covers
  a - m + 1 of them; the rarest such set is searched in the domain's joined canonical text;
- a subject relation (`evolve.decide` relates the neighbours that `neighbours.py` finds): the entries whose
  lower-cased text contains one of the new fact's needles (values, content words, Han bigrams), searched in the
  domain's own joined lower-cased text when the domain is a small part of the store (a project's facts among
  other projects'), else in the table's.

Candidates come back in store order, which the rules depend on (the first duplicate wins).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from paicli.memory.dedup import canonicalize
from paicli.memory.table import GLOBAL, SEPARATOR, TYPES, EntryTable

if TYPE_CHECKING:
    from paicli.memory.entry import MemoryEntry

_PARTICLES = str.maketrans("", "", "的地得是")


def duplicate_key(canonical: str) -> str:
    return canonical.translate(_PARTICLES)


def numeric_key(canonical: str) -> str | None:
    from paicli.memory.dedup import _NUMBER, _NUMBER_MASK

    masked = _NUMBER.sub(_NUMBER_MASK, canonical)
    return masked if _NUMBER_MASK in masked else None


def related_needles(incoming: MemoryEntry) -> set[str]:
    """The terms `evolve.decide` scores neighbours by (`neighbours.needles`): every stored entry that holds one
    of them, and only such an entry, can be a neighbour of `incoming`."""
    from paicli.memory.neighbours import needles  # the claim grammar: a write's, loaded with the first one

    return set(needles(incoming.content))


def required_overlap(bigrams: int, threshold: float) -> int:
    """The fewest bigrams a text must share with one of `bigrams` bigrams to reach Dice >= threshold."""
    return max(1, math.ceil(threshold * bigrams / (2.0 - threshold) - 1e-9))


@dataclass
class _Domain:
    """Canonical texts of one domain's rows: two dicts and a joined text (rows only added; dead ones stay)."""

    revision: int = -1
    rows: list[int] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    by_duplicate: dict[str, list[int]] = field(default_factory=dict)
    by_numbers: dict[str, list[int]] = field(default_factory=dict)
    _joined: tuple[str, list[int]] | None = None
    _lowered: tuple[str, list[int]] = ("", [])  # the rows' lower-cased texts joined, for rows[: len(starts)]

    def add(self, row: int, canonical: str) -> None:
        self.rows.append(row)
        self.parts.append(canonical)
        self.by_duplicate.setdefault(duplicate_key(canonical), []).append(row)
        masked = numeric_key(canonical)
        if masked is not None:
            self.by_numbers.setdefault(masked, []).append(row)
        self._joined = None

    def joined(self) -> tuple[str, list[int]]:
        if self._joined is None:
            starts, at = [], 0
            for part in self.parts:
                starts.append(at)
                at += len(part) + 1
            self._joined = (SEPARATOR.join(self.parts), starts)
        return self._joined

    def rows_with(self, needles: Iterable[str]) -> set[int]:
        text, starts = self.joined()
        return self._rows_at(text, starts, needles)

    def _rows_at(self, text: str, starts: list[int], needles: Iterable[str]) -> set[int]:
        """The rows whose part of `text` (joined from `starts`) holds one of `needles`."""
        import numpy as np

        positions: list[int] = []
        for needle in needles:
            at = text.find(needle)
            while at >= 0:
                positions.append(at)
                at = text.find(needle, at + 1)
        if not positions:
            return set()
        slots = np.searchsorted(np.asarray(starts), np.asarray(positions), side="right") - 1
        return {self.rows[slot] for slot in set(slots.tolist())}

    def lowered(self, contents: list[str]) -> tuple[str, list[int]]:
        """The rows' lower-cased texts joined by SEPARATOR, and each one's start, extended by the rows added
        since. A text read when its row was already dead is empty: lookups filter dead rows anyway."""
        text, starts = self._lowered
        if len(starts) < len(self.rows):
            parts, starts, at = [text] if starts else [], list(starts), len(text) + 1 if starts else 0
            for row in self.rows[len(starts) :]:
                lowered = contents[row].lower()
                parts.append(lowered)
                starts.append(at)
                at += len(lowered) + 1
            self._lowered = (SEPARATOR.join(parts), starts)
        return self._lowered

    def rows_holding(self, needles: Iterable[str], contents: list[str]) -> set[int]:
        """Rows whose lower-cased text contains one of `needles` (lower-cased, without SEPARATOR)."""
        text, starts = self.lowered(contents)
        return self._rows_at(text, starts, needles)


class CandidateIndex:
    """Per-domain indexes over an `EntryTable`, brought up to date from its change log before each lookup."""

    def __init__(self, table: EntryTable) -> None:
        self.table = table
        self._domains: dict[tuple[int, str | None], _Domain] = {}
        self._canonical: dict[int, str] = {}

    def _key(self, kind: object, project: str | None) -> tuple[int, str | None]:
        return (TYPES.index(str(kind)) if str(kind) in TYPES else 1, project)

    def _domain(self, kind: object, project: str | None) -> _Domain:
        key = self._key(kind, project)
        domain = self._domains.get(key)
        table = self.table
        changed = table.changes_since(domain.revision) if domain is not None else None
        if domain is None or changed is None:
            domain = self._domains[key] = _Domain(revision=table.revision)
            rows: Iterable[int] = (int(row) for row in table.domain(kind, project))
        else:
            domain.revision = table.revision
            wanted = {int(row) for row in table.domain(kind, project)} if changed else set()
            rows = sorted({table.row_of[i] for i in changed if i in table.row_of} & wanted)
        for row in rows:
            domain.add(row, self._canonical_of(row))
        return domain

    def _canonical_of(self, row: int) -> str:
        known = self._canonical.get(row)
        if known is None:
            known = self._canonical[row] = canonicalize(self.table.contents[row])
        return known

    def lookup(self, incoming: MemoryEntry, threshold: float, relations: bool = True) -> list[int]:
        """Live rows of the incoming fact's domain that the dedup/evolution rules could pick, in row order;
        `relations=False`: duplicates only (the plain `store`)."""
        project = None if incoming.scope == "global" else incoming.project.strip()
        if (project is not None and not project) or not len(self.table):
            return []  # a project entry without a project key is never in anyone's domain
        domain = self._domain(incoming.type, project)
        canonical = canonicalize(incoming.content)
        found = set(domain.by_duplicate.get(duplicate_key(canonical), ()))
        if relations:
            masked = numeric_key(canonical)
            if masked is not None:
                found.update(domain.by_numbers.get(masked, ()))
            if canonical:
                found |= domain.rows_with(_rare_bigrams(canonical, threshold, domain.joined()[0].count))
            needles = related_needles(incoming)
            if needles:
                found |= self._rows_containing(needles, domain)
        alive = self.table.alive
        return sorted(row for row in found if alive[row])

    def _rows_containing(self, needles: set[str], domain: _Domain) -> set[int]:
        table = self.table
        if 2 * len(domain.rows) < len(table.ids) and not any(SEPARATOR in needle for needle in needles):
            # a small domain: its own text is cheaper to scan than the whole store's
            return domain.rows_holding(needles, table.contents)
        members = set(domain.rows)
        rows: set[int] = set()
        for needle in needles:
            rows.update(int(row) for row in self.table.rows_containing(needle))
        return rows & members


def _rare_bigrams(canonical: str, threshold: float, count: Callable[[str], int]) -> list[str]:
    """Bigram types of `canonical` that every text with Dice >= threshold against it contains one of."""
    occurrences: dict[str, int] = {}
    for i in range(len(canonical) - 1):
        pair = canonical[i : i + 2]
        occurrences[pair] = occurrences.get(pair, 0) + 1
    total = len(canonical) - 1
    if total <= 0:
        return []
    cover = total - required_overlap(total, threshold) + 1
    chosen: list[str] = []
    for pair in sorted(occurrences, key=lambda pair: (count(pair), pair)):
        if cover <= 0:
            break
        chosen.append(pair)
        cover -= occurrences[pair]
    return chosen


__all__ = ["GLOBAL", "CandidateIndex", "duplicate_key", "numeric_key", "related_needles"]
