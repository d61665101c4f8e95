"""Recall among look-alikes: the labelled facts as this project's memories, plus `lookalike` distractors.

For each store size (0 = the labelled facts alone), recall@5 and MRR of `MemoryRetriever.top` in project
`/repo` over the dev queries (dataset.json) and the held-out ones (heldout.json), reported separately, and
how many entries an unrelated query gets injected.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from typing import Any

from evals.retrieval.lookalike import distractors
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.context.estimate import estimate_tokens
from paicli.memory.entry import MemoryEntry
from paicli.memory.retriever import MemoryRetriever

PROJECT = "/repo"
K = 5


class VisibleStore:
    """A list of entries answering `get_all` the way the store does (None: every entry)."""

    def __init__(self, entries: Sequence[MemoryEntry]) -> None:
        self.entries = list(entries)
        self._visible: dict[str | None, list[MemoryEntry]] = {}

    def get_all(self, project_key: str | None = None) -> list[MemoryEntry]:
        if project_key not in self._visible:
            self._visible[project_key] = (
                self.entries
                if project_key is None
                else [e for e in self.entries if e.is_visible_in(project_key)]
            )
        return self._visible[project_key]


def labelled(data: dict[str, Any], now: datetime) -> list[MemoryEntry]:
    entries = []
    for memory in data["memories"]:
        stamp = now - timedelta(hours=int(memory["age_hours"]))
        entries.append(
            MemoryEntry(
                id=memory["id"],
                content=memory["content"],
                timestamp=stamp,
                last_verified_at=stamp,
                metadata={"source": "fact", "scope": "project", "project": PROJECT},
                token_count=estimate_tokens(memory["content"]),
            )
        )
    return entries


def score(ranker: MemoryRetriever, queries: Sequence[dict[str, Any]]) -> dict[str, float]:
    recalls: list[float] = []
    ranks: list[float] = []
    noise: list[int] = []
    for query in queries:
        ranked = [item.entry.id for item in ranker.top(query["query"], PROJECT)]
        relevant = set(query["relevant"])
        if not relevant:
            noise.append(len(ranked))
            continue
        recalls.append(len(relevant & set(ranked[:K])) / len(relevant))
        first = next((pos for pos, entry_id in enumerate(ranked, 1) if entry_id in relevant), None)
        ranks.append(1.0 / first if first else 0.0)
    return {
        "recall_at_5": statistics.fmean(recalls) if recalls else 0.0,
        "mrr": statistics.fmean(ranks) if ranks else 0.0,
        "unrelated_injected": statistics.fmean(noise) if noise else 0.0,
        "queries": len(recalls),
    }


def measure(data: dict[str, Any], heldout: dict[str, Any], sizes: Sequence[int]) -> list[dict[str, Any]]:
    now = datetime.fromisoformat(data["now"].replace("Z", "+00:00")).astimezone(timezone.utc)
    facts = labelled(data, now)
    rows = []
    for size in sizes:
        extra = distractors([(e.id, e.content) for e in facts], size, PROJECT, now=now)
        store = VisibleStore(facts + extra)
        ranker = MemoryRetriever(
            store, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: now, zone=timezone.utc
        )
        started = time.perf_counter()
        ranker.warm_index(PROJECT)
        build = time.perf_counter() - started
        started = time.perf_counter()
        dev = score(ranker, data["queries"])
        held = score(ranker, heldout["queries"])
        count = len(data["queries"]) + len(heldout["queries"])
        per_query = (time.perf_counter() - started) / count * 1000
        rows.append({"size": size, "dev": dev, "heldout": held, "index_s": build, "query_ms": per_query})
    return rows


def describe(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "recall among look-alikes (labelled facts in project /repo + distractors; recall@5 / MRR / entries"
        " injected for unrelated queries)",
        f"{'distractors':>12} {'dev recall@5':>13} {'dev MRR':>8} {'dev noise':>10}"
        f" {'held-out recall@5':>18} {'held-out MRR':>13} {'held-out noise':>15}",
    ]
    base = rows[0] if rows else None
    for row in rows:
        dev, held = row["dev"], row["heldout"]
        lines.append(
            f"{row['size']:>12} {dev['recall_at_5']:>13.3f} {dev['mrr']:>8.3f} {dev['unrelated_injected']:>10.2f}"
            f" {held['recall_at_5']:>18.3f} {held['mrr']:>13.3f} {held['unrelated_injected']:>15.2f}"
            f"   (index {row['index_s']:.1f} s, {row['query_ms']:.1f} ms/query)"
        )
    if base is not None and len(rows) > 1:
        worst_dev = min(r["dev"]["recall_at_5"] for r in rows[1:]) - base["dev"]["recall_at_5"]
        worst_held = min(r["heldout"]["recall_at_5"] for r in rows[1:]) - base["heldout"]["recall_at_5"]
        lines.append(
            f"largest drop from the empty store: dev {worst_dev * 100:+.1f} points, held-out"
            f" {worst_held * 100:+.1f} points (target: within 5 points)"
        )
    return "\n".join(lines)
