"""/model rebuilds the session through the factory: every model call after it, of a plain turn, a plan (planner
and tasks) and a team run (planner, workers and reviewers), names the new model (real subprocess, loopback
fake server)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.cli.paicli_proc import paicli_env, run_paicli
from tests.cli.test_e2e_plan import is_planner, plan_json, task_of
from tests.cli.test_e2e_team import APPROVE, role_of, team_plan
from tests.fakes.openai_server import FakeOpenAIServer, Reply

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
