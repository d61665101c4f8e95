"""The session's cost (issue 45): usage × the price table, summed over every model call of the session (the
agent's, fact extraction, compaction summaries), in the status bar, `/context`, the exit line and `-p` JSON;
no figure for a model the table does not name. Through the loopback server and the real openai client."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.repl import run_repl
from paicli.cli.statusbar import status_line
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli
from tests.cli.served_session import command, served_parts

INPUT, CACHED, OUTPUT = 3.0, 0.5, 12.0  # CNY per million tokens


def write_prices(home: Path, model: str = "fake-model") -> None:
    home.mkdir(parents=True, exist_ok=True)
    table = {
        "providers": {
            "paicli": {
                "currency": "CNY",
                "models": {model: {"input": INPUT, "cached_input": CACHED, "output": OUTPUT}},
            }
        }
    }
    (home / "prices.json").write_text(json.dumps(table), encoding="utf-8")


def expected_cost(usages: list[dict[str, Any]]) -> float:
    total = 0.0
    for usage in usages:
        cached = usage["prompt_tokens_details"]["cached_tokens"]
        fresh = usage["prompt_tokens"] - cached
        total += fresh * INPUT + cached * CACHED + usage["completion_tokens"] * OUTPUT
    return total / 1_000_000


def _extraction(body: dict[str, Any]) -> bool:
    return "=== 用户原文 ===" in str(body["messages"][-1].get("content", ""))


def test_every_call_of_the_session_is_priced_and_shown(tmp_path: Path) -> None:
    write_prices(tmp_path / ".paicli")

    def responder(body: dict[str, Any]) -> str:
        if _extraction(body):
            return json.dumps({"facts": []})
        return "好的，已记下。"

    with FakeOpenAIServer(responder=responder, cache_emulation=True) as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url, auto_extract=True))
        try:
            for text in ("我们团队约定所有提交信息都用中文书写", "再说说 README 的结构", "还有 LICENSE"):
                backend.run(text, "react", lambda e: None, CancelToken())
                # each extraction ends before the next turn: one the turn cut short got no usage back to price,
                # while the server had counted it
                backend.background.wait(60)
            command(backend, "/compact")  # a summary call
            spent = backend.status().spend
            kinds = {
                "extraction" if _extraction(b) else "tools" if b.get("tools") else "side"
                for b in server.requests
            }
            assert {"extraction", "tools", "side"} <= kinds  # the agent's calls, extraction and the summary
            assert any(u["prompt_tokens_details"]["cached_tokens"] > 0 for u in server.usages)
            assert spent.known and spent.priced_calls == len(server.usages)
            assert dict(spent.amounts)["CNY"] == pytest.approx(expected_cost(server.usages))
            status = backend.status()
            assert spent.text() in status_line(status)
            assert status.skills == backend.parts.skills.counts() and status.mcp is None  # no MCP configured
            assert status.elapsed_seconds is not None
            assert f"本会话费用: {spent.text()}" in command(backend, "/context")
        finally:
            backend.close()


def test_a_model_the_table_does_not_name_shows_no_figure(tmp_path: Path) -> None:
    write_prices(tmp_path / ".paicli", model="some-other-model")
    with FakeOpenAIServer(default_reply="好的") as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            backend.run("你好", "react", lambda e: None, CancelToken())
            status = backend.status()
            assert not status.spend.known
            assert "¥" not in status_line(status)
            assert "本会话费用: 未计（价格表里没有 paicli/fake-model 的价格" in command(backend, "/context")
        finally:
            backend.close()


def test_the_exit_line_says_what_the_session_cost(tmp_path: Path) -> None:
    write_prices(tmp_path / ".paicli")
    with FakeOpenAIServer() as server:
        server.push(Reply.text("好的", usage={"prompt_tokens": 1000, "completion_tokens": 100}))
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        out, progress = io.StringIO(), io.StringIO()
        run_repl(
            backend,
            input=io.StringIO("你好\n"),
            output=out,
            interactive=False,
            history_file=tmp_path / "history",
            progress=Console(file=progress, width=200),
        )
        cost = (1000 * INPUT + 100 * OUTPUT) / 1_000_000  # 0.0042
        assert f"本次会话费用: ¥{cost:.4f}（1 次模型调用" in progress.getvalue()


def test_json_output_carries_the_cost(project: Path, isolated_home: Path) -> None:
    write_prices(isolated_home / ".paicli")
    usage = {
        "prompt_tokens": 2000,
        "completion_tokens": 300,
        "prompt_tokens_details": {"cached_tokens": 1024},
    }
    with FakeOpenAIServer() as server:
        server.push(
            Reply.tool_calls(("list_dir", '{"path": "."}'), usage=usage), Reply.text("完成", usage=usage)
        )
        proc = run_paicli(
            ["-p", "看看目录", "--yes", "--output-format", "json"],
            paicli_env(isolated_home, server.base_url),
            project,
        )
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        one_call = (976 * INPUT + 1024 * CACHED + 300 * OUTPUT) / 1_000_000
        assert result["cost"] == {"CNY": pytest.approx(2 * one_call)}
        assert result["usage"] == {"input_tokens": 4000, "output_tokens": 600, "cached_input_tokens": 2048}


def test_plan_runs_planner_and_task_calls_count_in_the_cost(tmp_path: Path) -> None:
    from tests.cli.test_e2e_plan import is_planner, plan_json

    write_prices(tmp_path / ".paicli")

    def responder(body: dict[str, Any]) -> str:
        if is_planner(body):
            return plan_json(("a", "回答甲", "ANALYSIS", []), ("b", "回答乙", "ANALYSIS", []))
        return "完成"

    with FakeOpenAIServer(responder=responder) as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            finished = backend.run("分两步回答", "plan", lambda e: None, CancelToken())
            assert finished.status == "done", finished.error
            assert sum(1 for body in server.requests if is_planner(body)) == 1 and len(server.usages) >= 3
            spent = backend.status().spend
            assert spent.priced_calls == len(server.usages)
            assert dict(spent.amounts)["CNY"] == pytest.approx(expected_cost(server.usages))
        finally:
            backend.close()
