"""Retrieval eval: recall@5 and MRR for keyword-only (the reference) vs keyword + local vector, and latency.

Run from the repository root: `python -m evals.retrieval [--dataset FILE] [--json]`.
Latency is measured on the full `build_context` path with a warm index, at 1k and 10k memories
synthesised deterministically from the labelled set.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from evals.retrieval import fresh, scale
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.context.estimate import estimate_tokens
from paicli.memory.entry import MemoryEntry
from paicli.memory.retriever import MemoryRetriever

DATASET = Path(__file__).with_name("dataset.json")
HELDOUT = Path(__file__).with_name("heldout.json")
K = 5
SEED = 20260923
MODULES = [
    "订单",
    "支付",
    "用户",
    "搜索",
    "报表",
    "网关",
    "库存",
    "物流",
    "客服",
    "营销",
    "风控",
    "结算",
    "billing",
    "catalog",
    "checkout",
    "identity",
    "inventory",
    "ledger",
    "notify",
    "pricing",
]


@dataclass(frozen=True)
class Entry:
    id: str
    content: str
    timestamp: datetime
    last_verified_at: datetime
    token_count: int
    metadata: dict[str, str] = field(default_factory=dict)
    type: str = "FACT"


class ListStore:
    def __init__(self, entries: Sequence[Entry]) -> None:
        self.entries = list(entries)

    def get_all(self, project_key: str) -> list[Entry]:
        return self.entries


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def make_entries(memories: Sequence[dict[str, Any]], now: datetime) -> list[Entry]:
    """Entries in a shuffled (seeded) store order, so ties are not broken by how the set was written."""
    entries = []
    for memory in random.Random(SEED).sample(list(memories), len(memories)):
        stamp = now - timedelta(hours=int(memory["age_hours"]))
        entries.append(
            Entry(memory["id"], memory["content"], stamp, stamp, estimate_tokens(memory["content"]))
        )
    return entries


def synthesize(entries: Sequence[Entry], size: int) -> list[Entry]:
    """The labelled entries followed by deterministic variants tagged with module names and numbers."""
    result = list(entries)
    i = 0
    while len(result) < size:
        base = entries[i % len(entries)]
        module = MODULES[(i // len(entries)) % len(MODULES)]
        content = f"[{module}-{i // (len(entries) * len(MODULES)) + 1}] {base.content}"
        stamp = base.timestamp - timedelta(hours=i % 97)
        result.append(Entry(f"{base.id}#{i}", content, stamp, stamp, estimate_tokens(content)))
        i += 1
    return result


def retriever(entries: Sequence[Entry] | ListStore, vector: bool, now: datetime) -> MemoryRetriever:
    environ = {"PAICLI_MEMORY_VECTOR": "on" if vector else "off"}
    store = entries if isinstance(entries, ListStore) else ListStore(entries)
    return MemoryRetriever(
        store, MemoryValues.parse(EnvLookup(environ=environ)), clock=lambda: now, zone=timezone.utc
    )


def quality(
    data: dict[str, Any], vector: bool, queries: Sequence[dict[str, Any]] | None = None
) -> dict[str, Any]:
    now = datetime.fromisoformat(data["now"].replace("Z", "+00:00"))
    entries = make_entries(data["memories"], now)
    ranker = retriever(entries, vector, now)
    per_kind: dict[str, list[tuple[float, float]]] = {}
    noise: list[int] = []
    for query in data["queries"] if queries is None else queries:
        ranked = [item.entry.id for item in ranker.rank(query["query"], entries, now)][:10]
        relevant = set(query["relevant"])
        if not relevant:
            noise.append(len(ranked))
            continue
        recall = len(relevant & set(ranked[:K])) / len(relevant)
        first = next((pos for pos, entry_id in enumerate(ranked, 1) if entry_id in relevant), None)
        per_kind.setdefault(query["kind"], []).append((recall, 1.0 / first if first else 0.0))
    rows = [pair for pairs in per_kind.values() for pair in pairs]
    return {
        "recall_at_5": statistics.fmean(r for r, _ in rows),
        "mrr": statistics.fmean(m for _, m in rows),
        "unrelated_injected": statistics.fmean(noise) if noise else 0.0,
        "by_kind": {
            kind: {
                "n": len(p),
                "recall_at_5": statistics.fmean(r for r, _ in p),
                "mrr": statistics.fmean(m for _, m in p),
            }
            for kind, p in per_kind.items()
        },
    }


def latency(data: dict[str, Any], size: int, vector: bool, rounds: int = 3) -> dict[str, float]:
    now = datetime.fromisoformat(data["now"].replace("Z", "+00:00"))
    store = ListStore(synthesize(make_entries(data["memories"], now), size))
    ranker = retriever(store, vector, now)
    queries = [q["query"] for q in data["queries"]]
    started = time.perf_counter()
    ranker.build_context(queries[0], 1000, "/repo")
    build_ms = (time.perf_counter() - started) * 1000
    samples = []
    for _ in range(rounds):
        for query in queries:
            started = time.perf_counter()
            ranker.build_context(query, 1000, "/repo")
            samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    stamp = now - timedelta(hours=1)
    store.entries.append(Entry("new-fact", "新保存的一条记忆：发布窗口改到周三", stamp, stamp, 12))
    started = time.perf_counter()
    ranker.build_context(queries[0], 1000, "/repo")
    rebuild_ms = (time.perf_counter() - started) * 1000
    return {
        "memories": size,
        "first_query_ms": build_ms,
        "after_save_ms": rebuild_ms,
        "p50_ms": samples[len(samples) // 2],
        "p95_ms": samples[min(len(samples) - 1, int(len(samples) * 0.95))],
        "samples": len(samples),
    }


def memory_entries(data: dict[str, Any], size: int) -> list[MemoryEntry]:
    """The synthesised set as stored memories (global scope), for the fresh-process measurement."""
    now = datetime.fromisoformat(data["now"].replace("Z", "+00:00"))
    return [
        MemoryEntry(
            id=e.id,
            content=e.content,
            type="FACT",
            timestamp=e.timestamp,
            last_verified_at=e.last_verified_at,
            metadata={"scope": "global"},
            token_count=e.token_count,
        )
        for e in synthesize(make_entries(data["memories"], now), size)
    ]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.retrieval", description=__doc__)
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--json", action="store_true", help="print one JSON object as the last line")
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated memory counts for latency")
    parser.add_argument(
        "--scale",
        default="0,1000,10000,50000",
        help="comma-separated look-alike distractor counts for recall at scale ('' to skip)",
    )
    parser.add_argument("--quality-only", action="store_true", help="skip the latency measurements")
    args = parser.parse_args(argv)
    data = load(args.dataset)
    heldout = load(HELDOUT)
    print(
        f"dataset: {len(data['memories'])} memories, {len(data['queries'])} dev queries,"
        f" {len(heldout['queries'])} held-out queries"
    )
    results: dict[str, Any] = {
        "keyword": quality(data, False),
        "keyword_vector": quality(data, True),
        "heldout_keyword": quality(data, False, heldout["queries"]),
        "heldout_keyword_vector": quality(data, True, heldout["queries"]),
    }
    print(f"{'scorer':<27}{'recall@5':>10}{'MRR':>8}{'unrelated: entries injected':>30}")
    for name, label in (
        ("keyword", "dev keyword-only"),
        ("keyword_vector", "dev keyword+vector"),
        ("heldout_keyword", "held-out keyword-only"),
        ("heldout_keyword_vector", "held-out keyword+vector"),
    ):
        row = results[name]
        print(f"{label:<27}{row['recall_at_5']:>10.3f}{row['mrr']:>8.3f}{row['unrelated_injected']:>30.2f}")
    print("by query kind (keyword-only -> keyword+vector):")
    for kind, base in results["keyword"]["by_kind"].items():
        new = results["keyword_vector"]["by_kind"][kind]
        print(
            f"  {kind:<16} n={base['n']:<3} recall@5 {base['recall_at_5']:.3f} -> {new['recall_at_5']:.3f}"
            f"   MRR {base['mrr']:.3f} -> {new['mrr']:.3f}"
        )
    sizes = [int(s) for s in args.scale.split(",") if s.strip()]
    if sizes:
        results["scale"] = scale.measure(data, heldout, sizes)
        print(scale.describe(results["scale"]))
    if args.quality_only:
        if args.json:
            print(json.dumps(results, ensure_ascii=False))
        return 0
    results["latency"] = []
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        for vector in (False, True):
            figures = latency(data, size, vector)
            figures["vector"] = vector
            results["latency"].append(figures)
            label = "keyword+vector" if vector else "keyword-only"
            print(
                f"latency {size:>6} memories {label:<15} p50 {figures['p50_ms']:7.2f} ms   "
                f"p95 {figures['p95_ms']:7.2f} ms   first query {figures['first_query_ms']:7.1f} ms"
                f"   first query after a save {figures['after_save_ms']:7.1f} ms"
            )
    results["fresh_process"] = []
    for size in (int(s) for s in args.sizes.split(",") if s.strip()):
        figures = fresh.measure(memory_entries(data, size), [q["query"] for q in data["queries"]], "/repo")
        results["fresh_process"].append(figures)
        print(fresh.describe(figures))
    if args.json:
        print(json.dumps(results, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
