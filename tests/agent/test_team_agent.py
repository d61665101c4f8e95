"""TeamAgent over the scripted LLM: review/retry flow, tools only for workers, history boundaries, failures,
cancellation and ledger attribution."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from typing import Any

from paicli.agent.budget import AgentBudget
from paicli.agent.events import AgentEvent, Notice, RunFinished
from paicli.agent.loop import LoopStats
from paicli.agent.ports import NullContext
from paicli.agent.task_events import PlanProposed, TaskFinished, TaskStarted
from paicli.agent.team.agent import CANCELLED, TeamAgent, TeamEnv
from paicli.agent.team.prompts import Role
from paicli.cancel import CancelToken
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMError
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import Request, ScriptedLLM
from tests.agent.fake_tools import FakeToolRunner


class FakeTeamPrompts:
    def role_system(self, role: Role) -> str:
        return f"TEAM {role}"

    def template(self, name: str, variables: Mapping[str, str]) -> str:
        return f"{name}: " + " | ".join(f"{k}={v}" for k, v in sorted(variables.items()))


class Ledger:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, dict[str, Any]]] = []
        self.lock = threading.Lock()

    def append_message(
        self, mode: str, actor: str, source: str, message: Message, metadata: Mapping[str, Any] | None = None
    ) -> None:
        with self.lock:
            self.rows.append(("message", actor, source, {"text": message.text, "mode": mode}))

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None:
        with self.lock:
            self.rows.append((event, actor, source, dict(metadata)))

    def actors(self) -> set[str]:
        return {actor for _, actor, _, _ in self.rows}


def steps_reply(*steps: tuple[str, list[str]]) -> str:
    return json.dumps(
        {
            "summary": "团队计划",
            "steps": [
                {"id": i, "description": f"步骤{i}", "type": "ANALYSIS", "dependencies": d} for i, d in steps
            ],
        }
    )


def role(request: Request) -> str:
    return (request.messages[0].content or "").removeprefix("TEAM ")


def step_of(request: Request) -> str | None:
    """The step a worker or reviewer request is about (its first user message names it)."""
    if len(request.messages) < 2:
        return None
    text = request.messages[1].content or ""
    return text.split("description=")[1].split(" |")[0] if "description=" in text else None


APPROVE = '{"approved": true, "issues": []}'


def make_agent(
    route: Callable[[Request], Any], on_completed: Callable[[str], None] | None = None
) -> tuple[TeamAgent, ScriptedLLM, Ledger, FakeToolRunner]:
    llm = ScriptedLLM(default_reply=route)
    ledger = Ledger()
    tools = FakeToolRunner(handlers={"read_file": lambda call, cancel: "文件内容"})
    env = TeamEnv(llm, tools, FakeTeamPrompts(), ledger, NullContext, AgentBudget, LoopStats(), "团队目标")
    return TeamAgent(env, on_completed), llm, ledger, tools


def run(agent: TeamAgent, cancel: CancelToken | None = None) -> tuple[RunFinished, list[AgentEvent]]:
    events: list[AgentEvent] = []
    return agent.run("团队目标", events.append, cancel or CancelToken()), events


def notices(events: list[AgentEvent]) -> list[str]:
    return [e.text for e in events if isinstance(e, Notice)]


def test_a_run_plans_executes_reviews_and_attributes_every_entry() -> None:
    completed: list[str] = []
    both_working = threading.Barrier(
        2, timeout=60
    )  # s1 and s2 are answered only once both workers are on them

    def route(request: Request) -> Any:
        who = role(request)
        if who == "planner":
            return steps_reply(("s1", []), ("s2", []), ("s3", ["s1", "s2"]))
        if who == "reviewer":
            return APPROVE
        if step_of(request) in ("步骤s1", "步骤s2"):
            both_working.wait()
        return f"{step_of(request)} 的结果"

    agent, llm, ledger, _ = make_agent(route, completed.append)
    finished, events = run(agent)

    assert finished.status == "done", finished
    assert finished.answer.startswith("✅ 团队任务完成（3/3 个步骤完成）")
    assert "[s3] 步骤s3 的结果" in finished.answer
    assert completed == ["团队目标"]
    assert notices(events)[:3] == ["📋 第一阶段：规划", "🧑‍💼 规划者正在分析任务...", "⚡ 第二阶段：执行"]
    assert "⚡ 批次 #1：2 个独立步骤并行执行（最多 2 个并发 Worker）" in notices(events)
    assert notices(events).count("✅ 步骤 [s3] 审查通过") == 1
    started = {e.task_id: e for e in events if isinstance(e, TaskStarted)}
    assert (started["s1"].worker, started["s2"].worker, started["s3"].worker) == (
        "worker-1",
        "worker-2",
        "worker-1",
    )
    assert started["s1"].parallel and not started["s3"].parallel
    assert [e.task_id for e in events if isinstance(e, TaskFinished)] == ["s1", "s2", "s3"]
    assert any(isinstance(e, PlanProposed) for e in events)

    assert {
        "orchestrator",
        "planner",
        "worker-1",
        "worker-2",
        "reviewer-s1",
        "reviewer-s2",
        "reviewer",
    } <= ledger.actors()
    clears = {
        actor
        for event, actor, source, _ in ledger.rows
        if event == "history_clear" and source == "task_boundary"
    }
    assert clears == {"planner", "worker-1", "worker-2", "reviewer-s1", "reviewer-s2", "reviewer"}
    assert ("run_result", "orchestrator") in {(e, a) for e, a, _, _ in ledger.rows}
    planning = next(r for r in llm.requests if role(r) == "planner")
    assert planning.messages[1].content == "请为以下任务制定执行计划：\n团队目标"
    for request in llm.requests:
        assert_protocol_valid(request.messages)


def test_only_workers_get_tools_and_each_step_starts_from_a_clean_history() -> None:
    def route(request: Request) -> Any:
        who = role(request)
        if who == "planner":
            return steps_reply(("s1", []), ("s2", ["s1"]), ("s3", ["s2"]))
        if who == "reviewer":
            return APPROVE
        if step_of(request) == "步骤s1" and len(request.messages) == 2:
            return Message.assistant(None, tool_calls=(_call("c1", "read_file", '{"path": "a.txt"}'),))
        return f"{step_of(request)} 完成"

    agent, llm, _, tools = make_agent(route)
    finished, events = run(agent)

    assert finished.status == "done", finished
    assert [call.name for call in tools.executed] == ["read_file"]
    for request in llm.requests:
        if role(request) == "worker":
            assert request.tools and request.tools[0]["function"]["name"] == "read_file"
        else:
            assert request.tools is None, role(request)
    workers = {e.task_id: e.worker for e in events if isinstance(e, TaskStarted)}
    assert workers == {"s1": "worker-1", "s2": "worker-2", "s3": "worker-1"}
    s3 = [r for r in llm.requests if role(r) == "worker" and step_of(r) == "步骤s3"]
    assert len(s3) == 1 and len(s3[0].messages) == 2  # worker-1 ran s1 before; its history was cleared
    assert "已完成的依赖步骤 [s2]: 步骤s2\n结果：步骤s2 完成\n" in (s3[0].messages[1].content or "")
    assert "步骤s1" not in (s3[0].messages[1].content or "")  # only direct dependencies are passed on


def _call(call_id: str, name: str, arguments: str) -> Any:
    from paicli.llm.messages import ToolCall

    return ToolCall(call_id, name, arguments)


def test_a_rejected_result_is_retried_with_the_feedback_and_accepted_on_the_second_try() -> None:
    verdicts = ['{"approved": false, "issues": ["缺少结论"]}', APPROVE]

    def route(request: Request) -> Any:
        who = role(request)
        if who == "planner":
            return steps_reply(("s1", []))
        if who == "reviewer":
            return verdicts.pop(0)
        return "第一版" if len(request.messages) == 2 else "第二版，带结论"

    agent, llm, _, _ = make_agent(route)
    finished, events = run(agent)

    assert finished.status == "done"
    assert "- [s1] ✅ 完成：第二版，带结论" in finished.answer
    workers = [r for r in llm.requests if role(r) == "worker"]
    assert len(workers) == 2
    retry = workers[1].messages
    assert [m.role for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[2].content == "第一版"
    assert "team-retry: issues=- 缺少结论" in (retry[3].content or "")
    assert "⚠️ 步骤 [s1] 审查未通过，正在重新执行...\n   反馈: - 缺少结论" in notices(events)
    reviews = [r for r in llm.requests if role(r) == "reviewer"]
    assert "result=第二版，带结论" in (reviews[1].messages[-1].content or "")


def test_after_two_rejected_retries_the_last_result_is_kept_with_a_warning() -> None:
    answers = iter(["一", "二", "三"])

    def route(request: Request) -> Any:
        who = role(request)
        if who == "planner":
            return steps_reply(("s1", []))
        if who == "reviewer":
            return "不太行"
        return next(answers)

    agent, llm, _, _ = make_agent(route)
    finished, events = run(agent)

    assert [role(r) for r in llm.requests].count("worker") == 3
    assert "⚠️ 步骤 [s1] 超过最大重试次数，保留当前结果" in notices(events)
    assert finished.status == "done"
    assert "- [s1] ✅ 完成（审查未通过，保留最后一次结果）：三" in finished.answer


def test_a_reviewer_model_error_keeps_the_result() -> None:
    def route(request: Request) -> Any:
        who = role(request)
        if who == "planner":
            return steps_reply(("s1", []))
        if who == "reviewer":
            return LLMError("审查模型不可用")
        return "结果"

    agent, llm, ledger, _ = make_agent(route)
    finished, events = run(agent)

    assert finished.status == "done"
    assert "⚠️ 步骤 [s1] 审查阶段 LLM 调用失败，保留当前执行结果" in notices(events)
    assert [role(r) for r in llm.requests].count("worker") == 1
    states = [m for e, _, _, m in ledger.rows if e == "task_state" and m["status"] == "done"]
    assert states[0]["review"] == "审查调用失败，未经审查"


def test_a_failed_step_skips_its_dependents_with_the_reason_and_the_rest_still_runs() -> None:
    def route(request: Request) -> Any:
        who = role(request)
        if who == "planner":
            return steps_reply(("s1", []), ("s2", ["s1"]), ("s3", []))
        if who == "reviewer":
            return APPROVE
        return LLMError("执行模型出错") if step_of(request) == "步骤s1" else "好了"

    agent, _, ledger, _ = make_agent(route, on_completed=lambda _: (_ for _ in ()).throw(AssertionError))
    finished, events = run(agent)

    assert finished.status == "partial"
    ends = {e.task_id: e for e in events if isinstance(e, TaskFinished)}
    assert ends["s1"].status == "failed" and "执行模型出错" in ends["s1"].result
    assert ends["s2"].status == "skipped"
    assert ends["s2"].result == "步骤 [s2] 因前置步骤失败被跳过（s1 未完成）: 步骤s2"
    assert ends["s3"].status == "done"
    skipped = [(a, m) for e, a, _, m in ledger.rows if e == "task_state" and m["status"] == "skipped"]
    assert skipped == [("orchestrator", skipped[0][1])] and skipped[0][1]["taskId"] == "s2"


def test_an_unparsable_plan_is_rejected_with_the_raw_output_and_nothing_runs() -> None:
    def route(request: Request) -> Any:
        return steps_reply(("s1", ["s2"]), ("s2", ["s1"])) if role(request) == "planner" else "不该被调用"

    agent, llm, ledger, _ = make_agent(route)
    finished, _ = run(agent)

    assert finished.status == "error"
    assert finished.error is not None and finished.error.startswith(
        "规划失败：无法解析执行计划（任务之间存在循环依赖"
    )
    assert "原始输出:\n{" in finished.error
    assert [role(r) for r in llm.requests] == ["planner"]
    assert ("run_error", "orchestrator") in {(e, a) for e, a, _, _ in ledger.rows}


def test_a_planner_model_error_and_an_empty_plan_reply() -> None:
    agent, _, _, _ = make_agent(lambda request: LLMError("连不上"))
    finished, _ = run(agent)
    assert finished.error is not None and finished.error.startswith("规划阶段失败，规划者 LLM 调用出错：")
    agent, _, _, _ = make_agent(lambda request: "  ")
    finished, _ = run(agent)
    assert finished.error == "规划失败：规划者未能生成有效计划"


def test_cancelling_during_a_step_cancels_the_run() -> None:
    cancel = CancelToken()

    def route(request: Request) -> Any:
        who = role(request)
        if who == "planner":
            return steps_reply(("s1", []), ("s2", ["s1"]))
        cancel.cancel()  # the user presses Esc while the worker waits for the model
        return "结果"

    agent, llm, ledger, _ = make_agent(route)
    finished, events = run(agent, cancel)

    assert finished.status == "cancelled" and finished.answer == CANCELLED
    assert not any(role(r) == "reviewer" for r in llm.requests)
    assert ("run_cancelled", "orchestrator") in {(e, a) for e, a, _, _ in ledger.rows}
    assert not any(isinstance(e, TaskFinished) for e in events)


def test_cancelled_before_planning() -> None:
    cancel = CancelToken()
    cancel.cancel()
    agent, llm, ledger, _ = make_agent(lambda request: "x")
    finished, _ = run(agent, cancel)
    assert finished.status == "cancelled" and llm.requests == []
    assert ("run_cancelled", "orchestrator", "before_planning") in {(e, a, s) for e, a, s, _ in ledger.rows}
