"""The plan's final text from its node states (pure; spec 8.4 "Results")."""

from __future__ import annotations

from paicli.agent.events import RunFinished
from paicli.agent.plan.model import PlanProgress

STUCK = "⚠️ 计划未能继续推进，存在未满足依赖的任务。"


def _leaves(progress: PlanProgress) -> list[str]:
    needed = {dep for task in progress.plan.tasks for dep in task.dependencies}
    return [task.id for task in progress.plan.tasks if task.id not in needed]


def plan_result(progress: PlanProgress) -> RunFinished:
    tasks = progress.plan.tasks
    statuses = {task.id: progress.state(task.id).status for task in tasks}
    if all(status == "done" for status in statuses.values()):
        lines = ["✅ 计划执行完成！"]
        lines.extend(f"[{task_id}] {progress.state(task_id).result.strip()}" for task_id in _leaves(progress))
        return RunFinished("done", "\n".join(lines))
    failed = [task_id for task_id, status in statuses.items() if status in ("failed", "skipped")]
    if not failed:
        return RunFinished("partial", STUCK)
    lines = ["⚠️ 计划部分完成，有任务失败。"]
    done = [task_id for task_id, status in statuses.items() if status == "done"]
    if done:
        lines.append("已完成的任务结果:")
        lines.extend(f"[{task_id}] {progress.state(task_id).result.strip()}" for task_id in done)
    for task_id in failed:
        state = progress.state(task_id)
        mark = "❌ 失败" if state.status == "failed" else "⏭️ 跳过"
        lines.append(f"{mark} [{task_id}]: {state.result.strip()}")
    return RunFinished("partial" if done else "error", "\n".join(lines), None if done else "计划执行失败")
