"""PlanExecuteAgent over the scripted LLM: skip-at-half, replan limit, cancellation, ledger attribution."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from paicli.agent.budget import AgentBudget
from paicli.agent.events import AgentEvent, RunFinished
from paicli.agent.loop import LoopStats
from paicli.agent.plan.agent import PlanExecuteAgent, PlanSettings
from paicli.agent.plan.model import PlanTask
from paicli.agent.plan.task import TaskEnv
from paicli.agent.ports import NoMemory, NullContext
from paicli.agent.task_events import PlanProposed, TaskFinished
from paicli.cancel import CancelToken
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMError
from paicli.testing.scripted_llm import Request, ScriptedLLM
from tests.agent.fake_tools import FakeToolRunner


class FakePrompts:
    def planner_system(self) -> str:
        return "PLANNER"

    def task_system(self, task: PlanTask) -> str:
        return f"TASK {task.type.value}"

    def template(self, name: str, variables: Mapping[str, str]) -> str:
        return f"{name}: " + " | ".join(f"{k}={v}" for k, v in sorted(variables.items()))


class Ledger:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, dict[str, Any]]] = []

    def append_message(
        self, mode: str, actor: str, source: str, message: Message, metadata: Mapping[str, Any] | None = None
    ) -> None:
        self.rows.append(("message", actor, source, dict(metadata or {})))

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None:
        self.rows.append((event, actor, source, dict(metadata)))


def plan_reply(*tasks: tuple[str, list[str]]) -> str:
    return json.dumps(
        {
            "tasks": [
                {"id": i, "description": f"任务{i}", "type": "ANALYSIS", "dependencies": d} for i, d in tasks
            ]
        }
    )


def task_name(request: Request) -> str | None:
    if request.messages[0].content == "PLANNER":
        return None
    text = request.messages[1].content or ""
    return text.split("description=")[1].split(" |")[0]


def make_agent(
    route: Callable[[Request], Any], max_replans: int = 2, cancel: CancelToken | None = None
) -> tuple[PlanExecuteAgent, ScriptedLLM, Ledger]:
    llm = ScriptedLLM(default_reply=route)
    ledger = Ledger()
    env = TaskEnv(
        llm,
        FakeToolRunner(),
        FakePrompts(),
        ledger,
        NoMemory(),
        100,
        NullContext,
        AgentBudget,
        LoopStats(),
        "目标",
    )
    return PlanExecuteAgent(env, PlanSettings(max_parallel=4, max_replans=max_replans)), llm, ledger


def run(agent: PlanExecuteAgent, cancel: CancelToken | None = None) -> tuple[RunFinished, list[AgentEvent]]:
    events: list[AgentEvent] = []
    return agent.run("目标", events.append, cancel or CancelToken()), events


def test_a_failure_at_half_progress_skips_its_dependents_and_runs_the_rest() -> None:
    plan = plan_reply(("a", []), ("b", []), ("c", ["a"]), ("d", ["c"]), ("e", ["b"]))

    def route(request: Request) -> Any:
        name = task_name(request)
        if name is None:
            return plan
        return LLMError("c 出错了") if name == "任务c" else f"{name} 完成"

    agent, llm, ledger = make_agent(route)
    finished, events = run(agent)
    ends = {e.task_id: e.status for e in events if isinstance(e, TaskFinished)}
    assert ends == {"a": "done", "b": "done", "e": "done", "c": "failed", "d": "skipped"}
    assert finished.status == "partial" and "依赖的任务 c 失败" in finished.answer
    assert sum(1 for r in llm.requests if task_name(r) is None) == 1  # 3/5 done when c failed: no replan
    assert ("run_result", "plan-agent") in {(row[0], row[1]) for row in ledger.rows}


def test_below_half_with_no_replans_left_everything_pending_is_skipped() -> None:
    def route(request: Request) -> Any:
        name = task_name(request)
        if name is None:
            return plan_reply(("a", []), ("b", ["a"]), ("c", ["b"]))
        return LLMError("坏了")

    agent, _, _ = make_agent(route, max_replans=0)
    finished, events = run(agent)
    ends = [(e.task_id, e.status, e.result) for e in events if isinstance(e, TaskFinished)]
    assert ends[0][:2] == ("a", "failed")
    assert ends[1:] == [
        ("b", "skipped", "任务 b 已跳过: 已达到重新规划上限"),
        ("c", "skipped", "任务 c 已跳过: 已达到重新规划上限"),
    ]
    assert finished.status == "error"


def test_replans_stop_at_the_limit() -> None:
    def route(request: Request) -> Any:
        name = task_name(request)
        return plan_reply(("x", [])) if name is None else LLMError("总是失败")

    agent, llm, ledger = make_agent(route, max_replans=2)
    finished, events = run(agent)
    assert sum(1 for r in llm.requests if task_name(r) is None) == 3
    assert len([e for e in events if isinstance(e, PlanProposed)]) == 3
    revisions = [row[3]["revision"] for row in ledger.rows if row[0] == "plan_created"]
    assert revisions == [0, 1, 2]
    assert finished.status == "error"


def test_an_invalid_plan_gets_one_repair_then_a_clear_error() -> None:
    replies = iter(["不是计划", "还是不是"])
    agent, llm, ledger = make_agent(lambda request: next(replies))
    finished, _ = run(agent)
    assert finished.status == "error" and "无法解析执行计划" in (finished.error or "")
    assert "还是不是" in (finished.error or "")
    assert len(llm.requests) == 2 and "planner-repair" in (llm.requests[1].messages[-1].content or "")
    assert [row[0] for row in ledger.rows][-1] == "run_error"


def test_cancel_stops_the_plan_and_leaves_the_run_unended_for_tasks() -> None:
    cancel = CancelToken()

    def route(request: Request) -> Any:
        name = task_name(request)
        if name is None:
            return plan_reply(("a", []), ("b", ["a"]))
        cancel.cancel()
        return "a 做了一半"

    agent, _, ledger = make_agent(route)
    finished, events = run(agent, cancel)
    assert finished.status == "cancelled"
    assert not [e for e in events if isinstance(e, TaskFinished) and e.task_id == "b"]
    assert ledger.rows[-1][0] == "run_cancelled" and ledger.rows[-1][1] == "plan-agent"


def test_urls_found_by_a_task_are_passed_to_its_dependents_and_checkpointed() -> None:
    def route(request: Request) -> Any:
        name = task_name(request)
        return plan_reply(("a", []), ("b", ["a"])) if name is None else f"{name} 完成"

    agent, llm, ledger = make_agent(route)
    runner = agent.env.tools
    assert isinstance(runner, FakeToolRunner)
    runner.found_urls.append("https://example.com/doc")
    finished, _ = run(agent)
    assert finished.status == "done"
    assert runner.inherited == [[], ["https://example.com/doc"]]
    task_b = next(r for r in llm.requests if task_name(r) == "任务b")
    assert "https://example.com/doc" in (task_b.messages[1].content or "")
    states = [row[3] for row in ledger.rows if row[0] == "task_state" and row[3]["status"] == "done"]
    assert states[0]["urls"] == ["https://example.com/doc"]


def test_parallel_task_output_becomes_a_status_and_whole_tool_calls_not_interleaved_text() -> None:
    from paicli.agent.events import ModelCallStarted, Notice, TextDelta, ToolFinished, ToolStarted
    from paicli.agent.member_events import member_events
    from paicli.agent.task_events import TaskActivity, TaskToolCall
    from paicli.tools.base import ToolResult

    seen: list[AgentEvent] = []
    parallel = member_events("t2", seen.append, parallel=True)
    for event in (
        TextDelta("半句话"),
        ModelCallStarted(1, "task:t2"),
        ToolStarted("c1", "read_file", '{"path": "a.txt"}'),
        ToolFinished(ToolResult("c1", "read_file", "x")),
        Notice("注意"),
    ):
        parallel(event)
    assert seen == [
        TaskActivity("t2", "等待模型回复"),
        TaskActivity("t2", "⏺ read_file"),
        TaskToolCall(
            "t2",
            "t2",
            ToolStarted("c1", "read_file", '{"path": "a.txt"}'),
            ToolResult("c1", "read_file", "x"),
        ),
        TaskActivity("t2", "✓ read_file"),
        Notice("[t2] 注意"),
    ]
    inline: list[AgentEvent] = []
    member_events("t1", inline.append, parallel=False)(ToolStarted("c2", "list_dir", "{}"))
    member_events("t1", inline.append, parallel=False)(TextDelta("不显示"))
    assert inline == [ToolStarted("c2", "list_dir", "{}")]


def test_a_team_step_status_names_only_a_caller_other_than_its_worker() -> None:
    from paicli.agent.events import ModelCallStarted
    from paicli.agent.member_events import member_events
    from paicli.agent.task_events import TaskActivity

    for parallel in (False, True):
        seen: list[AgentEvent] = []
        step = member_events("s1", seen.append, parallel, who="worker-1")
        step(ModelCallStarted(1, "worker-1"))
        step(ModelCallStarted(1, "reviewer-s1"))
        assert seen == [TaskActivity("s1", "等待模型回复"), TaskActivity("s1", "reviewer-s1 等待模型回复")]


def test_a_blank_final_answer_after_tools_returns_the_tool_results() -> None:
    from paicli.testing.scripted_llm import tool_call_reply

    def route(request: Request) -> Any:
        if task_name(request) is None:
            return plan_reply(("a", []))
        return tool_call_reply(("read_file", '{"path": "a.txt"}')) if len(request.messages) == 2 else ""

    agent, _, _ = make_agent(route)
    runner = agent.env.tools
    assert isinstance(runner, FakeToolRunner)
    runner.handlers["read_file"] = lambda call, cancel: "甲文件的内容"
    finished, events = run(agent)
    ends = [e for e in events if isinstance(e, TaskFinished)]
    assert ends[0].status == "done" and ends[0].result.strip() == "甲文件的内容"
    assert "[a] 甲文件的内容" in finished.answer


def test_fact_extraction_hook_runs_once_on_what_the_user_typed_only_after_a_completed_plan() -> None:
    def ok(request: Request) -> Any:
        return plan_reply(("a", []), ("b", [])) if task_name(request) is None else "完成"

    agent, _, _ = make_agent(ok)
    typed: list[str] = []
    agent.on_completed = typed.append
    events: list[AgentEvent] = []
    agent.run("展开后的目标 @a.txt 内容", events.append, CancelToken(), submitted="我输入的目标")
    assert typed == ["我输入的目标"]

    def failing(request: Request) -> Any:
        return plan_reply(("a", [])) if task_name(request) is None else LLMError("坏了")

    agent, _, _ = make_agent(failing, max_replans=0)
    agent.on_completed = typed.append
    agent.run("目标", events.append, CancelToken())
    assert typed == ["我输入的目标"]
