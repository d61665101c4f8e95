"""The team run's final text (pure): every step's status with a short preview, then the results of the
steps nothing else built on (what the user asked for)."""

from __future__ import annotations

from collections.abc import Mapping

from paicli.agent.events import RunFinished
from paicli.agent.plan.model import PlanProgress

PREVIEW = 120
_MARK = {
    "done": "✅ 完成",
    "failed": "❌ 失败",
    "skipped": "⏭️ 跳过",
    "pending": "⏳ 未执行",
    "running": "⏳ 未完成",
}


def preview(text: str, limit: int = PREVIEW) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def team_result(progress: PlanProgress, notes: Mapping[str, str] | None = None) -> RunFinished:
    """`notes`: a review remark per step (e.g. kept after the retries ran out), shown after its status."""
    notes = notes or {}
    tasks = progress.plan.tasks
    done = [t.id for t in tasks if progress.state(t.id).status == "done"]
    if len(done) == len(tasks):
        lines = [f"✅ 团队任务完成（{len(done)}/{len(tasks)} 个步骤完成）"]
    else:
        lines = [f"⚠️ 团队任务部分完成（{len(done)}/{len(tasks)} 个步骤完成）"]
    for task in tasks:
        state = progress.state(task.id)
        note = f"（{notes[task.id]}）" if notes.get(task.id) else ""
        lines.append(
            f"- [{task.id}] {_MARK.get(state.status, state.status)}{note}：{preview(state.result) or '（无输出）'}"
        )
    needed = {dep for task in tasks for dep in task.dependencies}
    leaves = [task_id for task_id in done if task_id not in needed]
    if leaves:
        lines.append("")
        lines.append("最终结果：")
        lines.extend(f"[{task_id}] {progress.state(task_id).result.strip()}" for task_id in leaves)
    text = "\n".join(lines)
    if len(done) == len(tasks):
        return RunFinished("done", text)
    return RunFinished("partial", text) if done else RunFinished("error", text, "没有任何步骤完成")
