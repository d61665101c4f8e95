"""How Team events look: a started line per step with its worker, a live line per running worker with its own
elapsed time (kept across printed notices), finished lines, and the worker in stream-json / -p lines."""

from __future__ import annotations

import io
from collections.abc import Callable

from rich.console import Console

from paicli.agent.events import Notice, TaskActivity, TaskFinished, TaskStarted
from paicli.cli.plan_view import PlanLive, plan_event_json, plan_event_line
from paicli.cli.render import EventRenderer


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class RecordingSpinner:
    """Stands in for WaitSpinner: remembers the label function the live view hands it."""

    def __init__(self) -> None:
        self.label: Callable[[], str] | str | None = None
        self.active = False

    def start(self, label: Callable[[], str] | str) -> None:
        self.label, self.active = label, True

    def relabel(self, label: Callable[[], str] | str) -> None:
        self.label = label

    def stop(self) -> None:
        self.active = False

    def text(self) -> str:
        assert self.label is not None
        return self.label() if callable(self.label) else self.label


def test_each_running_worker_has_a_live_line_with_its_own_elapsed_time() -> None:
    buffer, clock, spinner = io.StringIO(), Clock(), RecordingSpinner()
    live = PlanLive(Console(file=buffer, width=120), spinner, clock)  # type: ignore[arg-type]
    live.show(TaskStarted("s1", "统计甲模块", parallel=True, worker="worker-1"))
    clock.now += 3
    live.show(TaskStarted("s2", "统计乙模块", parallel=True, worker="worker-2"))
    live.show(TaskActivity("s1", "⏺ read_file"))
    clock.now += 2
    assert spinner.active
    assert spinner.text() == "worker-1 [s1] ⏺ read_file 5s · worker-2 [s2] 启动中 2s"
    live.show(TaskFinished("s1", "done", "甲有 3 个文件"))
    assert spinner.active and spinner.text() == "worker-2 [s2] 启动中 2s"
    live.show(TaskFinished("s2", "done", "乙有 4 个文件"))
    assert not spinner.active
    lines = buffer.getvalue().splitlines()
    assert lines == [
        "🛠️ worker-1 执行步骤 [s1]: 统计甲模块",
        "🛠️ worker-2 执行步骤 [s2]: 统计乙模块",
        "✅ 完成 [s1]: 甲有 3 个文件",
        "✅ 完成 [s2]: 乙有 4 个文件",
    ]


def test_a_notice_printed_while_workers_run_gives_the_live_line_back() -> None:
    out, err = io.StringIO(), io.StringIO()
    renderer = EventRenderer(Console(file=out, width=120), Console(file=err, width=120), markdown=False)
    spinner = RecordingSpinner()
    renderer._spinner = spinner  # type: ignore[assignment]  # the live view draws on the renderer's spinner
    renderer(TaskStarted("s1", "统计甲模块", parallel=True, worker="worker-1"))
    renderer(Notice("🔍 reviewer-s1 正在审查步骤 [s1] 的结果..."))
    assert spinner.active and spinner.text().startswith(
        "worker-1 [s1] 启动中"
    )  # the notice stopped it; it is back
    renderer(TaskFinished("s1", "done", "好"))
    assert not spinner.active
    assert err.getvalue().splitlines() == [
        "🛠️ worker-1 执行步骤 [s1]: 统计甲模块",
        "🔍 reviewer-s1 正在审查步骤 [s1] 的结果...",
        "✅ 完成 [s1]: 好",
    ]


def test_stream_json_and_text_lines_name_the_worker() -> None:
    started = TaskStarted("s2", "统计乙模块", parallel=True, worker="worker-2")
    assert plan_event_json(started) == {
        "type": "task_start",
        "task_id": "s2",
        "description": "统计乙模块",
        "parallel": True,
        "worker": "worker-2",
    }
    assert plan_event_line(started) == "🛠️ worker-2 执行步骤 [s2]: 统计乙模块"
    plan_task = TaskStarted("t1", "读取", parallel=True)
    assert "worker" not in (plan_event_json(plan_task) or {}) and plan_event_line(plan_task) is None
