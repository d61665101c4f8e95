"""The memory store as it grows (issue 49): 100 / 1k / 10k / 50k memories, each figure measured in one run.

A store of N memories is the retrieval eval's 208 labelled facts (this project's) plus look-alike distractors
(`evals.retrieval.lookalike`: other projects' global facts, other components, other projects' own facts),
written as `long_term_memory.json`. An earlier process opens it once (as the session before would: the
snapshot of the parsed file and the vector index get saved). Then, per size:

- in a fresh process: opening the store, the start-up warm-up (index from disk), the query p50/p95 of
  `build_context` over the eval's queries, `/save` (`MemoryManager.store_fact`, median of 9 saves, and the
  first one alone) and the first query after a save;
- `paicli -p <question>` against a loopback model that answers at once, N memories against 100, in
  interleaved pairs: CPU and peak RSS (targets at 50k: CPU <= 1.3x, peak growth <= 100 MiB).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evals.retrieval.lookalike import distractors
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.entry import MemoryEntry, normalize_project_key
from paicli.memory.locked_file import render_json
from paicli.memory.manager import MemoryManager
from paicli.memory.store import FILE_NAME, LongTermMemory

SIZES = (100, 1_000, 10_000, 50_000)
DATASET = Path(__file__).with_name("retrieval") / "dataset.json"
TASK = "数据库连接池最多能开多少个连接？"
SAVES = 9


def store_entries(size: int, project: str) -> list[MemoryEntry]:
    data = json.loads(DATASET.read_text(encoding="utf-8"))
    now = datetime.now(timezone.utc)
    facts = [
        MemoryEntry(
            id=f"fact-{i:08x}",
            content=m["content"],
            timestamp=now,
            last_verified_at=now,
            metadata={"source": "fact", "scope": "project", "project": project},
            token_count=len(m["content"]) // 2,
        )
        for i, m in enumerate(data["memories"])
    ]
    if size <= len(facts):
        return facts[:size]
    return facts + distractors([(f.id, f.content) for f in facts], size - len(facts), project, now=now)


def _queries() -> list[str]:
    data = json.loads(DATASET.read_text(encoding="utf-8"))
    return [q["query"] for q in data["queries"]]


def _ms(start: float) -> float:
    return (time.perf_counter() - start) * 1000


class _Clock:
    """Wall time and this thread's CPU time of one step (the CPU figure does not grow with the machine's load;
    background work such as the fold or the index save runs on other threads)."""

    def __enter__(self) -> _Clock:
        self.wall, self.cpu = time.perf_counter(), time.thread_time()
        return self

    def __exit__(self, *_: object) -> None:
        self.wall = (time.perf_counter() - self.wall) * 1000
        self.cpu = (time.thread_time() - self.cpu) * 1000


def prime(directory: str, project: str) -> None:
    """What the session before leaves behind: the snapshot and the index, saved (run in its own process)."""
    env = EnvLookup(environ={})
    manager = MemoryManager(
        LongTermMemory(directory, MemoryValues.parse(env)), project, MemoryValues.parse(env)
    )
    manager.warm_index()
    manager.context_for_query(_queries()[0], 2000)
    manager.flush_index(300)
    manager.store.folder.flush(300)


def measure(directory: str, project: str) -> dict[str, Any]:
    """Timings in a fresh process (run in its own process)."""
    env = EnvLookup(environ={})
    start = time.perf_counter()
    store = LongTermMemory(directory, MemoryValues.parse(env))
    open_ms = _ms(start)
    manager = MemoryManager(store, project, MemoryValues.parse(env))
    start = time.perf_counter()
    manager.warm_tokenizer()
    manager.warm_index()
    warm_ms = _ms(start)
    queries = _queries()
    samples: list[tuple[float, float]] = []
    for _ in range(2):
        for query in queries:
            with _Clock() as step:
                manager.context_for_query(query, 2000)
            samples.append((step.wall, step.cpu))
    saves: list[tuple[float, float]] = []
    after: list[tuple[float, float]] = []
    for i in range(SAVES):
        with _Clock() as step:
            result = manager.store_fact(f"基准测试第 {i} 次保存：预发环境的告警阈值调到 {80 + i}%")
        saves.append((step.wall, step.cpu))
        if not result.written:
            raise SystemExit(f"save {i} was not stored: {result.status}")
        with _Clock() as step:
            manager.context_for_query(queries[i], 2000)
        after.append((step.wall, step.cpu))
    manager.flush_index(300)
    store.folder.flush(300)
    walls = sorted(w for w, _ in samples)
    return {
        "memories": store.size(),
        "open_ms": open_ms,
        "warm_ms": warm_ms,
        "p50_ms": walls[len(walls) // 2],
        "p95_ms": walls[int(len(walls) * 0.95)],
        "p50_cpu_ms": statistics.median(c for _, c in samples),
        "save_first_ms": saves[0][0],
        "save_ms": statistics.median(w for w, _ in saves),
        "save_cpu_ms": statistics.median(c for _, c in saves),
        "after_save_ms": statistics.median(w for w, _ in after),
        "after_save_cpu_ms": statistics.median(c for _, c in after),
        "snapshot": store.loaded_from_snapshot,
    }


def _run(role: str, directory: Path, project: str) -> dict[str, Any]:
    args = [sys.executable, "-m", "evals.bench_memory", f"--{role}", str(directory), project]
    proc = subprocess.run(args, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{role} failed:\n{proc.stderr}")
    lines = proc.stdout.strip().splitlines()
    return json.loads(lines[-1]) if lines else {}


def _home(root: Path, size: int, project: str, base: dict[str, str], url: str) -> dict[str, str]:
    home = root / f"home-{size}"
    memory = home / ".paicli" / "memory"
    memory.mkdir(parents=True)
    (memory / FILE_NAME).write_text(render_json(store_entries(size, project)), encoding="utf-8")
    return {
        **base,
        "HOME": str(home),
        "PAICLI_HOME": str(home / ".paicli"),
        "PAICLI_BASE_URL": url,
        "PAICLI_MODEL": "fake-model",
        "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
    }


def bench(sizes: Sequence[int] = SIZES, runs: int = 4) -> list[str]:
    from evals.sidebyside import bytecode_env, compile_sources, pairs
    from paicli.testing.openai_server import FakeOpenAIServer

    compile_sources(str(Path(__file__).resolve().parents[1] / "src"))
    lines = []
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAIServer(default_reply="好的。") as server:
        root = Path(tmp)
        project_dir = root / "project"
        project_dir.mkdir()
        project = normalize_project_key(project_dir)
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("PAICLI_", "OPENAI_", "DEEPSEEK_"))}
        base = bytecode_env(clean)
        homes = {size: _home(root, size, project, base, server.base_url) for size in sorted({100, *sizes})}
        cmd = [sys.executable, "-m", "paicli", "-p", TASK]
        for size, env in homes.items():
            memory_dir = Path(env["PAICLI_HOME"]) / "memory"
            _run("prime", memory_dir, project)
            figures = _run("measure", memory_dir, project)
            line = (
                f"{size:>6} memories (load average {os.getloadavg()[0]:.1f}): open {figures['open_ms']:.0f} ms"
                f" (snapshot: {figures['snapshot']}), warm-up {figures['warm_ms']:.0f} ms\n"
                f"        query p50 {figures['p50_ms']:.1f} ms wall / {figures['p50_cpu_ms']:.1f} ms CPU,"
                f" p95 {figures['p95_ms']:.1f} ms | /save {figures['save_ms']:.1f} ms wall /"
                f" {figures['save_cpu_ms']:.1f} ms CPU (median of {SAVES}; the first {figures['save_first_ms']:.0f} ms)"
                f" | next query {figures['after_save_ms']:.1f} ms wall / {figures['after_save_cpu_ms']:.1f} ms CPU"
            )
            if size != 100:
                measured = pairs(cmd, cmd, env, str(project_dir), runs, env_b=homes[100])
                growth = measured.median("a", "peak_mib") - measured.median("b", "peak_mib")
                line += (
                    f"\n        -p CPU {measured.median('a', 'cpu'):.3f} s vs {measured.median('b', 'cpu'):.3f} s"
                    f" with 100 ({measured.ratio('cpu'):.2f}x), peak RSS {measured.median('a', 'peak_mib'):.0f}"
                    f" vs {measured.median('b', 'peak_mib'):.0f} MiB (+{growth:.0f} MiB; median of {runs} pairs)"
                )
            lines.append(line)
            print(line, flush=True)
    return lines
