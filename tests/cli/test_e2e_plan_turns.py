"""Plan and Team runs are turns of the one conversation (issue 32): after a run, the next request carries its
goal and a summary of what it did (files written included); `-c`, `/export` and `/context` see it too. Real
paicli subprocesses against the loopback server; every request checked for protocol validity."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import ledger_entries, message_text, paicli_env, run_paicli, run_served
from tests.cli.test_e2e_plan import is_planner, plan_json, task_of
from tests.cli.test_e2e_team import APPROVE, role_of, team_plan

GOAL = "写一份周报"
FOLLOW_UP = "刚才的计划改了哪些文件？"
REPORT_PLAN = plan_json(
    ("t1", "写出周报文件", "FILE_WRITE", []),
    ("t2", "核对周报", "VERIFICATION", ["t1"]),
)
WRITE_REPORT = ("write_file", json.dumps({"path": "weekly.md", "content": "# 周报\n"}, ensure_ascii=False))


def answered_tool(body: dict[str, Any]) -> bool:
    return body["messages"][-1]["role"] == "tool"


def plan_then_chat(body: dict[str, Any]) -> Reply | str | None:
    """Planner, the two tasks (the first writes weekly.md), then any ReAct turn."""
    if is_planner(body):
        return REPORT_PLAN
    task = task_of(body)
    if task == "写出周报文件":
        return "周报已写好" if answered_tool(body) else Reply.tool_calls(WRITE_REPORT)
    if task == "核对周报":
        return "核对无误"
    return "计划改了 weekly.md。"


def react_requests(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [body for body in requests if not is_planner(body) and task_of(body) is None]


def conversation_of(body: dict[str, Any]) -> list[tuple[str, str]]:
    return [(m["role"], message_text(m)) for m in body["messages"][1:]]


def assert_plan_turn(messages: list[tuple[str, str]], goal: str = GOAL) -> None:
    """The plan's goal as a user message, right after it the summary naming the tasks and the file."""
    index = messages.index(("user", goal))
    role, summary = messages[index + 1]
    assert role == "assistant"
    assert summary.startswith("[计划执行记录] 结果：已完成（2/2 个任务完成）"), summary
    assert "[t1] ✅ 完成：写出周报文件" in summary and "结果：周报已写好" in summary
    assert "写入的文件：weekly.md" in summary and "[t2] ✅ 完成：核对周报" in summary


def test_a_follow_up_after_a_repl_plan_carries_the_plans_goal_and_result(tmp_path: Path) -> None:
    run = run_served(plan_then_chat, ["--yes"], tmp_path, stdin=f"/plan {GOAL}\n{FOLLOW_UP}\n")
    assert run.done.returncode == 0, run.done.stderr
    assert (tmp_path / "weekly.md").exists()
    follow = react_requests(run.requests)
    assert len(follow) == 1  # the plan itself sent no ReAct request
    messages = conversation_of(follow[0])
    assert_plan_turn(messages)
    assert messages[-1] == ("user", FOLLOW_UP) and len(messages) == 3
    assert "计划改了 weekly.md。" in run.done.stdout


def test_continue_after_a_plan_run_replays_exports_and_sends_it(tmp_path: Path) -> None:
    with FakeOpenAIServer(responder=plan_then_chat) as server:
        env = paicli_env(tmp_path, server.base_url)
        first = run_paicli(["-p", GOAL, "--plan", "--yes"], env, tmp_path)
        assert first.returncode == 0, first.stderr
        export = tmp_path / "out.md"
        again = run_paicli(["-c", "--yes"], env, tmp_path, stdin=f"/export {export}\n/context\n{FOLLOW_UP}\n")
        assert again.returncode == 0, again.stderr
        requests = server.requests
        server.assert_no_violations()
    shown = again.stderr
    replay = shown[shown.index("── 之前的对话 ──") : shown.index("── 以上是恢复的对话")]
    assert f"› {GOAL}" in replay and "[计划执行记录] 结果：已完成（2/2 个任务完成）" in replay
    assert "2 条消息" in shown
    context_line = next(line for line in again.stdout.splitlines() if line.lstrip().startswith("对话:"))
    assert context_line.rstrip().endswith("[2 条]")  # /context counts the plan's turn
    exported = export.read_text(encoding="utf-8")
    assert f"## 👤 用户\n\n{GOAL}" in exported and "写入的文件：weekly.md" in exported
    follow = react_requests(requests)
    assert len(follow) == 1
    assert_plan_turn(conversation_of(follow[0]))
    # the run's own records stay in the ledger beside the turn: every task result, linked by the plan id
    entries = ledger_entries(tmp_path)
    turn = next(e for e in entries if e["source"] == "orchestrated_result")
    states = [
        e["metadata"]
        for e in entries
        if e["event"] == "task_state" and e["metadata"].get("planId") == turn["metadata"]["planId"]
    ]
    assert {"taskId": "t1", "status": "done", "result": "周报已写好", "files": ["weekly.md"]}.items() <= {
        k: v for s in states if s["taskId"] == "t1" and s["status"] == "done" for k, v in s.items()
    }.items()


def team_then_chat(body: dict[str, Any]) -> Reply | str | None:
    role = role_of(body)
    if role == "planner":
        return team_plan(("s1", "写出周报文件", []))
    if role == "worker":
        return "周报已写好" if answered_tool(body) else Reply.tool_calls(WRITE_REPORT)
    if role == "reviewer":
        return APPROVE
    return "团队写了 weekly.md。"


def test_a_follow_up_after_a_team_run_carries_its_goal_and_result(tmp_path: Path) -> None:
    run = run_served(team_then_chat, ["--yes"], tmp_path, stdin=f"/team {GOAL}\n{FOLLOW_UP}\n")
    assert run.done.returncode == 0, run.done.stderr
    follow = [body for body in run.requests if role_of(body) == "other"]
    assert len(follow) == 1
    messages = conversation_of(follow[0])
    assert messages[0] == ("user", GOAL) and messages[-1] == ("user", FOLLOW_UP) and len(messages) == 3
    role, summary = messages[1]
    assert role == "assistant" and summary.startswith("[团队任务执行记录] 结果：已完成（1/1 个步骤完成）")
    assert "[s1] ✅ 完成：写出周报文件" in summary and "写入的文件：weekly.md" in summary


def test_a_failed_plan_is_a_turn_too(tmp_path: Path) -> None:
    def respond(body: dict[str, Any]) -> Reply | str | None:
        if is_planner(body):
            return "这不是 JSON"
        return "规划没成功，我们换个说法。"

    run = run_served(respond, ["--yes"], tmp_path, stdin=f"/plan {GOAL}\n为什么失败了？\n")
    assert "规划没成功，我们换个说法。" in run.done.stdout, run.done.stderr
    follow = [body for body in run.requests if not is_planner(body)]
    messages = conversation_of(follow[-1])
    assert messages[0] == ("user", GOAL) and messages[-1] == ("user", "为什么失败了？")
    assert messages[1][0] == "assistant" and messages[1][1].startswith("[计划执行记录] 结果：失败")
