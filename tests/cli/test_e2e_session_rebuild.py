"""The session the factory builds, end to end (real subprocess, loopback fake server): after /model every model
call of a plan (planner, tasks) and a team run (planner, workers, reviewers) names the new model; a Plan task
and a Team worker whose unseen results cannot fit the window get them offloaded instead of sent over it."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from paicli.context.unseen import OFFLOAD_NOTICE_MARK
from paicli.testing.openai_server import FakeOpenAIServer, Reply, count_tokens, prompt_text
from paicli.testing.proc import paicli_env, run_paicli
from tests.cli.test_e2e_plan import is_planner, plan_json, task_of
from tests.cli.test_e2e_team import APPROVE, role_of, team_plan

MODELS = ("fake-model", "gpt-5-mini")


def test_model_then_plan_sends_the_planner_and_every_task_to_the_new_model(
    project: Path, isolated_home: Path
) -> None:
    plan = plan_json(("t1", "读取甲文件", "ANALYSIS", []), ("t2", "汇总甲", "ANALYSIS", ["t1"]))

    def respond(body: dict[str, Any]) -> Reply | str | None:
        if is_planner(body):
            return f"```json\n{plan}\n```"
        task = task_of(body)
        return Reply.text(f"{task}完成") if task else "好的。"

    with FakeOpenAIServer(models=MODELS, responder=respond) as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_MEMORY_AUTO_EXTRACT_ENABLED="false")
        done = run_paicli([], env, project, stdin="你好\n/model gpt-5-mini\n/plan 检查甲并汇总\n")
        requests = server.requests
        server.assert_no_violations()
    assert done.returncode == 0, done.stderr
    assert "✅ 已切换到 gpt-5-mini" in done.stdout
    first, *after = requests
    assert first["model"] == "fake-model"
    kinds = ["planner" if is_planner(body) else task_of(body) for body in after]
    assert kinds == ["planner", "读取甲文件", "汇总甲"], kinds
    assert [body["model"] for body in after] == ["gpt-5-mini"] * 3


def test_model_then_team_sends_planner_workers_and_reviewers_to_the_new_model(
    project: Path, isolated_home: Path
) -> None:
    replies = {"planner": team_plan(("s1", "分析甲", []), ("s2", "分析乙", ["s1"])), "reviewer": APPROVE}

    def respond(body: dict[str, Any]) -> Reply | str | None:
        return replies.get(role_of(body), "做完了。")

    with FakeOpenAIServer(models=MODELS, responder=respond) as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_MEMORY_AUTO_EXTRACT_ENABLED="false")
        done = run_paicli([], env, project, stdin="/model gpt-5-mini\n/team 分析甲乙\n")
        requests = server.requests
        server.assert_no_violations()
    assert done.returncode == 0, done.stderr
    roles = [role_of(body) for body in requests]
    assert {"planner", "worker", "reviewer"} <= set(roles), roles
    assert [body["model"] for body in requests] == ["gpt-5-mini"] * len(requests)


WINDOW = 16_000
FILES = ("a", "b", "c", "d")


def four_big_files(project: Path) -> None:
    """Each under the per-result offload threshold set below; the four together exceed the window."""
    for name in FILES:
        line = f"{name} 文件的内容：这是用来占满上下文窗口的一行中文数据，每一行都不一样。\n"
        (project / f"{name}.txt").write_text("".join(f"{n} {line}" for n in range(170)), encoding="utf-8")


def read_all_or_answer(body: dict[str, Any]) -> Reply | str:
    """A member's first call reads the four files at once; once it has seen results it answers."""
    if body["messages"][-1]["role"] == "tool":
        return "四个文件都读完了。"
    return Reply.tool_calls(*(("read_file", json.dumps({"path": f"{name}.txt"})) for name in FILES))


def assert_offloaded_not_sent(
    project: Path, requests: list[dict[str, Any]], member: Callable[..., bool]
) -> None:
    after_tools = [r for r in requests if member(r) and r["messages"][-1]["role"] == "tool"]
    assert after_tools, "the member never got its tool results back"
    for request in after_tools:
        sent = json.dumps(request["messages"], ensure_ascii=False)
        assert OFFLOAD_NOTICE_MARK in sent
        assert count_tokens(prompt_text(request)) <= WINDOW
    offloaded = list((project / ".paicli" / "tool-outputs").glob("session-*/*read_file*"))
    assert offloaded and all("文件的内容" in path.read_text(encoding="utf-8") for path in offloaded)


def window_env(home: Path, base_url: str) -> dict[str, str]:
    return paicli_env(
        home,
        base_url,
        PAICLI_CONTEXT_WINDOW=str(WINDOW),
        PAICLI_TOOL_OFFLOAD_THRESHOLD_CHARS="20000",
        PAICLI_MEMORY_AUTO_EXTRACT_ENABLED="false",
    )


def test_a_plan_task_offloads_unseen_results_that_cannot_fit_the_window(
    project: Path, isolated_home: Path
) -> None:
    four_big_files(project)
    plan = plan_json(("t1", "读取四个文件", "FILE_READ", []))

    def respond(body: dict[str, Any]) -> Reply | str | None:
        if is_planner(body):
            return f"```json\n{plan}\n```"
        return read_all_or_answer(body) if task_of(body) else "好的。"

    with FakeOpenAIServer(responder=respond) as server:
        done = run_paicli(
            [], window_env(isolated_home, server.base_url), project, stdin="/plan 读取四个文件\n"
        )
        requests = server.requests
        server.assert_no_violations()
    assert done.returncode == 0, done.stderr
    assert_offloaded_not_sent(project, requests, lambda body: task_of(body) == "读取四个文件")


def test_a_team_member_offloads_unseen_results_that_cannot_fit_the_window(
    project: Path, isolated_home: Path
) -> None:
    four_big_files(project)
    steps = team_plan(("s1", "读取四个文件", []))

    def respond(body: dict[str, Any]) -> Reply | str | None:
        role = role_of(body)
        if role == "planner":
            return steps
        if role == "reviewer":
            return APPROVE
        return read_all_or_answer(body) if role == "worker" else "好的。"

    with FakeOpenAIServer(responder=respond) as server:
        done = run_paicli(
            [], window_env(isolated_home, server.base_url), project, stdin="/team 读取四个文件\n"
        )
        requests = server.requests
        server.assert_no_violations()
    assert done.returncode == 0, done.stderr
    assert_offloaded_not_sent(project, requests, lambda body: role_of(body) == "worker")
