"""Plan mode in the REPL: single-key review (Enter / Ctrl+O / Esc / I with 补充>), /mode plan, continuation offer."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input

from paicli.agent.events import EventSink, PlanProposed, RunFinished, TaskFinished, TaskStarted
from paicli.agent.plan.model import Plan, PlanTask, TaskType
from paicli.cancel import CancelToken
from paicli.cli.backend import RunMode
from paicli.cli.repl_plan import supplement_decision
from tests.cli.fake_backend import FakeBackend
from tests.cli.test_repl_interactive import CTRL_D, ENTER, ESC, Session, pause
from tests.cli.test_repl_piped import drive

pytestmark = pytest.mark.timeout(60)
CTRL_O = "\x0f"


def a_plan(goal: str) -> Plan:
    return Plan(goal, (PlanTask("t1", "读取配置文件", TaskType.FILE_READ),
                       PlanTask("t2", "总结配置项", TaskType.ANALYSIS, ("t1",))), "两步计划")


@dataclass
class PlanBackend(FakeBackend):
    planned: threading.Event = field(default_factory=threading.Event)
    interrupted: str | None = None

    def plan_create(self, text: str, emit: EventSink, cancel: CancelToken) -> Any:
        self.calls.append(("plan_create", text))
        emit(PlanProposed(a_plan(text)))
        self.planned.set()
        return {"goal": text}

    def plan_revise(self, draft: Any, supplement: str, emit: EventSink, cancel: CancelToken) -> Any:
        self.calls.append(("plan_revise", supplement))
        goal = f"{draft['goal']}\n补充要求：{supplement}"
        emit(PlanProposed(a_plan(goal), 1))
        self.planned.set()
        return {"goal": goal}

    def plan_execute(self, draft: Any, emit: EventSink, cancel: CancelToken) -> RunFinished:
        self.calls.append(("plan_execute", draft["goal"]))
        emit(TaskStarted("t1", "读取配置文件"))
        emit(TaskFinished("t1", "done", "读到了 3 项"))
        return RunFinished("done", "✅ 计划执行完成！\n[t2] 三项都正常")

    def plan_cancel(self, draft: Any) -> RunFinished:
        self.calls.append(("plan_cancel", draft["goal"]))
        return RunFinished("cancelled", "⏹️ 已取消本次计划执行。")

    def default_mode(self) -> RunMode:
        return "plan" if ("mode", "plan") in self.calls else "react"

    def interrupted_plan(self) -> str | None:
        return self.interrupted

    def continue_plan(self, emit: EventSink, cancel: CancelToken) -> RunFinished:
        self.calls.append(("continue_plan", None))
        return RunFinished("done", "✅ 计划执行完成！")


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


def keys_after_plan(backend: PlanBackend, *steps: str) -> Any:
    """Type each step once the backend has (re)planned, so no key lands while planning runs."""

    def feeder(inp: PipeInput) -> None:
        for step in steps:
            if step == "<plan>":
                assert backend.planned.wait(20)
                backend.planned.clear()
                pause(0.5)
            else:
                inp.send_text(step)
                pause(0.4)

    return feeder


def test_review_expands_collapses_takes_a_supplement_then_executes(pipe: PipeInput, tmp_path: Path) -> None:
    backend = PlanBackend()
    session = Session(backend, pipe, tmp_path / "h")
    feeder = keys_after_plan(backend, "/plan 检查配置" + ENTER, "<plan>", CTRL_O, ESC, "x", "i", "再核对默认值" + ENTER,
                             "<plan>", ENTER, CTRL_D)
    session.run(feeder)
    assert [c for c in backend.calls if c[0].startswith("plan")] == [
        ("plan_create", "检查配置"), ("plan_revise", "再核对默认值"), ("plan_execute", "检查配置\n补充要求：再核对默认值")]
    text = session.text
    for expected in ("📝 计划已生成。", "👆 已展开完整计划", "📁 已退出完整计划视图", "未识别按键", "[t1]", "FILE_READ",
                     "✅ 完成 [t1]: 读到了 3 项", "三项都正常"):
        assert expected in text, expected


def test_esc_at_the_review_cancels_the_plan(pipe: PipeInput, tmp_path: Path) -> None:
    backend = PlanBackend()
    session = Session(backend, pipe, tmp_path / "h")
    session.run(keys_after_plan(backend, "/plan 删除旧文件" + ENTER, "<plan>", ESC, CTRL_D))
    assert ("plan_cancel", "删除旧文件") in backend.calls
    assert not [c for c in backend.calls if c[0] == "plan_execute"]
    assert "已取消本次计划执行" in session.text


def test_mode_plan_makes_plain_input_a_plan_and_piped_input_runs_without_review(tmp_path: Path) -> None:
    backend = PlanBackend()
    drive(backend, "/mode plan\n整理日志\n", tmp_path)
    assert ("run", ("整理日志", "plan")) in backend.calls
    assert not [c for c in backend.calls if c[0] == "plan_create"]


def test_an_interrupted_plan_is_offered_at_start(tmp_path: Path) -> None:
    backend = PlanBackend(interrupted="📋 上次有一个没有执行完的计划")
    _, out, _ = drive(backend, "y\n", tmp_path)
    assert "上次有一个没有执行完的计划" in out
    assert ("continue_plan", None) in backend.calls
    declined = PlanBackend(interrupted="📋 上次有一个没有执行完的计划")
    drive(declined, "n\n", tmp_path)
    assert ("continue_plan", None) not in declined.calls


@pytest.mark.parametrize(("typed", "decision"), [
    ("", ("execute", "")), ("  ", ("execute", "")), ("取消", ("cancel", "")), (None, ("cancel", "")),
    ("多写测试", ("supplement", "多写测试")),
])
def test_supplement_line_meaning(typed: str | None, decision: tuple[str, str]) -> None:
    assert supplement_decision(typed) == decision
