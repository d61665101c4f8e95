"""Every way a Plan or Team run ends carries the run as a conversation turn (RunFinished.turn), and the files
each task or step wrote are recorded with its node state (scripted LLM, fake tools)."""

from __future__ import annotations

import json
from typing import Any

from paicli.agent.events import AgentEvent, RunFinished
from paicli.agent.plan.agent import PlanDraft
from paicli.cancel import CancelToken
from paicli.llm.messages import Message, ToolCall
from paicli.testing.scripted_llm import Request
from tests.agent.test_plan_agent import make_agent as make_plan_agent
from tests.agent.test_plan_agent import task_name
from tests.agent.test_team_agent import APPROVE, role, steps_reply
from tests.agent.test_team_agent import make_agent as make_team_agent


def writes(path: str) -> Message:
    return Message.assistant(
        None, (ToolCall("w1", "write_file", json.dumps({"path": path, "content": "x"})),)
    )


def plan_route(request: Request) -> Any:
    name = task_name(request)
    if name is None:
        return json.dumps({"tasks": [{"id": "a", "description": "任务a", "type": "FILE_WRITE"}]})
    return "写好了 a.txt" if request.messages[-1].role == "tool" else writes("a.txt")


def test_a_plan_run_carries_its_turn_and_records_the_files_its_tasks_wrote() -> None:
    agent, _, ledger = make_plan_agent(plan_route)
    agent.env.tools.handlers["write_file"] = lambda call, cancel: "已写入"  # type: ignore[attr-defined]
    events: list[AgentEvent] = []
    finished = agent.run("目标", events.append, CancelToken(), "原话")
    assert finished.status == "done"
    turn = finished.turn
    assert turn is not None and (turn.mode, turn.goal, turn.submitted) == ("plan", "目标", "原话")
    assert "写入的文件：a.txt" in turn.answer and "写好了 a.txt" in turn.full
    assert not [e for e in events if isinstance(e, RunFinished)]  # the outcome is returned only
    done_states = [row[3] for row in ledger.rows if row[0] == "task_state" and row[2] == "done"]
    assert done_states[0]["files"] == ["a.txt"]


def test_a_failed_planning_and_a_cancelled_review_are_turns_too() -> None:
    agent, _, _ = make_plan_agent(lambda request: "不是计划")
    failed = agent.run("目标", lambda _e: None, CancelToken())
    assert failed.status == "error" and failed.turn is not None
    assert failed.turn.answer.startswith("[计划执行记录] 结果：失败（没有形成可执行的任务）")

    agent, _, _ = make_plan_agent(plan_route)
    draft = agent.create("目标", lambda _e: None, CancelToken(), "原话")
    assert isinstance(draft, PlanDraft)
    cancelled = agent.cancel_draft(draft)
    assert cancelled.turn is not None and cancelled.turn.status == "cancelled"
    assert "- [a] ⏳ 未执行：任务a" in cancelled.turn.answer


def test_a_cancelled_plan_keeps_what_it_reached() -> None:
    cancel = CancelToken()

    def route(request: Request) -> Any:
        name = task_name(request)
        if name is None:
            return json.dumps(
                {
                    "tasks": [
                        {"id": "a", "description": "任务a", "type": "ANALYSIS"},
                        {"id": "b", "description": "任务b", "type": "ANALYSIS", "dependencies": ["a"]},
                    ]
                }
            )
        cancel.cancel()  # the user cancels while task a answers
        return "a 的结果"

    agent, _, _ = make_plan_agent(route)
    finished = agent.run("目标", lambda _e: None, cancel)
    assert finished.status == "cancelled" and finished.turn is not None
    assert "- [a] ✅ 完成：任务a" in finished.turn.answer and "a 的结果" in finished.turn.answer
    assert "- [b] ⏳ 未执行：任务b" in finished.turn.answer


def test_a_team_run_carries_its_turn_with_the_files_a_worker_wrote() -> None:
    def route(request: Request) -> Any:
        who = role(request)
        if who == "planner":
            return steps_reply(("s1", []))
        if who == "reviewer":
            return APPROVE
        return "写好了" if request.messages[-1].role == "tool" else writes("b.txt")

    agent, _, ledger, tools = make_team_agent(route)
    tools.handlers["write_file"] = lambda call, cancel: "已写入"
    finished = agent.run("团队目标", lambda _e: None, CancelToken(), "/team 团队目标")
    assert finished.status == "done" and finished.turn is not None
    assert finished.turn.mode == "team" and finished.turn.submitted == "/team 团队目标"
    assert finished.turn.answer.startswith("[团队任务执行记录] 结果：已完成（1/1 个步骤完成）")
    assert "写入的文件：b.txt" in finished.turn.answer
    done_states = [row[3] for row in ledger.rows if row[0] == "task_state" and row[3]["status"] == "done"]
    assert done_states[0]["files"] == ["b.txt"]


def test_a_team_run_whose_planner_fails_is_a_turn() -> None:
    agent, _, _, _ = make_team_agent(lambda request: "不是 JSON")
    finished = agent.run("团队目标", lambda _e: None, CancelToken())
    assert finished.status == "error" and finished.turn is not None
    assert finished.turn.answer.startswith("[团队任务执行记录] 结果：失败（没有形成可执行的步骤）")
