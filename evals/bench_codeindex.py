"""Code intelligence benchmark (issue 46): index build time and size for a generated 10k-file project, the
incremental refresh after 3 changed files, search_code's median latency, the language server's diagnostics
latency after an edit, and the golden set's recall@5 (evals/codesearch).

Run from the repository root: python -m evals.bench_codeindex [--files N] [--searches N]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from evals.codesearch.score import cases, golden_index, recall
from paicli.codeindex.indexer import CodeIndex
from paicli.codeindex.tool import SearchCodeTool
from paicli.config.code_values import LspValues
from paicli.lsp.servers import server_env
from paicli.lsp.session import LspSession

VERBS = [
    "load",
    "save",
    "parse",
    "render",
    "fetch",
    "update",
    "delete",
    "compute",
    "validate",
    "merge",
    "split",
    "send",
    "receive",
    "build",
]
NOUNS = [
    "user",
    "order",
    "cart",
    "invoice",
    "report",
    "config",
    "token",
    "session",
    "cache",
    "queue",
    "payment",
    "product",
    "image",
    "event",
]
CHINESE = ["解析配置", "发送邮件", "计算价格", "更新缓存", "校验用户", "生成报表", "处理订单"]


def _function(rng: random.Random, index: int) -> str:
    verb, noun, other = rng.choice(VERBS), rng.choice(NOUNS), rng.choice(NOUNS)
    note = rng.choice(CHINESE) if rng.random() < 0.2 else f"{verb.title()} the {noun} for its {other}."
    return (
        f"def {verb}_{noun}_{index}(value, {other}_id):\n"
        f'    """{note}"""\n'
        f"    result = {rng.choice(VERBS)}_{other}(value)\n"
        f"    if result is None:\n"
        f"        raise ValueError('{noun} {index} missing')\n"
        f"    return {{'{noun}': result, 'id': {other}_id}}\n"
    )


def generate(root: Path, files: int, seed: int = 46) -> None:
    """`files` Python modules in folders of 100, five functions and a class each (about 2 KB a file)."""
    rng = random.Random(seed)
    for number in range(files):
        folder = root / f"pkg{number // 100:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        parts = [f'"""Module {number}."""\n', "import os\n"]
        parts.extend(_function(rng, number * 10 + k) for k in range(5))
        noun = rng.choice(NOUNS)
        parts.append(
            f"class {noun.title()}Store{number}:\n    def get(self, key):\n        return os.environ.get(key)\n"
        )
        (folder / f"mod{number:05d}.py").write_text("\n\n".join(parts), encoding="utf-8")


def bench_index(files: int, searches: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, home = Path(tmp) / "project", Path(tmp) / "home"
        generate(root, files)
        index = CodeIndex(home, root, max_files=files + 10)
        began = time.perf_counter()
        report = index.refresh_now()
        built = time.perf_counter() - began
        print(
            f"index build: {report.files} files, {report.chunks} chunks, {report.symbols} symbols in {built:.1f} s; "
            f"index size {report.size_bytes / 1024 / 1024:.1f} MB"
        )
        for number in (1, files // 2, files - 1):
            path = root / f"pkg{number // 100:03d}" / f"mod{number:05d}.py"
            path.write_text(path.read_text() + "\n\ndef added_later():\n    return 'refreshed'\n")
        began = time.perf_counter()
        again = index.refresh_now()
        print(
            f"incremental refresh after 3 changed files: {again.parsed} parsed in {time.perf_counter() - began:.2f} s"
        )
        unchanged = time.perf_counter()
        index.refresh_now()
        print(
            f"refresh with nothing changed (what search_code does first): {time.perf_counter() - unchanged:.2f} s"
        )
        rng = random.Random(7)
        queries = [f"{rng.choice(VERBS)} {rng.choice(NOUNS)}" for _ in range(searches // 2)]
        queries += [rng.choice(CHINESE) for _ in range(searches - len(queries))]
        times = []
        for query in queries:
            began = time.perf_counter()
            index.search(query, 5)
            times.append(time.perf_counter() - began)
        print(
            f"search (ranking only) p50: {statistics.median(times) * 1000:.1f} ms over {len(times)} queries"
        )
        tool = SearchCodeTool(index)
        tool_times = []
        for query in queries[:10]:
            began = time.perf_counter()
            tool({"query": query, "top_k": 5}, None)  # type: ignore[arg-type]
            tool_times.append(time.perf_counter() - began)
        print(
            f"search_code call (refresh + ranking + rendering) p50: {statistics.median(tool_times) * 1000:.0f} ms"
        )


def bench_diagnostics() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        session = LspSession(root, LspValues(wait_seconds=30.0), server_env())
        if session.status_lines()[0].endswith("未安装（写入这类文件时不做诊断）"):
            print("diagnostics: no Python language server installed (pip install -e '.[dev]')")
            return
        target = root / "app.py"
        try:
            for label, text in (
                ("first write (server starts)", "def f(x):\n    return x\n"),
                ("after an edit", "def f(x):\n    return y\n"),
                ("after a second edit", "def f(x:\n    return x\n"),
            ):
                target.write_text(text)
                began = time.perf_counter()
                session.written(target)
                found = session.collect()
                took = time.perf_counter() - began
                said = found.summary if found is not None else "nothing new"
                print(f"diagnostics latency, {label}: {took:.2f} s ({said})")
        finally:
            session.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m evals.bench_codeindex")
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--searches", type=int, default=50)
    args = parser.parse_args(argv)
    bench_index(args.files, args.searches)
    bench_diagnostics()
    with tempfile.TemporaryDirectory() as tmp:
        index = golden_index(Path(tmp))
        for split in ("dev", "test"):
            share, missed = recall(index, cases(split))
            print(
                f"golden set recall@5 ({split}): {share:.2f} {'missed ' + ', '.join(missed) if missed else ''}"
            )
        share, _ = recall(index, cases())
        print(f"golden set recall@5 (all {len(cases())}): {share:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
