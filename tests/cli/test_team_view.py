"""How Team events look: a started line per step with its worker, a live line per running worker with its own
elapsed time (kept across printed notices), finished lines, and the worker in stream-json / -p lines."""

from __future__ import annotations

import io
import json
from collections.abc import Callable

from rich.console import Console

from paicli.agent.events import Notice, ToolStarted
from paicli.agent.task_events import TaskActivity, TaskFinished, TaskStarted, TaskToolCall
from paicli.cli.plan_view import PlanLive, plan_event_json, plan_event_line
from paicli.cli.render import EventRenderer
from paicli.tools.base import ToolResult


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


def _write(step: str, worker: str, name: str, line: str) -> TaskToolCall:
    diff = f"--- /dev/null\n+++ b/{name}\n@@ -0,0 +1 @@\n+{line}\n"
    arguments = json.dumps({"path": name, "content": line + "\n"}, ensure_ascii=False)
    return TaskToolCall(
        step,
        worker,
        ToolStarted(f"c-{name}", "write_file", arguments),
        ToolResult(f"c-{name}", "write_file", f"已写入 {name}", display=diff),
    )


def test_parallel_workers_writes_show_their_line_and_diff_whole_under_the_worker() -> None:
    out, err = io.StringIO(), io.StringIO()
    renderer = EventRenderer(Console(file=out, width=120), Console(file=err, width=120), markdown=False)
    renderer._spinner = RecordingSpinner()  # type: ignore[assignment]
    renderer(TaskStarted("s1", "写甲", parallel=True, worker="worker-1"))
    renderer(TaskStarted("s2", "写乙", parallel=True, worker="worker-2"))
    renderer(_write("s1", "worker-1", "a.txt", "甲"))
    renderer(_write("s2", "worker-2", "b.txt", "乙"))
    renderer(_write("s2", "worker-2", "c.txt", "丙"))
    renderer(TaskActivity("s1", "等待模型回复"))
    renderer(Notice("🔍 reviewer-s1 正在审查步骤 [s1] 的结果..."))
    renderer(_write("s2", "worker-2", "d.txt", "丁"))
    block = [
        "⏺ write_file({})",
        "  ⎿ 已写入 {}",
        "    --- /dev/null",
        "    +++ b/{}",
        "    @@ -0,0 +1 @@",
        "    +{}",
    ]

    def call(name: str, line: str) -> list[str]:
        return [row.format(line if row == "    +{}" else name) for row in block]

    assert err.getvalue().splitlines() == [
        "🛠️ worker-1 执行步骤 [s1]: 写甲",
        "🛠️ worker-2 执行步骤 [s2]: 写乙",
        "🛠️ worker-1 [s1]",
        *call("a.txt", "甲"),
        "🛠️ worker-2 [s2]",
        *call("b.txt", "乙"),
        *call("c.txt", "丙"),  # the same worker's next call: no second header
        "🔍 reviewer-s1 正在审查步骤 [s1] 的结果...",
        "🛠️ worker-2 [s2]",  # something else was printed between: named again
        *call("d.txt", "丁"),
    ]
    event = _write("s2", "worker-2", "b.txt", "乙")
    assert plan_event_json(event) == {
        "type": "task_tool",
        "task_id": "s2",
        "who": "worker-2",
        "name": "write_file",
        "arguments": event.started.arguments,
        "success": True,
        "blocked": False,
    }
    assert (plan_event_line(event) or "").startswith("  [s2] ⏺ write_file {")
