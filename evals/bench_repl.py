"""REPL rendering benchmark: how much the front end costs per streamed answer, and how fast a piped session runs.

Run from the repository root: python -m evals.bench_repl [--chars N] [--delta N]
Figures: MarkdownBlocks throughput, EventRenderer cost per delta (plain and Markdown), the wall time of a
piped REPL session of 50 inputs against a backend that answers at once (front-end overhead only), and the
first turn (issue 13): a real `paicli` process (piped REPL) gets its first line `--typing` seconds after it
was started (the user typing), and we time that Enter -> the first request arriving at the loopback server,
with 200 memories stored (index saved by an earlier session) against an empty store. Target: <= 1.5x.
With `--typing 0` the line is there at start-up, so the first turn also waits for the whole warm-up.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import subprocess
import time
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from rich.console import Console

from paicli.agent.events import ModelCallStarted, RunFinished, TextDelta, ToolFinished, ToolStarted
from paicli.cli.render import EventRenderer, MarkdownBlocks
from paicli.cli.repl import run_repl
from paicli.config.run_values import MemoryValues
from paicli.testing.fake_backend import FakeBackend, events
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import paicli_env, start_paicli
from paicli.tools.base import ToolResult


def _answer(chars: int) -> str:
    para = "这是一段用来测量渲染开销的回答文字，其中有 **粗体**、`代码` 和 [链接](https://example.com)。\n\n"
    code = "```python\n" + "".join(f"value_{i} = compute({i})\n" for i in range(40)) + "```\n\n"
    text = ""
    while len(text) < chars:
        text += para * 3 + code
    return text[:chars]


def _deltas(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def bench_blocks(deltas: list[str]) -> float:
    start = time.perf_counter()
    blocks = MarkdownBlocks()
    for delta in deltas:
        blocks.feed(delta)
    blocks.flush()
    return time.perf_counter() - start


def bench_renderer(deltas: list[str], markdown: bool) -> float:
    out = Console(file=io.StringIO(), width=100, force_terminal=markdown)
    renderer = EventRenderer(out, Console(file=io.StringIO(), width=100), markdown=markdown)
    start = time.perf_counter()
    renderer(ModelCallStarted(1))
    for delta in deltas:
        renderer(TextDelta(delta))
    renderer(RunFinished("done", ""))
    return time.perf_counter() - start


def bench_piped_session(inputs: int) -> float:
    tool = events(
        ToolStarted("c", "read_file", '{"path": "a.py"}'),
        ToolFinished(ToolResult("c", "read_file", "x\n" * 50)),
        TextDelta("好的，已读取。"),
        result=RunFinished("done", "好的，已读取。"),
    )
    backend = FakeBackend(scripts=[tool] * inputs)
    lines = "".join(f"任务 {i}\n" if i % 5 else "/context\n" for i in range(inputs))
    with TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_repl(
            backend,
            input=io.StringIO(lines),
            output=io.StringIO(),
            interactive=False,
            history_file=Path(tmp) / "h",
            progress=Console(file=io.StringIO()),
        )
        return time.perf_counter() - start


FIRST_TASK = "部署方面有什么约定？"
FIRST_TURN_RUNS = 3


def _store_memories(home: Path, count: int) -> None:
    from paicli.config.env import EnvLookup
    from paicli.memory.entry import new_fact
    from paicli.memory.retriever import MemoryRetriever
    from paicli.memory.store import LongTermMemory
    from paicli.memory.vector_file import index_path_for

    env = EnvLookup(environ={})
    store = LongTermMemory(home / ".paicli" / "memory", MemoryValues.parse(env))
    topics = ("部署", "测试", "日志", "缓存", "接口", "发布", "监控", "数据库")
    for i in range(count):
        store.store(
            new_fact(f"{topics[i % len(topics)]}约定第 {i} 条：规则编号 {i * 7 % 101}", {"scope": "global"})
        )
    retriever = MemoryRetriever(store, MemoryValues.parse(env), index_path=index_path_for(store.path))
    retriever.warm_index()  # an earlier session built and saved the index...
    retriever.flush_index(60)
    import jieba

    cache = Path(jieba.dt.tmp_dir or "", jieba.dt.cache_file or "")
    if cache.is_file():  # ...and left jieba's dictionary cache in $PAICLI_HOME/cache, as every session does
        (home / ".paicli" / "cache").mkdir(parents=True, exist_ok=True)
        shutil.copy2(cache, home / ".paicli" / "cache" / "jieba.cache")


def first_turn_ms(memories: int, typing: float) -> float:
    """One fresh process: seconds from writing the first line to the first request reaching the server."""
    arrived: list[float] = []

    def responder(body: dict[str, Any]) -> str:
        if not arrived:
            arrived.append(time.monotonic())
        return "好的。"

    with TemporaryDirectory() as tmp, FakeOpenAIServer(responder=responder) as server:
        home, project = Path(tmp) / "home", Path(tmp) / "project"
        project.mkdir(parents=True)
        if memories:
            _store_memories(home, memories)
        env = paicli_env(home, server.base_url)
        proc = start_paicli([], env, project, stdin=subprocess.PIPE, output=subprocess.DEVNULL)
        assert proc.stdin is not None
        time.sleep(
            typing
        )  # the user typing the first message (a benchmark, not a test: wall time is the point)
        entered = time.monotonic()
        proc.stdin.write(FIRST_TASK + "\n")
        proc.stdin.flush()
        proc.stdin.write("/exit\n")
        proc.stdin.close()
        proc.wait(120)
        if not arrived:
            raise SystemExit("paicli sent no request")
    return (arrived[0] - entered) * 1000


def bench_first_turn(typing: float) -> tuple[float, float]:
    previous = os.environ.get("PAICLI_HOME")
    with TemporaryDirectory() as own_home:
        os.environ["PAICLI_HOME"] = own_home  # this process's jieba cache stays out of the real home
        try:
            empty = statistics.median(first_turn_ms(0, typing) for _ in range(FIRST_TURN_RUNS))
            stored = statistics.median(first_turn_ms(200, typing) for _ in range(FIRST_TURN_RUNS))
        finally:
            if previous is None:
                os.environ.pop("PAICLI_HOME", None)
            else:
                os.environ["PAICLI_HOME"] = previous
    return empty, stored


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chars", type=int, default=50_000)
    parser.add_argument("--delta", type=int, default=4, help="characters per streamed delta")
    parser.add_argument(
        "--typing", type=float, default=8.0, help="seconds between start-up and the first Enter"
    )
    args = parser.parse_args()
    deltas = _deltas(_answer(args.chars), args.delta)
    blocks = bench_blocks(deltas)
    plain = bench_renderer(deltas, markdown=False)
    rich_md = bench_renderer(deltas, markdown=True)
    session = bench_piped_session(50)
    n = len(deltas)
    print(f"answer: {args.chars} chars in {n} deltas of {args.delta}")
    print(f"MarkdownBlocks: {blocks * 1000:.1f} ms total, {blocks / n * 1e6:.2f} us/delta")
    print(f"EventRenderer plain (piped): {plain * 1000:.1f} ms total, {plain / n * 1e6:.2f} us/delta")
    print(
        f"EventRenderer markdown (terminal): {rich_md * 1000:.1f} ms total, {rich_md / n * 1e6:.2f} us/delta"
    )
    print(f"piped REPL session, 50 inputs (40 tasks with a tool call, 10 /context): {session * 1000:.1f} ms")
    for typing in sorted({args.typing, 0.0}, reverse=True):
        empty, stored = bench_first_turn(typing)
        verdict = ("met" if stored <= 1.5 * empty else "NOT met") if typing == args.typing else "(worst case)"
        print(
            f"first Enter -> first request, Enter {typing:.1f} s after start-up (median of {FIRST_TURN_RUNS} "
            f"processes): empty store {empty:.0f} ms, 200 memories {stored:.0f} ms = {stored / empty:.2f}x; "
            f"target <= 1.5x {verdict}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
