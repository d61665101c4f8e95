"""Plan mode in the REPL: single-key review (Enter / Ctrl+O / Esc / I with 补充>), /mode plan, continuation offer."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input

from paicli.agent.events import EventSink, RunFinished
from paicli.agent.plan.model import Plan, PlanTask, TaskType
from paicli.agent.task_events import PlanProposed, TaskFinished, TaskStarted
from paicli.cancel import CancelToken
from paicli.cli.repl_plan import supplement_decision
from paicli.config.modes import RunMode
from paicli.testing.fake_backend import FakeBackend
from tests.cli.test_repl_interactive import CTRL_D, ENTER, ESC, Session
from tests.cli.test_repl_piped import drive

pytestmark = pytest.mark.timeout(60)
CTRL_O = "\x0f"


def a_plan(goal: str) -> Plan:
    return Plan(
        goal,
        (
            PlanTask("t1", "读取配置文件", TaskType.FILE_READ),
            PlanTask("t2", "总结配置项", TaskType.ANALYSIS, ("t1",)),
        ),
        "两步计划",
    )


@dataclass
class PlanBackend(FakeBackend):
    interrupted: str | None = None

    def plan_create(self, text: str, emit: EventSink, cancel: CancelToken) -> Any:
        self.calls.append(("plan_create", text))
        emit(PlanProposed(a_plan(text)))
        return {"goal": text}

    def plan_revise(self, draft: Any, supplement: str, emit: EventSink, cancel: CancelToken) -> Any:
        self.calls.append(("plan_revise", supplement))
        goal = f"{draft['goal']}\n补充要求：{supplement}"
        emit(PlanProposed(a_plan(goal), 1))
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


def wait_for_text(session: Session, text: str, count: int = 1, timeout: float = 30.0) -> None:
    """Block until `text` has been printed `count` times (each key's effect is visible before the next key)."""
    done = threading.Event()
    while not done.wait(0.05):
        if session.text.count(text) >= count:
            return
        timeout -= 0.05
        assert timeout > 0, f"never saw {text!r}"


def typed(session: Session, *steps: tuple[str, str]) -> Any:
    """Each step: keys to send, then the text (with how often it must have appeared) to wait for."""
    seen: dict[str, int] = {}

    def feeder(inp: PipeInput) -> None:
        for keys, expect in steps:
            inp.send_text(keys)
            if expect:
                seen[expect] = seen.get(expect, 0) + 1
                wait_for_text(session, expect, seen[expect])

    return feeder


def test_review_expands_collapses_takes_a_supplement_then_executes(pipe: PipeInput, tmp_path: Path) -> None:
    backend = PlanBackend()
    session = Session(backend, pipe, tmp_path / "h")
    feeder = typed(
        session,
        ("/plan 检查配置" + ENTER, "📝 计划已生成。"),
        (CTRL_O, "👆 已展开完整计划"),
        (ESC, "📁 已退出完整计划视图"),
        ("x", "未识别按键"),
        ("i再核对默认值" + ENTER, "📝 计划已生成。"),
        (ENTER, "三项都正常"),
        (CTRL_D, ""),
    )
    session.run(feeder)
    assert [c for c in backend.calls if c[0].startswith("plan")] == [
        ("plan_create", "检查配置"),
        ("plan_revise", "再核对默认值"),
        ("plan_execute", "检查配置\n补充要求：再核对默认值"),
    ]
    for expected in ("[t1]", "FILE_READ", "✅ 完成 [t1]: 读到了 3 项"):
        assert expected in session.text, expected


def test_esc_at_the_review_cancels_the_plan(pipe: PipeInput, tmp_path: Path) -> None:
    backend = PlanBackend()
    session = Session(backend, pipe, tmp_path / "h")
    session.run(
        typed(
            session,
            ("/plan 删除旧文件" + ENTER, "📝 计划已生成。"),
            (ESC, "已取消本次计划执行"),
            (CTRL_D, ""),
        )
    )
    assert ("plan_cancel", "删除旧文件") in backend.calls
    assert not [c for c in backend.calls if c[0] == "plan_execute"]


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


@pytest.mark.parametrize(
    ("typed", "decision"),
    [
        ("", ("execute", "")),
        ("  ", ("execute", "")),
        ("取消", ("cancel", "")),
        (None, ("cancel", "")),
        ("多写测试", ("supplement", "多写测试")),
    ],
)
def test_supplement_line_meaning(typed: str | None, decision: tuple[str, str]) -> None:
    assert supplement_decision(typed) == decision


def test_live_view_prints_the_tree_and_one_line_per_finished_task() -> None:
    import io

    from rich.console import Console

    from paicli.cli.plan_view import PlanLive
    from paicli.cli.render import WaitSpinner

    buffer = io.StringIO()
    console = Console(file=buffer, width=100)
    live = PlanLive(console, WaitSpinner(console))
    live.show(PlanProposed(a_plan("目标")))
    live.show(TaskStarted("t1", "读取配置文件", parallel=True))
    live.show(TaskFinished("t1", "done", "读到了\n三项"))
    live.show(TaskFinished("t2", "failed", "模型出错"))
    text = buffer.getvalue()
    assert "[t1]" in text and "FILE_READ" in text and "[t2]" in text
    assert "✅ 完成 [t1]: 读到了 三项" in text and "❌ 失败 [t2]: 模型出错" in text
