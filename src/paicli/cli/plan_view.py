"""How plan events look in the REPL: the rich tree / table and the live line (the text forms are in plan_lines)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from paicli.agent.events import AgentEvent
from paicli.agent.plan.model import Plan
from paicli.agent.task_events import PLAN_EVENTS, PlanProposed, TaskActivity, TaskFinished, TaskStarted
from paicli.cli.plan_lines import finished_line, one_line, plan_event_json, plan_event_line, started_line
from paicli.cli.printing import say
from paicli.cli.spinner import WaitSpinner
from paicli.termsafe import strip_terminal

__all__ = ["PLAN_EVENTS", "PlanLive", "plan_event_json", "plan_event_line", "plan_table", "plan_tree"]
_STATUS_MARK = {"done": "✅", "failed": "❌", "skipped": "⏭️", "pending": "⏳", "running": "▶️"}

REVIEW_HELP = (
    "📝 计划已生成。\n"
    "   - 回车：按当前计划执行\n"
    "   - Ctrl+O：展开完整计划\n"
    "   - ESC：折叠或取消本次计划\n"
    "   - I：输入补充要求后重新规划"
)
EXPANDED_HINT = "👆 已展开完整计划，继续按 Enter / Ctrl+O / ESC / I。"
COLLAPSED_HINT = "📁 已退出完整计划视图，继续按 Enter / Ctrl+O / ESC / I。"
UNKNOWN_KEY = "未识别按键，请按 Enter / Ctrl+O / ESC / I。"


def plan_tree(plan: Plan, done: tuple[str, ...] = ()) -> RenderableType:
    """The collapsed view: tasks as a dependency tree (a task under the first task it depends on)."""
    root = Tree(Text(f"📋 {strip_terminal(plan.summary) or '执行计划'}", style="bold"))
    nodes: dict[str, Tree] = {}
    for task in plan.tasks:
        parent = nodes.get(task.dependencies[0]) if task.dependencies else None
        label = Text(f"{_STATUS_MARK['done' if task.id in done else 'pending']} [{task.id}] ", style="cyan")
        label.append(f"{task.type.value} ", style="magenta")
        label.append(one_line(task.description, 70))
        if len(task.dependencies) > 1:
            label.append(f"  (依赖: {', '.join(task.dependencies)})", style="dim")
        nodes[task.id] = (parent or root).add(label)
    return root


def plan_table(plan: Plan, done: tuple[str, ...] = ()) -> RenderableType:
    """The expanded view (Ctrl+O): every task in full."""
    # Cells are Text, never markup strings: `[bold]` in a task description is shown as typed.
    table = Table(title=Text(strip_terminal(plan.summary) or "完整计划"), show_lines=True)
    table.add_column("id", style="cyan", no_wrap=True)
    table.add_column("类型", style="magenta", no_wrap=True)
    table.add_column("描述")
    table.add_column("依赖", style="dim")
    table.add_column("状态", no_wrap=True)
    for task in plan.tasks:
        status = "已完成" if task.id in done else "待执行"
        table.add_row(
            *(
                Text(strip_terminal(cell))
                for cell in (task.id, task.type.value, task.description, ", ".join(task.dependencies) or "无")
            ),
            status,
        )
    return Group(table)


@dataclass
class _Running:
    who: str  # the Team worker, or the task id
    text: str
    since: float


class PlanLive:
    """Plan and Team events in the REPL: the plan tree, one line per task start/end, and a live line of the
    tasks (Team: the workers) running now, each with its own elapsed time, on the renderer's spinner (their own
    tool lines are not printed while several run, so nothing interleaves)."""

    def __init__(
        self, console: Console, spinner: WaitSpinner, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._console = console
        self._spinner = spinner
        self._clock = clock
        self._running: dict[str, _Running] = {}

    def _label(self) -> str:
        now = self._clock()
        return " · ".join(
            f"{r.who} [{task_id}] {r.text} {max(0.0, now - r.since):.0f}s"
            if r.who != task_id
            else f"{task_id}: {r.text} {max(0.0, now - r.since):.0f}s"
            for task_id, r in self._running.items()
        )

    def resume(self) -> None:
        """After a printed line: the tasks still running get their live line back."""
        if self._running:
            self._spinner.start(self._label)

    def show(self, event: AgentEvent) -> None:
        if isinstance(event, PlanProposed):
            self._console.print(plan_tree(event.plan, event.done))
        elif isinstance(event, TaskStarted):
            if event.worker or not event.parallel:
                say(self._console, started_line(event), "bold")
            if event.worker or event.parallel:
                self._running[event.task_id] = _Running(
                    event.worker or event.task_id, "启动中", self._clock()
                )
                self._spinner.start(self._label)
        elif isinstance(event, TaskActivity) and event.task_id in self._running:
            self._running[event.task_id].text = strip_terminal(event.text)
            self._spinner.start(self._label)
        elif isinstance(event, TaskFinished):
            self._running.pop(event.task_id, None)
            self._spinner.stop()
            say(self._console, finished_line(event), _FINISHED_STYLE.get(event.status, "yellow"))
            self.resume()


_FINISHED_STYLE = {"done": "green", "failed": "red"}
