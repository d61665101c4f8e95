"""Cost as a session grows: CPU per turn at turn 10 and at turn 300, and a 240-turn session against six 40-turn ones.

Run from the repository root: `python -m evals.bench_growth [--turns 300] [--short 40] [--long 240]`.

The real CLI components (`build_components` + `AppBackend`, as `-p` and the REPL use them) run a scripted session
in this process against the loopback fake server, which runs in a child process so that its work (parsing each
request, streaming the answer) is not counted: the CPU measured (`time.process_time`, every thread of this process)
is paicli's own. Every turn is one tool round (a small `read_file`) and a short answer, four messages a turn, with a
window large enough that nothing is compacted: the history grows without bound, which is the worst case for any
per-request cost that walks the whole history.

Targets (issue 49): the median CPU of turns 291-300 <= 1.5x that of turns 6-15; a 240-turn session <= 1.35 x 6 x a
40-turn one, start-up (the components and the first call's imports, made before either is measured) taken out.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from paicli.config.parsed import ParsedConfig

PER_TURN_TARGET = 1.5
SESSION_TARGET = 1.35
FILES = 8


def _respond(body: dict[str, Any]) -> Any:
    from paicli.testing.openai_server import Reply, is_summary_request

    size = len(json.dumps(body, ensure_ascii=False))
    usage = {"prompt_tokens": size // 3, "completion_tokens": 20, "total_tokens": size // 3 + 20}
    if is_summary_request(body):
        return Reply.text("## 摘要\n检查了若干文件。", usage=usage)
    messages = body.get("messages") or []
    last = messages[-1] if messages else {}
    if last.get("role") == "user":
        turn = sum(1 for m in messages if m.get("role") == "user")
        path = f"notes/n{turn % FILES}.txt"
        return Reply.tool_calls(("read_file", json.dumps({"path": path})), usage=usage)
    return Reply.text("已读完这个文件：内容是一组编号的说明，没有发现问题。", usage=usage)


def serve() -> None:
    """The child process: a fake server that answers at once; its base URL on stdout; ends when stdin closes."""
    from paicli.testing.openai_server import FakeOpenAIServer

    with FakeOpenAIServer(responder=_respond) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()


def _project(root: Path) -> Path:
    project = root / "project"
    (project / "notes").mkdir(parents=True)
    for n in range(FILES):
        lines = "".join(f"{i}. 第 {n} 份说明的第 {i} 条\n" for i in range(12))
        (project / "notes" / f"n{n}.txt").write_text(lines, encoding="utf-8")
    return project


def _backend(root: Path, tag: str, base_url: str) -> Any:
    from paicli.cli.app_backend import AppBackend
    from paicli.cli.compose import build_components
    from paicli.config.env import EnvLookup
    from paicli.config.settings import load_settings
    from paicli.tools.approval import AutoApprover

    project = root / "project"
    home = root / f"home-{tag}"
    env = EnvLookup(
        environ={
            "HOME": str(home),
            "PAICLI_HOME": str(home / ".paicli"),
            "PAICLI_BASE_URL": base_url,
            "PAICLI_MODEL": "fake-model",
            "PAICLI_CONTEXT_WINDOW": "1000000",
            "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
            "PAICLI_LLM_MAX_RETRIES": "0",
        },
        cwd=project,
    )
    settings = load_settings(env, cwd=project)
    return AppBackend(build_components(settings, ParsedConfig.read(env), AutoApprover(), yes=True))


def _ignore(event: object) -> None:
    return None


def run_session(root: Path, tag: str, base_url: str, turns: int) -> list[float]:
    """CPU seconds of each turn of a fresh session (its components are built before the clock starts)."""
    from paicli.cancel import CancelToken

    backend = _backend(root, tag, base_url)
    costs = []
    try:
        for turn in range(1, turns + 1):
            start = time.process_time()
            backend.run(
                f"第 {turn} 轮：请读一下相关说明文件，看看有没有问题。", "react", _ignore, CancelToken()
            )
            costs.append(time.process_time() - start)
    finally:
        backend.close()
    return costs


def _window(costs: list[float], last: int) -> float:
    return statistics.median(costs[max(0, last - 10) : last])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300)
    parser.add_argument("--short", type=int, default=40)
    parser.add_argument("--long", type=int, default=240)
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    child = subprocess.Popen(
        [sys.executable, "-m", "evals.bench_growth", "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert child.stdout is not None
        base_url = child.stdout.readline().strip()
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            _project(root)
            run_session(root, "warm", base_url, 3)  # imports, prompt files, tokenizer: start-up, not measured
            costs = run_session(root, "growth", base_url, args.turns)
            early, late = _window(costs, 15), _window(costs, args.turns)
            ratio = late / early
            print(
                f"CPU per turn (median of 10): turns 6-15 {early * 1000:.1f} ms, "
                f"turns {args.turns - 9}-{args.turns} {late * 1000:.1f} ms: {ratio:.2f}x "
                f"target <= {PER_TURN_TARGET}x -> {'met' if ratio <= PER_TURN_TARGET else 'NOT met'}"
            )
            short = sum(run_session(root, "short", base_url, args.short))
            long = sum(run_session(root, "long", base_url, args.long))
            factor = args.long / args.short
            session_ratio = long / (factor * short)
            print(
                f"whole session CPU: {args.short} turns {short:.2f} s, {args.long} turns {long:.2f} s: "
                f"{session_ratio:.2f} x {factor:g} x the short one, target <= {SESSION_TARGET} -> "
                f"{'met' if session_ratio <= SESSION_TARGET else 'NOT met'}"
            )
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(30)


if __name__ == "__main__":
    main()
