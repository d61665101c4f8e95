"""Opt-in smoke against a real OpenAI-compatible server (issue 40); not part of pytest.

    python -m evals.realmodel [--base-url URL] [--model NAME] [--api-key KEY] [--json]

Default server: the shared script's (`../shared/tools/realmodel/serve.sh`: llama.cpp, Gemma 3 270M, 8K context),
or PAICLI_BASE_URL / PAICLI_MODEL. Each scenario runs paicli as a subprocess (its own temporary home and
project) through a recording proxy, and checks only what a weak model cannot spoil: exit codes, the JSON
shape, no refused request, every prompt within the server's window (the server's own count), tool-call
pairing, truncation flagged when the server cut the last reply. What the model answers is not judged.
Exit 0 when every check holds.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evals.realmodel_proxy import Exchange, RecordingProxy
from paicli.llm.probe import list_models, server_window
from paicli.testing.openai_server import is_summary_request, validate_request
from paicli.testing.proc import paicli_env, run_paicli

DEFAULT_BASE_URL = "http://127.0.0.1:18080/v1"
RUN_TIMEOUT = 1800.0
RESULT_KEYS = {"type", "is_error", "result", "session_id", "num_turns", "usage", "truncated", "files_changed"}
PROSE = (
    "本节说明配置加载的顺序：先读进程环境变量，再读项目目录的 .env，最后读用户主目录下的配置文件。"
    "The loader keeps the first value it finds for each key and records where it came from, so that the "
    "status command can explain every setting. 每一项设置都有默认值、允许的范围和一句说明。\n"
)


@dataclass
class Outcome:
    name: str
    checks: dict[str, bool] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(self.checks.values())


@dataclass(frozen=True)
class Server:
    base_url: str
    model: str
    api_key: str | None
    window: int | None


@dataclass(frozen=True)
class Run:
    code: int
    stdout: str
    stderr: str
    exchanges: list[Exchange]
    seconds: float
    home: Path


def run(server: Server, proxy: RecordingProxy, args: list[str], stdin: str | None = None, **env: str) -> Run:
    """One paicli process in a fresh home and project (files from `env.pop('_files')` are not used here)."""
    work = Path(tempfile.mkdtemp(prefix="paicli-realmodel-"))
    project = work / "project"
    project.mkdir()
    for name, text in _FILES.items():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(text, encoding="utf-8")
    environ = paicli_env(work / "home", proxy.base_url, PAICLI_MODEL=server.model, **env)
    if server.api_key:
        environ["PAICLI_API_KEY"] = server.api_key
    mark, started = len(proxy.recorder), time.monotonic()
    done = run_paicli(args, environ, project, stdin=stdin, timeout=RUN_TIMEOUT)
    seconds = time.monotonic() - started
    return Run(done.returncode, done.stdout, done.stderr, proxy.recorder.since(mark), seconds, work / "home")


_FILES = {"notes.txt": "第一行：项目代号是 北极星。\n第二行：发布日期待定。\n"}
_FILES.update({f"docs/part{n}.md": f"# 第 {n} 部分\n\n" + PROSE * 14 for n in range(1, 7)})


def common_checks(outcome: Outcome, result: Run, server: Server, expect_code: int = 0) -> None:
    chats = [e for e in result.exchanges if e.chat]
    refused = [e for e in chats if e.status >= 400]
    prompts = [int(e.usage.get("prompt_tokens", 0)) for e in chats if e.usage]
    problems = [p for e in chats if isinstance(e.body, dict) for p in validate_request(e.body)]
    outcome.checks[f"exit code {expect_code}"] = result.code == expect_code
    outcome.checks["no refused request"] = not refused
    outcome.checks["tool-call pairing"] = not problems
    if server.window:
        outcome.checks[f"prompts within the server's {server.window} tokens"] = (
            max(prompts, default=0) <= server.window
        )
    outcome.figures.update(
        requests=len(chats),
        max_prompt_tokens=max(prompts, default=0),
        seconds=round(result.seconds, 1),
    )
    for exchange in refused:
        outcome.notes.append(
            f"refused: HTTP {exchange.status} {json.dumps(exchange.error, ensure_ascii=False)[:200]}"
        )
    outcome.notes.extend(f"pairing: {p}" for p in problems[:3])
    if result.code != expect_code:
        outcome.notes.append(f"stderr: {result.stderr.strip()[-400:]}")


def json_result(outcome: Outcome, result: Run) -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        data = {}
    usage = data.get("usage")
    outcome.checks["JSON result shape"] = (
        set(data) >= RESULT_KEYS
        and data.get("type") == "result"
        and isinstance(data.get("is_error"), bool)
        and isinstance(data.get("num_turns"), int)
        and isinstance(data.get("truncated"), bool)
        and isinstance(data.get("files_changed"), list)
        and isinstance(usage, dict)
        and all(
            isinstance(usage.get(k), int) for k in ("input_tokens", "output_tokens", "cached_input_tokens")
        )
    )
    return data


def truncation_check(outcome: Outcome, result: Run, data: dict[str, Any]) -> None:
    """The server's finish_reason of the answer's last part and the JSON flag agree."""
    answers = [e for e in result.exchanges if e.chat and e.status == 200 and isinstance(e.body, dict)]
    last = answers[-1] if answers else None
    cut = last is not None and last.finish_reason == "length" and not last.tool_calls
    outcome.checks["truncation flagged as the server cut it"] = data.get("truncated") is cut
    outcome.figures["last_finish_reason"] = last.finish_reason if last else None


# ---------------------------------------------------------------- scenarios

QUICK = {"PAICLI_MAX_OUTPUT_TOKENS": "96", "PAICLI_OUTPUT_CONTINUATIONS": "0"}


def plain(server: Server, proxy: RecordingProxy) -> Outcome:
    outcome = Outcome("plain -p")
    result = run(server, proxy, ["-p", "用一句话介绍你自己", "--output-format", "json"], **QUICK)
    common_checks(outcome, result, server)
    data = json_result(outcome, result)
    truncation_check(outcome, result, data)
    window = _cached_window(result.home)
    outcome.figures["window_found_at_start"] = window
    if server.window:
        outcome.checks["server's window read at start"] = window == server.window
    return outcome


def tool_round(server: Server, proxy: RecordingProxy) -> Outcome:
    outcome = Outcome("tool round")
    args = ["-p", "用 read_file 读取 notes.txt，告诉我第一行写了什么", "--yes", "--output-format", "json"]
    result = run(server, proxy, args, **QUICK)
    common_checks(outcome, result, server)
    data = json_result(outcome, result)
    truncation_check(outcome, result, data)
    calls = sum(e.tool_calls for e in result.exchanges if e.chat)
    outcome.figures["tool_calls_by_the_model"] = calls
    sent = [e for e in result.exchanges if e.chat and isinstance(e.body, dict) and e.body.get("tools")]
    outcome.checks["tools sent"] = bool(sent)
    checked = [
        e for e in result.exchanges if e.chat and isinstance(e.body, dict) and e.body.get("max_tokens") == 1
    ]
    outcome.figures["dropped_tools_check"] = bool(checked)  # paicli suspected the template dropped the tools
    if not calls:
        outcome.notes.append("the model called no tool (its choice; not judged)")
    return outcome


def outgrow(server: Server, proxy: RecordingProxy) -> Outcome:
    outcome = Outcome("a session outgrowing the window (no PAICLI_CONTEXT_WINDOW)")
    lines = [f"请阅读 @docs/part{n}.md ，用一句话概括" for n in range(1, 7)]
    result = run(server, proxy, [], stdin="\n".join(lines) + "\n", **QUICK)
    common_checks(outcome, result, server)
    compactions = [e for e in _ledger_events(result.home) if e.get("event") == "compaction"]
    attached = sum(len(_FILES[f"docs/part{n}.md"]) for n in range(1, 7))
    outcome.figures.update(compaction_events=len(compactions), attached_chars=attached)
    outcome.checks["compaction kept it within the window"] = bool(compactions)
    return outcome


def compaction(server: Server, proxy: RecordingProxy) -> Outcome:
    outcome = Outcome("a compaction (/compact between two turns)")
    lines = [
        "请阅读 @docs/part1.md ，用一句话概括",
        "请阅读 @docs/part2.md ，用一句话概括",
        "/compact",
        "你好",
    ]
    result = run(server, proxy, [], stdin="\n".join(lines) + "\n", **QUICK)
    common_checks(outcome, result, server)
    chats = [e for e in result.exchanges if e.chat and isinstance(e.body, dict)]
    summaries = [e for e in chats if is_summary_request(e.body)]
    outcome.checks["/compact asked for a summary"] = bool(summaries)
    outcome.checks["the turn after it was answered"] = bool(chats) and chats[-1].status == 200
    done = "📦 上下文已压缩" in result.stdout + result.stderr
    outcome.figures.update(summary_requests=len(summaries), summary_accepted=done)
    if not done:
        outcome.notes.append("the model's summary was not accepted (its answer; not judged)")
    return outcome


def cut_reply(server: Server, proxy: RecordingProxy) -> Outcome:
    outcome = Outcome("a cut reply (PAICLI_MAX_OUTPUT_TOKENS=16)")
    env = {"PAICLI_MAX_OUTPUT_TOKENS": "16", "PAICLI_OUTPUT_CONTINUATIONS": "1"}
    result = run(server, proxy, ["-p", "写一篇五百字的文章，介绍你的家乡", "--output-format", "json"], **env)
    common_checks(outcome, result, server)
    data = json_result(outcome, result)
    truncation_check(outcome, result, data)
    caps = {e.body.get("max_tokens") for e in result.exchanges if e.chat and isinstance(e.body, dict)}
    outcome.checks["max_tokens 16 on every request"] = caps == {16}
    outcome.figures["truncated"] = data.get("truncated")
    return outcome


SCENARIOS: tuple[Callable[[Server, RecordingProxy], Outcome], ...] = (
    plain,
    tool_round,
    outgrow,
    cut_reply,
    compaction,
)


def _cached_window(home: Path) -> int | None:
    try:
        cache = json.loads((home / ".paicli" / "cache" / "context-windows.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    found = [entry.get("tokens") for entry in cache.values() if isinstance(entry, dict)]
    return found[0] if found else None


def _ledger_events(home: Path) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    for path in (home / ".paicli" / "history" / "raw").glob("*.jsonl"):
        events += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return events


def discover(base_url: str, api_key: str | None, model: str | None) -> Server:
    listed = list_models(base_url, api_key)
    name = model or (listed.models[0] if listed.models else "gemma-3-270m")
    found = server_window(base_url, api_key, name, listing=listed.data if listed.ok else None)
    return Server(base_url, name, api_key, found.tokens if found else None)


def report(server: Server, outcomes: list[Outcome]) -> str:
    lines = [f"server {server.base_url} · model {server.model} · window {server.window or 'not reported'}"]
    for outcome in outcomes:
        lines.append(f"\n[{'PASS' if outcome.ok else 'FAIL'}] {outcome.name}")
        lines += [f"    {'ok ' if passed else 'BAD'} {check}" for check, passed in outcome.checks.items()]
        lines.append("    " + ", ".join(f"{key}={value}" for key, value in outcome.figures.items()))
        lines += [f"    note: {note}" for note in outcome.notes]
    passed = sum(outcome.ok for outcome in outcomes)
    lines.append(f"\n{passed}/{len(outcomes)} scenarios passed")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base-url", default=os.environ.get("PAICLI_BASE_URL") or DEFAULT_BASE_URL)
    parser.add_argument("--model", default=os.environ.get("PAICLI_MODEL"))
    parser.add_argument("--api-key", default=os.environ.get("PAICLI_API_KEY"))
    parser.add_argument("--only", help="run the scenarios whose function name contains this")
    parser.add_argument("--json", action="store_true", help="one JSON object as the last line")
    args = parser.parse_args(argv)
    server = discover(args.base_url.rstrip("/"), args.api_key, args.model)
    outcomes = []
    with RecordingProxy(server.base_url) as proxy:
        for scenario in SCENARIOS:
            if args.only and args.only not in scenario.__name__:
                continue
            print(f"… {scenario.__name__}", file=sys.stderr, flush=True)
            outcomes.append(scenario(server, proxy))
    print(report(server, outcomes))
    if args.json:
        summary = [{"name": o.name, "ok": o.ok, "checks": o.checks, "figures": o.figures} for o in outcomes]
        print(
            json.dumps(
                {"server": server.base_url, "window": server.window, "scenarios": summary}, ensure_ascii=False
            )
        )
    return 0 if all(outcome.ok for outcome in outcomes) else 1


if __name__ == "__main__":
    raise SystemExit(main())
