"""The run record and guarded execution the Plan and Team orchestrators share (agent/plan/orchestration.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paicli.agent.events import AgentEvent, RunFinished
from paicli.agent.plan.model import NodeState, Plan, PlanProgress, PlanTask, TaskType
from paicli.agent.plan.orchestration import RunGuard, RunRecorder
from paicli.agent.plan.turn import RunStart
from paicli.llm.messages import Message


class Ledger:
    def __init__(self) -> None:
        self.rows: list[tuple[str, str, str, str, dict[str, Any]]] = []

    def append_message(
        self, mode: str, actor: str, source: str, message: Message, metadata: Mapping[str, Any] | None = None
    ) -> None:
        self.rows.append(("message", mode, actor, source, {"content": message.content, **(metadata or {})}))

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None:
        self.rows.append((event, mode, actor, source, dict(metadata)))


ALL_FAILED = RunFinished("error", "- [s1] ❌ 失败", "没有任何步骤完成")


def test_an_error_with_an_answer_ends_a_plan_as_run_error_and_a_team_run_as_run_result() -> None:
    plan_ledger, team_ledger = Ledger(), Ledger()
    RunRecorder(plan_ledger, "plan", "plan-agent").end("p1", ALL_FAILED)
    RunRecorder(team_ledger, "team", "orchestrator", answered_error_is_result=True).end("r1", ALL_FAILED)
    assert plan_ledger.rows == [
        ("run_error", "plan", "plan-agent", "plan", {"planId": "p1", "error": "没有任何步骤完成"})
    ]
    assert team_ledger.rows == [
        (
            "run_result",
            "team",
            "orchestrator",
            "team",
            {"planId": "r1", "status": "error", "result": "- [s1] ❌ 失败"},
        )
    ]


def test_an_error_without_an_answer_and_a_cancellation_end_both_kinds_alike() -> None:
    for recorder_of in (
        lambda ledger: RunRecorder(ledger, "plan", "plan-agent"),
        lambda ledger: RunRecorder(ledger, "team", "orchestrator", answered_error_is_result=True),
    ):
        ledger = Ledger()
        recorder = recorder_of(ledger)
        recorder.end("x", RunFinished("error", "", "坏了"))
        recorder.end("x", RunFinished("cancelled", "停"), "review_cancel")
        assert [(event, source, meta) for event, _, _, source, meta in ledger.rows] == [
            ("run_error", recorder.mode, {"planId": "x", "error": "坏了"}),
            ("run_cancelled", "review_cancel", {"planId": "x"}),
        ]


def test_task_state_and_user_input_rows() -> None:
    ledger = Ledger()
    recorder = RunRecorder(ledger, "team", "orchestrator")
    assert recorder.user_input("目标", None) == "目标"
    assert recorder.user_input("展开后的目标", "@a.py 目标") == "@a.py 目标"
    recorder.task_state("r1", "s1", NodeState("done", "结果", ("https://a.example",)), "worker-1", "通过")
    recorder.task_state("r1", "s2", NodeState("running"), "orchestrator")
    assert ledger.rows == [
        ("message", "team", "orchestrator", "user_input", {"content": "目标", "submittedInput": "目标"}),
        (
            "message",
            "team",
            "orchestrator",
            "user_input",
            {"content": "展开后的目标", "submittedInput": "@a.py 目标"},
        ),
        (
            "task_state",
            "team",
            "worker-1",
            "done",
            {
                "planId": "r1",
                "taskId": "s1",
                "status": "done",
                "result": "结果",
                "urls": ["https://a.example"],
                "review": "通过",
            },
        ),
        (
            "task_state",
            "team",
            "orchestrator",
            "running",
            {"planId": "r1", "taskId": "s2", "status": "running", "result": ""},
        ),
    ]


def test_the_guard_turns_a_crash_into_one_recorded_and_returned_error_without_the_hook() -> None:
    ledger, emitted, hooked = Ledger(), list[AgentEvent](), list[str]()

    def crash() -> RunFinished:
        raise ValueError("坏数据")

    guard = RunGuard(RunRecorder(ledger, "plan", "plan-agent"), failure_prefix="❌ ")
    plan = Plan("整理目录", (PlanTask("t1", "列出文件", TaskType.FILE_READ),))
    reached = PlanProgress(plan, {"t1": NodeState("done", "一共三个文件")})
    start = RunStart("p1", "整理目录", "原话")
    finished = guard.execute(start, crash, emitted.append, hooked.append, lambda: reached)
    assert finished == RunFinished("error", "", "❌ 执行失败: 坏数据")
    assert emitted == []  # the outcome is returned only
    assert [row[0] for row in ledger.rows] == ["run_error"]
    assert hooked == []
    # a crashed run is still a turn: what had been reached, and why it stopped
    turn = finished.turn
    assert turn is not None and (turn.mode, turn.run_id, turn.goal, turn.submitted) == (
        "plan",
        "p1",
        "整理目录",
        "原话",
    )
    assert "一共三个文件" in turn.answer and "坏数据" in turn.answer and turn.status == "error"


def test_the_guard_calls_the_hook_after_a_done_run_and_survives_a_failing_hook() -> None:
    ledger, emitted, hooked = Ledger(), list[AgentEvent](), list[str]()
    done = RunFinished("done", "好了")
    guard = RunGuard(RunRecorder(ledger, "team", "orchestrator"))
    empty = PlanProgress(Plan("目标", ()))
    start = RunStart("r1", "目标", "原话")
    assert guard.execute(start, lambda: done, emitted.append, hooked.append, lambda: empty) == done
    assert hooked == ["原话"] and emitted == []

    def broken_hook(_: str) -> None:
        raise RuntimeError("hook")

    again = RunStart("r2", "目标", "原话")
    assert guard.execute(again, lambda: done, emitted.append, broken_hook, lambda: empty) == done
    assert emitted == []
    assert [row[0] for row in ledger.rows] == ["run_result", "run_result"]
