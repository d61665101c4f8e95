"""Retrieval latency as a new paicli process sees it: the memory file and its saved vector index on disk.

`measure(entries, queries, project)` writes the entries as `long_term_memory.json` in a temp dir and runs:
1. a "prime" process that queries once (building and saving the index, as an earlier session would);
2. a fresh process that does what paicli's start-up warm-up does while the user types (jieba dictionary,
   then the index: loaded from disk, synced with the file; both timed), then times the first query, the
   p50/p95 of the following queries, and the query right after an explicit save (median of 9 cycles);
3. a fresh process with only the dictionary warmed: its first query also loads the index from disk
   (what a first turn costs when typed before the warm-up got to the index).
Run as a module only by `measure` (`python -m evals.retrieval.fresh DIR PROJECT QUERIES_JSON MODE`).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.entry import MemoryEntry, new_fact
from paicli.memory.locked_file import render_json
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.store import FILE_NAME, LongTermMemory
from paicli.memory.vector_file import index_path_for

ROUNDS = 3
SAVED_TOPICS = (
    "发布窗口改到周三晚上",
    "预发环境的数据库每周日重置",
    "告警群换成了值班群",
    "接口超时统一调到 5 秒",
    "前端构建改用 pnpm",
    "日志保留期延长到 90 天",
    "代码评审需要两人通过",
    "缓存键前缀改为 svc:",
    "压测只在周末进行",
)
SAVES = 9  # save -> query cycles; their median is reported (one sample is at the mercy of a GC pass)


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def _percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def run_process(directory: Path, project: str, queries: Sequence[str], mode: str) -> dict[str, Any]:
    env = EnvLookup(environ={})
    store = LongTermMemory(directory, MemoryValues.parse(env))
    retriever = MemoryRetriever(store, MemoryValues.parse(env), index_path=index_path_for(store.path))
    start = time.perf_counter()
    retriever.warm_tokenizer()
    dictionary_ms = _ms(start)
    start = time.perf_counter()
    if mode == "warm":
        retriever.warm_index(project)
    index_ms = _ms(start)
    start = time.perf_counter()
    retriever.build_context(queries[0], 1000, project)
    first_ms = _ms(start)
    if mode != "warm":
        retriever.flush_index(120)
        return {"first_query_ms": first_ms, "index_builds": retriever.index_builds}
    samples = []
    for _ in range(ROUNDS):
        for query in queries:
            start = time.perf_counter()
            retriever.build_context(query, 1000, project)
            samples.append(_ms(start))
    memories = store.size()
    after_saves = []
    for i in range(SAVES):
        fact = new_fact(
            f"新保存的第 {i + 1} 条记忆：{SAVED_TOPICS[i % len(SAVED_TOPICS)]}", {"scope": "global"}
        )
        if not store.write(fact, allow_conflict=True).written:  # every cycle must really add a memory
            raise SystemExit(f"save {i + 1} was not stored")
        start = time.perf_counter()
        retriever.build_context(queries[i % len(queries)], 1000, project)
        after_saves.append(_ms(start))
    after_save_ms = statistics.median(after_saves)
    return {
        "memories": memories,
        "after_save_max_ms": max(after_saves),
        "dictionary_ms": dictionary_ms,
        "index_ms": index_ms,
        "first_query_ms": first_ms,
        "p50_ms": _percentile(samples, 0.5),
        "p95_ms": _percentile(samples, 0.95),
        "samples": len(samples),
        "after_save_ms": after_save_ms,
        "index_builds": retriever.index_builds,
        "index_updates": retriever.index_updates,
    }


def _spawn(directory: Path, project: str, queries: Sequence[str], mode: str) -> dict[str, Any]:
    args = [
        sys.executable,
        "-m",
        "evals.retrieval.fresh",
        str(directory),
        project,
        json.dumps(list(queries)),
        mode,
    ]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"fresh-process measurement failed:\n{proc.stderr}")
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def measure(entries: Sequence[MemoryEntry], queries: Sequence[str], project: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, FILE_NAME).write_text(render_json(list(entries)), encoding="utf-8")
        primed = _spawn(Path(tmp), project, queries, "prime")
        cold = _spawn(Path(tmp), project, queries, "cold-index")
        figures = _spawn(Path(tmp), project, queries, "warm")
    figures["build_ms"] = primed["first_query_ms"]
    figures["cold_index_first_ms"] = cold["first_query_ms"]
    figures["cold_index_builds"] = cold["index_builds"]
    figures["first_ratio"] = figures["first_query_ms"] / figures["p50_ms"]
    figures["after_save_ratio"] = figures["after_save_ms"] / figures["p50_ms"]
    return figures


def describe(figures: dict[str, Any]) -> str:
    cold_ratio = figures["cold_index_first_ms"] / figures["p50_ms"]
    return (
        f"fresh process, {figures['memories']} memories: p50 {figures['p50_ms']:.2f} ms, p95 {figures['p95_ms']:.2f} ms\n"
        f"  first query after the start-up warm-up {figures['first_query_ms']:7.1f} ms ({figures['first_ratio']:.2f}x p50,"
        f" target <= 3x); warm-up itself: jieba dictionary {figures['dictionary_ms']:.1f} ms, index from disk"
        f" {figures['index_ms']:.1f} ms\n"
        f"  first query after a save              {figures['after_save_ms']:7.1f} ms ({figures['after_save_ratio']:.2f}x p50,"
        f" target <= 2x; median of {SAVES} save->query cycles, max {figures['after_save_max_ms']:.1f} ms;"
        f" {figures['index_updates']} index updates, {figures['index_builds']} full builds)\n"
        f"  first query loading the index itself  {figures['cold_index_first_ms']:7.1f} ms ({cold_ratio:.2f}x p50;"
        f" only the dictionary warmed, {figures['cold_index_builds']} full builds)\n"
        f"  index built from nothing by an earlier process (once per memory file) {figures['build_ms']:.1f} ms"
    )


def main(argv: Sequence[str]) -> int:
    directory, project, queries = Path(argv[0]), argv[1], json.loads(argv[2])
    print(json.dumps(run_process(directory, project, queries, argv[3])))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
