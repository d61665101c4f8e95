"""recall@5 of the golden set: a query counts when a chunk of the expected file (with the expected symbol, when
one is named) is among the first five results of the index built over the fixture repository."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from paicli.codeindex.indexer import CodeIndex

HERE = Path(__file__).resolve().parent
REPO = HERE / "repo"
GOLDEN = HERE / "golden.json"
K = 5


@dataclass(frozen=True)
class Case:
    id: str
    split: str
    lang: str
    query: str
    path: str
    symbol: str | None


def cases(split: str | None = None) -> list[Case]:
    data = json.loads(GOLDEN.read_text(encoding="utf-8"))
    found = [Case(**item) for item in data["queries"]]
    return [case for case in found if split is None or case.split == split]


def found(index: CodeIndex, case: Case) -> bool:
    for hit in index.search(case.query, K):
        if hit.path == case.path and (case.symbol is None or hit.symbol == case.symbol):
            return True
    return False


def recall(index: CodeIndex, chosen: list[Case]) -> tuple[float, list[str]]:
    """The share of `chosen` found in the top K, and the ids of those that were not."""
    missed = [case.id for case in chosen if not found(index, case)]
    return (1.0 - len(missed) / len(chosen)) if chosen else 0.0, missed


def golden_index(home: Path) -> CodeIndex:
    index = CodeIndex(home, REPO, max_files=10_000)
    index.refresh_now()
    return index
