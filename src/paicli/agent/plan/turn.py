"""A finished Plan or Team run as one turn of the main conversation (pure): the goal, and a bounded summary of
what each task did, which files it wrote and how the run ended, written for the model's later turns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paicli.agent.events import RunFinished
from paicli.agent.plan.model import PlanProgress
from paicli.agent.task_events import RunTurn
from paicli.config.modes import orchestrated
from paicli.context.estimate import estimate_tokens

ANSWER_TOKENS = 1500  # the summary's budget: a long run must not crowd out the conversation it joins
PREVIEWS = (600, 240, 80, 0)  # characters of each task's result, tried longest first until the budget fits
FILES_PER_TASK = 12
TOTAL_FILES = 40
_STATUS = {
    "done": "已完成",
    "partial": "部分完成",
    "error": "失败",
    "cancelled": "已取消",
}
_TASK_STATUS = {
    "done": "✅ 完成",
    "failed": "❌ 失败",
    "skipped": "⏭️ 跳过",
    "running": "⏸️ 未完成",
    "pending": "⏳ 未执行",
}


@dataclass(frozen=True)
class RunStart:
    """What the run was asked: the goal as the model got it, and the text as the user typed it."""

    run_id: str
    goal: str
    submitted: str


def _flat(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    if limit <= 0:
        return ""
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _names(files: Sequence[str], limit: int) -> str:
    shown = "、".join(files[:limit])
    return f"{shown} 等 {len(files)} 个" if len(files) > limit else shown


def _all_files(progress: PlanProgress) -> list[str]:
    files = (path for task in progress.plan.tasks for path in progress.state(task.id).files)
    return list(dict.fromkeys(files))


def _headline(mode: str, progress: PlanProgress | None, finished: RunFinished) -> str:
    run = orchestrated(mode)
    what, unit = run.what, run.unit
    status = _STATUS.get(finished.status, finished.status)
    if progress is None or not progress.plan.tasks:
        return f"[{what}执行记录] 结果：{status}（没有形成可执行的{unit}）"
    tasks = progress.plan.tasks
    done = sum(1 for task in tasks if progress.state(task.id).status == "done")
    return f"[{what}执行记录] 结果：{status}（{done}/{len(tasks)} 个{unit}完成）"


def _task_lines(progress: PlanProgress, preview: int, shown: int, unit: str) -> list[str]:
    lines: list[str] = []
    tasks = progress.plan.tasks
    for task in tasks[:shown]:
        state = progress.state(task.id)
        mark = _TASK_STATUS.get(state.status, state.status)
        lines.append(f"- [{task.id}] {mark}：{_flat(task.description, 120)}")
        result = _flat(state.result, preview)
        if result:
            lines.append(f"  结果：{result}")
        if state.files:
            lines.append(f"  写入的文件：{_names(state.files, FILES_PER_TASK)}")
    if len(tasks) > shown:
        lines.append(f"- …还有 {len(tasks) - shown} 个{unit}没有列出")
    return lines


def _ending(finished: RunFinished) -> str:
    if finished.status == "cancelled":
        return "用户中途取消了执行：标着完成的部分已经做完，其余的没有做完。"
    if finished.status == "error":
        return f"执行没有成功：{_flat(finished.error or finished.answer or '原因不明', 300)}"
    if finished.status == "partial":
        return "只有一部分完成，失败或跳过的部分需要另外处理。"
    return "全部完成。"


def _compose(
    mode: str, progress: PlanProgress | None, finished: RunFinished, preview: int, shown: int
) -> str:
    lines = [_headline(mode, progress, finished)]
    if progress is not None and progress.plan.tasks:
        lines.extend(_task_lines(progress, preview, shown, orchestrated(mode).unit))
        files = _all_files(progress)
        lines.append(f"本次写入的文件：{_names(files, TOTAL_FILES)}" if files else "本次没有写入文件。")
    lines.append(f"结论：{_ending(finished)}")
    lines.append("（这是执行过程的摘要，每一步的完整结果保存在会话记录里。）")
    return "\n".join(lines)


def _clipped(text: str, budget: int) -> str:
    """Last resort (a run whose every line is long): the head that fits, and a note that it was cut."""
    kept: list[str] = []
    for line in text.splitlines():
        if estimate_tokens("\n".join([*kept, line])) > budget - 30:
            break
        kept.append(line)
    return "\n".join([*kept, "…（摘要太长，其余部分没有列出）"])


def compact_answer(
    mode: str, progress: PlanProgress | None, finished: RunFinished, budget: int = ANSWER_TOKENS
) -> str:
    """The assistant's side of the turn: per task its status, a preview of its result and the files it wrote,
    then the files of the whole run and how it ended; never over `budget` estimated tokens (shorter previews
    first, then fewer tasks listed)."""
    shown = len(progress.plan.tasks) if progress is not None else 0
    text = ""
    while True:
        for preview in PREVIEWS:
            text = _compose(mode, progress, finished, preview, shown)
            if estimate_tokens(text) <= budget:
                return text
        if shown == 0:
            return _clipped(text, budget)
        shown //= 2


def full_result(mode: str, progress: PlanProgress | None, finished: RunFinished) -> str:
    """Every task's whole result (the screen's Ctrl+O view), then the run's own final text."""
    unit = orchestrated(mode).unit
    blocks: list[str] = []
    if progress is not None:
        for task in progress.plan.tasks:
            state = progress.state(task.id)
            mark = _TASK_STATUS.get(state.status, state.status)
            block = [f"[{task.id}] {mark}：{task.description}", state.result.strip() or "（没有输出）"]
            if state.files:
                block.append(f"写入的文件：{'、'.join(state.files)}")
            blocks.append("\n".join(block))
    final = (finished.answer or finished.error or "").strip()
    if final:
        blocks.append(f"── 最终结果 ──\n{final}")
    return "\n\n".join(blocks) or f"（没有{unit}结果）"


def run_turn(
    mode: str,
    start: RunStart,
    progress: PlanProgress | None,
    finished: RunFinished,
    budget: int = ANSWER_TOKENS,
) -> RunTurn:
    return RunTurn(
        mode,
        start.run_id,
        start.goal,
        start.submitted,
        compact_answer(mode, progress, finished, budget),
        full_result(mode, progress, finished),
        finished.status,
        len(progress.plan.tasks) if progress is not None else 0,
    )
