"""Long-term memory benchmark: the store as it grows (100/1k/10k/50k memories: query p50, `/save`, `-p` CPU and
peak RSS against 100 memories; see evals/memory_scale.py), write throughput (1 and 8 processes), load and
search time at 1k/10k entries, and retrieval (`build_context`) in a fresh process at 10k entries: the first
query and the query right after a save, against the p50 (see evals/retrieval/fresh.py).

Run from the repository root: `python -m evals.bench_memory [--writes N] [--sizes 100,1000,10000,50000]
[--scale-only]`. Everything happens in a temp dir.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from evals import memory_scale
from evals.retrieval import fresh
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.context.estimate import estimate_tokens
from paicli.memory.entry import MemoryEntry, new_fact
from paicli.memory.locked_file import render_json
from paicli.memory.store import FILE_NAME, LongTermMemory

TOPICS = ("Java", "Python", "Gradle", "Maven", "pytest", "Docker", "Redis", "Kafka", "React", "Chrome")
VERBS = (
    "项目使用",
    "构建依赖",
    "测试命令是",
    "默认端口",
    "部署环境用",
    "代码风格遵循",
    "日志输出到",
    "缓存采用",
)
QUERIES = ("java 构建", "测试命令", "部署 docker 环境", "用户偏好中文回答", "kotlin")


def _env() -> EnvLookup:
    return EnvLookup(environ={})


def _fact(i: int, tag: str = "") -> MemoryEntry:
    return new_fact(
        f"{VERBS[i % len(VERBS)]} {TOPICS[i % len(TOPICS)]} 第{tag}{i}号约定", {"scope": "global"}
    )


def writer_main(directory: str, tag: str, count: int) -> None:
    store = LongTermMemory(directory, MemoryValues.parse(_env()), lock_timeout=120)
    start = time.time()
    for i in range(count):
        store.store(_fact(i, tag))
    print(json.dumps({"start": start, "end": time.time()}))


def bench_single(writes: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        store = LongTermMemory(tmp, MemoryValues.parse(_env()))
        start = time.perf_counter()
        for i in range(writes):
            store.store(_fact(i))
        elapsed = time.perf_counter() - start
    return writes / elapsed


def bench_processes(processes: int, writes_each: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "evals.bench_memory", "--writer", tmp, f"p{n}-", str(writes_each)],
                stdout=subprocess.PIPE,
                text=True,
            )
            for n in range(processes)
        ]
        spans = [json.loads(proc.communicate()[0]) for proc in procs]
        if any(proc.returncode != 0 for proc in procs):
            raise SystemExit("a writer process failed")
        stored = LongTermMemory(tmp, MemoryValues.parse(_env())).size()
        if stored != processes * writes_each:
            raise SystemExit(f"expected {processes * writes_each} entries, found {stored}")
    elapsed = max(s["end"] for s in spans) - min(s["start"] for s in spans)
    return processes * writes_each / elapsed


def _synthetic(count: int) -> list[MemoryEntry]:
    base = datetime(2026, 9, 1, tzinfo=timezone.utc)
    entries = []
    for i in range(count):
        content = f"{VERBS[i % len(VERBS)]} {TOPICS[(i // 8) % len(TOPICS)]} 版本 {i % 97} 的第 {i} 条规则"
        scope = (
            {"source": "fact", "scope": "project", "project": f"/repo/{i % 5}"}
            if i % 3
            else {"scope": "global"}
        )
        moment = base + timedelta(minutes=i)
        entries.append(
            MemoryEntry(
                id=f"fact-{i:08x}",
                content=content,
                timestamp=moment,
                last_verified_at=moment,
                metadata=scope,
                token_count=estimate_tokens(content),
            )
        )
    return entries


def bench_load_search(count: int) -> tuple[float, float, float, float]:
    """(load ms, mean search ms, first explicit write ms, mean of the next 5) with `count` entries."""
    with tempfile.TemporaryDirectory() as tmp:
        Path(tmp, FILE_NAME).write_text(render_json(_synthetic(count)), encoding="utf-8")
        start = time.perf_counter()
        store = LongTermMemory(tmp, MemoryValues.parse(_env()))
        load_ms = (time.perf_counter() - start) * 1000
        assert store.size() == count
        store.search("预热 jieba", 1)
        timings = []
        for _ in range(3):
            for query in QUERIES:
                start = time.perf_counter()
                store.search(query, 20, "/repo/1")
                timings.append((time.perf_counter() - start) * 1000)
        writes = []
        for i in range(6):
            start = time.perf_counter()
            store.write(_fact(count + i, "new"))  # explicit path: dedup + conflict check + full rewrite
            writes.append((time.perf_counter() - start) * 1000)
    return load_ms, statistics.mean(timings), writes[0], statistics.mean(writes[1:])


STORED_TARGET = 1.25


def bench_stored_two(runs: int, task: str = "你好") -> str:
    """`paicli -p <task>` with 2 stored memories against the same run with an empty store, side by side in
    interleaved pairs (CPU, wall, peak RSS): what the memory machinery costs a run that barely needs it. A task
    with a Han character needs jieba's segmentation of the query (from the prefix file saved on the first run,
    not the whole dictionary); one without (`hello`) needs no jieba at all."""
    import os

    from evals.sidebyside import bytecode_env, compile_sources, pairs
    from paicli.testing.openai_server import FakeOpenAIServer

    compile_sources(str(Path(__file__).resolve().parents[1] / "src"))
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(default_reply="好的，完成。") as server:
        project = Path(tmp) / "project"
        project.mkdir()
        base = bytecode_env(
            {k: v for k, v in os.environ.items() if not k.startswith(("PAICLI_", "OPENAI_", "DEEPSEEK_"))}
        )
        envs = []
        for name, facts in (("stored", 2), ("empty", 0)):
            home = Path(tmp) / name
            env = {
                **base,
                "HOME": str(home),
                "PAICLI_HOME": str(home / ".paicli"),
                "PAICLI_BASE_URL": server.base_url,
                "PAICLI_MODEL": "fake-model",
                "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
            }
            store = LongTermMemory(home / ".paicli" / "memory", MemoryValues.parse(EnvLookup(environ=env)))
            for i in range(facts):
                store.store(_fact(i))
            envs.append(env)
        cmd = [sys.executable, "-m", "paicli", "-p", task]
        measured = pairs(cmd, cmd, envs[0], str(project), runs, env_b=envs[1])
    ratio = measured.ratio("cpu")
    return (
        measured.line(f"-p {task} with 2 stored memories", "with an empty store")
        + f"\n  CPU ratio {ratio:.2f}x  target <= {STORED_TARGET}x -> {'met' if ratio <= STORED_TARGET else 'NOT met'}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--writes", type=int, default=200, help="writes for the single-process run")
    parser.add_argument("--runs", type=int, default=6, help="interleaved pairs for the 2-memories row")
    parser.add_argument("--writer", nargs=3, metavar=("DIR", "TAG", "COUNT"), help=argparse.SUPPRESS)
    parser.add_argument("--prime", nargs=2, metavar=("DIR", "PROJECT"), help=argparse.SUPPRESS)
    parser.add_argument("--measure", nargs=2, metavar=("DIR", "PROJECT"), help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="100,1000,10000,50000", help="store sizes for the growth figures")
    parser.add_argument("--scale-only", action="store_true", help="only the growth figures")
    args = parser.parse_args(argv)
    if args.writer:
        writer_main(args.writer[0], args.writer[1], int(args.writer[2]))
        return 0
    if args.prime:
        memory_scale.prime(*args.prime)
        return 0
    if args.measure:
        print(json.dumps(memory_scale.measure(*args.measure)))
        return 0
    print(
        "the store as it grows (targets at 50k: query p50 <= 30 ms, /save <= 50 ms, -p CPU <= 1.3x and peak"
    )
    print("RSS growth <= 100 MiB against 100 memories)")
    memory_scale.bench([int(s) for s in args.sizes.split(",") if s.strip()], args.runs)
    if args.scale_only:
        return 0
    for task in ("你好", "hello"):
        print(bench_stored_two(args.runs, task))
    print(f"write throughput, 1 process:   {bench_single(args.writes):8.1f} writes/s ({args.writes} writes)")
    print(
        f"write throughput, 8 processes: {bench_processes(8, 50):8.1f} writes/s (8 x 50 writes, all on disk)"
    )
    for count in (1_000, 10_000):
        load_ms, search_ms, first_ms, next_ms = bench_load_search(count)
        print(
            f"{count:>6} entries: load {load_ms:7.1f} ms | search {search_ms:6.2f} ms/query (mean of 15) "
            f"| explicit write {first_ms:6.1f} ms first, {next_ms:6.1f} ms next (mean of 5)"
        )
    print(fresh.describe(fresh.measure(_synthetic(10_000), QUERIES, "/repo/1")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
