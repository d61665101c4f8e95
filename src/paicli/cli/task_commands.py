"""`/task [list|add <text>|cancel <id>|log <id>]`: the background task queue of this project (cli/task_store.py),
run by the session's TaskWorker (started with the REPL when the queue exists, else at the first /task)."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply
from paicli.cli.commands import CommandContext, Form
from paicli.cli.task_store import Task, TaskQueue, TaskStore, db_path
from paicli.cli.task_worker import TaskWorker, preview

if TYPE_CHECKING:
    from paicli.cli.app_backend import AppBackend

TASK_FORMS = (
    Form("list", "列出本项目的后台任务（默认）"),
    Form("add <任务>", "把任务加入后台队列（只运行无需确认的操作，需要确认的会被拒绝并记录）"),
    Form("cancel <编号>", "取消排队中或正在运行的后台任务"),
    Form("log <编号>", "查看后台任务的执行记录"),
)
_STATUS = {
    "queued": "排队中",
    "running": "运行中",
    "done": "已完成",
    "failed": "失败",
    "cancelled": "已取消",
    "interrupted": "已中断",
}


def task_args(args: str) -> bool:
    words = args.split(maxsplit=1)
    if not words:
        return True
    verb = words[0].lower()
    if verb == "list":
        return len(words) == 1
    if verb == "add":
        return len(words) == 2
    return verb in ("cancel", "log") and len(words) == 2 and len(words[1].split()) == 1


def worker_of(ctx: CommandContext) -> TaskQueue:
    session = ctx.session
    if session.tasks is None:
        start_tasks(session, always=True)
    assert session.tasks is not None
    return session.tasks


def start_tasks(session: AppBackend, *, always: bool = False) -> None:
    """The session's worker, started (with the REPL: only when this user has a task queue already)."""
    home = session.settings.paicli_home
    env = session.parts.reopen
    if env is None or session.tasks is not None or not (always or db_path(home).exists()):
        return
    worker = TaskWorker(TaskStore(home), env, session.settings.project_root, session.parts.notices.post)
    session.tasks = worker
    worker.start()


def task_command(ctx: CommandContext, args: str) -> None:
    words = args.split(maxsplit=1)
    verb = words[0].lower() if words else "list"
    worker = worker_of(ctx)
    if verb == "add":
        added = worker.add(words[1].strip())
        text = f"📋 已加入后台任务 #{added}：{preview(words[1])}（完成后会提示；/task log {added} 查看记录）"
        ctx.reply(CommandReply(text))
    elif verb == "cancel":
        ctx.reply(_cancel(worker, words[1]))
    elif verb == "log":
        ctx.reply(_log(worker.store, words[1]))
    else:
        ctx.reply(CommandReply(_listing(worker.store.listed(ctx.session.settings.project_root))))


def _cancel(worker: TaskQueue, word: str) -> CommandReply:
    task_id = _number(word)
    if task_id is not None and worker.cancel(task_id):
        return CommandReply(f"⏹️ 已取消后台任务 #{task_id}")
    return CommandReply(f"📭 没有可以取消的后台任务 #{word}（不存在或已结束；/task list 查看）", ok=False)


def _listing(tasks: list[Task]) -> str:
    if not tasks:
        return "📭 本项目还没有后台任务。用 /task add <任务> 添加。"
    lines = ["📋 后台任务（本项目）："]
    for task in tasks:
        line = f"  #{task.id} [{_STATUS.get(task.status, task.status)}] {preview(task.text)} · {_clock(task.created_ms)}"
        if task.refused:
            line += f" · 拒绝 {task.refused} 个操作"
        if task.session_id:
            line += f" · {task.session_id}"
        lines.append(line)
    return "\n".join(lines)


def _clock(millis: int) -> str:
    return dt.datetime.fromtimestamp(millis / 1000).strftime("%m-%d %H:%M")


def _number(word: str) -> int | None:
    return int(word) if word.isdigit() else None


def _log(store: TaskStore, word: str) -> CommandReply:
    task_id = _number(word)
    task = store.get(task_id) if task_id is not None else None
    if task is None:
        return CommandReply(f"📭 没有后台任务 #{word}（/task list 查看编号）")
    ended = f" · 结束于 {_clock(task.ended_ms)}" if task.ended_ms else ""
    head = f"📜 后台任务 #{task.id} [{_STATUS.get(task.status, task.status)}]{ended}：{task.text}"
    body = store.log_lines(task.id) or ["（还没有记录）"]
    tail = [f"继续这个会话：paicli --resume {task.session_id}"] if task.session_id else []
    return CommandReply("\n".join([head, *(f"  {line}" for line in body), *tail]))
