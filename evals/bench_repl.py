"""REPL rendering benchmark: how much the front end costs per streamed answer, and how fast a piped session runs.

Run from the repository root: python -m evals.bench_repl [--chars N] [--delta N]
Figures: MarkdownBlocks throughput, EventRenderer cost per delta (plain and Markdown), and the wall time of a
piped REPL session of 50 inputs against a backend that answers at once (front-end overhead only).
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path
from tempfile import TemporaryDirectory

from rich.console import Console
from tests.cli.fake_backend import FakeBackend, events

from paicli.agent.events import ModelCallStarted, RunFinished, TextDelta, ToolFinished, ToolStarted
from paicli.cli.render import EventRenderer, MarkdownBlocks
from paicli.cli.repl import run_repl
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
    tool = events(ToolStarted("c", "read_file", '{"path": "a.py"}'), ToolFinished(ToolResult("c", "read_file", "x\n" * 50)),
                  TextDelta("好的，已读取。"), result=RunFinished("done", "好的，已读取。"))
    backend = FakeBackend(scripts=[tool] * inputs)
    lines = "".join(f"任务 {i}\n" if i % 5 else "/context\n" for i in range(inputs))
    with TemporaryDirectory() as tmp:
        start = time.perf_counter()
        run_repl(backend, input=io.StringIO(lines), output=io.StringIO(), interactive=False,
                 history_file=Path(tmp) / "h", progress=Console(file=io.StringIO()))
        return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chars", type=int, default=50_000)
    parser.add_argument("--delta", type=int, default=4, help="characters per streamed delta")
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
    print(f"EventRenderer markdown (terminal): {rich_md * 1000:.1f} ms total, {rich_md / n * 1e6:.2f} us/delta")
    print(f"piped REPL session, 50 inputs (40 tasks with a tool call, 10 /context): {session * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
