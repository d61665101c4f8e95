"""Plan and Team events as text: the stream-json objects and the stderr lines of `-p` (no rich: a `-p --plan`
run never loads the REPL's tables and trees)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from paicli.agent.events import AgentEvent
from paicli.agent.task_events import PlanProposed, TaskActivity, TaskFinished, TaskStarted, TaskToolCall
from paicli.termsafe import strip_terminal

if TYPE_CHECKING:
    from paicli.agent.plan.model import Plan

RESULT_PREVIEW = 100


def plan_event_json(event: AgentEvent) -> dict[str, Any] | None:
    if isinstance(event, PlanProposed):
        return {
            "type": "plan",
            "revision": event.revision,
            "summary": event.plan.summary,
            "tasks": [t.to_json() for t in event.plan.tasks],
            "completed": list(event.done),
        }
    if isinstance(event, TaskStarted):
        started: dict[str, Any] = {
            "type": "task_start",
            "task_id": event.task_id,
            "description": event.description,
            "parallel": event.parallel,
        }
        if event.worker:
            started["worker"] = event.worker
        return started
    if isinstance(event, TaskActivity):
        return {"type": "task_activity", "task_id": event.task_id, "text": event.text}
    if isinstance(event, TaskToolCall):
        return {
            "type": "task_tool",
            "task_id": event.task_id,
            "who": event.who,
            "name": event.result.name,
            "arguments": event.started.arguments,
            "success": event.result.success,
            "blocked": event.result.blocked,
        }
    if isinstance(event, TaskFinished):
        return {"type": "task_end", "task_id": event.task_id, "status": event.status, "result": event.result}
    return None


def one_line(text: str, limit: int = RESULT_PREVIEW) -> str:
    flat = " ".join(strip_terminal(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def summary_lines(plan: Plan, done: tuple[str, ...] = ()) -> list[str]:
    summary = strip_terminal(plan.summary)
    lines = [f"📋 执行计划（{len(plan.tasks)} 个任务）" + (f"：{summary}" if summary else "")]
    for task in plan.tasks:
        deps = ", ".join(task.dependencies) or "无"
        mark = "✅" if task.id in done else "⏳"
        lines.append(
            f"  {mark} [{task.id}] {task.type.value} {one_line(task.description, 60)} (依赖: {deps})"
        )
    return lines


def plan_event_line(event: AgentEvent) -> str | None:
    """One stderr line (or block) for `-p` text mode."""
    if isinstance(event, PlanProposed):
        return "\n".join(summary_lines(event.plan, event.done))
    if isinstance(event, TaskStarted):
        if event.worker:
            return started_line(event)
        return None if event.parallel else started_line(event)
    if isinstance(event, TaskFinished):
        return finished_line(event)
    if isinstance(event, TaskToolCall):
        mark = "✓" if event.result.success and not event.result.blocked else "✗"
        return (
            f"  [{event.task_id}] ⏺ {one_line(event.started.name)} {one_line(event.started.arguments)} {mark}"
        )
    return None


def started_line(event: TaskStarted) -> str:
    if event.worker:
        return f"🛠️ {event.worker} 执行步骤 [{event.task_id}]: {strip_terminal(event.description)}"
    return f"▶️ 执行任务 [{event.task_id}]: {strip_terminal(event.description)}"


def finished_line(event: TaskFinished) -> str:
    if event.status == "done":
        return f"✅ 完成 [{event.task_id}]: {one_line(event.result)}"
    if event.status == "failed":
        return f"❌ 失败 [{event.task_id}]: {one_line(event.result)}"
    return f"⏭️ {one_line(event.result)}"
