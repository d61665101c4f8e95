"""The stored truths a new fact is compared with: its neighbours on a plausibly same subject (pure).

A cheap text filter, so a write stays fast at any store size without segmenting stored facts: the new fact's
content words (and the two-character pieces of its Chinese words, which meet `审查人` in `代码审查人`, and the
opening of a longer English word, which meets its other forms: `retries` and `retry`) are looked up as
substrings of each candidate's lower-cased text; the candidates that hold the most of them come first.
This is the seam where an index-based lookup can replace the scan: `evolve.decide` takes whatever candidate
list it is given and relates each one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache

from paicli.memory import subject_words as w
from paicli.memory.change_words import ABBREVIATIONS
from paicli.memory.claim_tokens import clauses
from paicli.memory.entry import MemoryEntry

LIMIT = 16  # candidates the local rules relate
JUDGE_LIMIT = 4  # candidates the relation judge sees


@lru_cache(maxsize=4096)
def needles(text: str) -> frozenset[str]:
    """The terms of a fact that a neighbour would share: values, content words, Han bigrams."""
    found: set[str] = set()
    for clause in clauses(text):
        for token in clause:
            word = token.text
            if not token.value and (word in w.GENERIC or word in w.ZH_ASPECT or len(word) < 2):
                continue
            if token.han and len(word) > 2:
                found.update(word[i : i + 2] for i in range(len(word) - 1))
            elif not token.value and word.isascii() and word.isalpha() and len(word) >= 5:
                found.add(word[: max(4, len(word) - 3)])  # another word form: `uploads` meets `upload size`
            elif not token.value and len(word) == 4 and word.isascii() and word.endswith("s"):
                found.add(word[:-1])  # a short plural meets its singular: `jobs` and `job runtime`
            found.add(word)
    for (
        short,
        expansion,
    ) in ABBREVIATIONS.items():  # `DB` meets `database`, `CI` meets `continuous integration`
        if short in found:
            found.update(expansion)
        elif all(word in found for word in expansion):
            found.add(short)
    return frozenset(found)


def neighbours(live: Iterable[MemoryEntry], incoming: MemoryEntry, limit: int = LIMIT) -> list[MemoryEntry]:
    """The live entries sharing the most terms with `incoming`, best first (ties: newest first)."""
    terms = needles(incoming.content)
    if not terms:
        return []
    scored: list[tuple[int, float, MemoryEntry]] = []
    for entry in live:
        lowered = entry.content.lower()
        score = sum(1 for term in terms if term in lowered)
        if score:
            scored.append((score, entry.timestamp.timestamp(), entry))
    scored.sort(key=lambda item: (item[0], item[1]), reverse=True)
    return [entry for _, _, entry in scored[:limit]]


def labelled(candidates: Sequence[MemoryEntry]) -> list[tuple[str, MemoryEntry]]:
    """Short labels for the judge's prompt (`m1`, `m2`, …): ids stay out of the model's answer."""
    return [(f"m{i + 1}", entry) for i, entry in enumerate(candidates[:JUDGE_LIMIT])]
