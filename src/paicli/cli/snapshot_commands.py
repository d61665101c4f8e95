"""`/snapshot [list|status|clean [--all]]`, `/restore <N>` and `/undo` (issues 30, 43); the session's side of
snapshots is cli/session_snapshots.py. Numbers are the snapshots' stable ids; `/undo` takes the newest turn or
Plan/Team run back whole, and the model is told in its next request which files changed.

Confirmation follows the approval rules: `--yes` restores without asking, the interactive REPL asks, and piped
input without `--yes` has no human to ask, so nothing is restored.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli.cli.commands import is_yes

if TYPE_CHECKING:
    from rich.console import Console

    from paicli.cli.commands import CommandContext
    from paicli.cli.session_snapshots import SnapshotCommands

NO_HUMAN = "⚠️ 当前没有可以确认的用户（非交互运行），文件保持不变；如需允许，请加 --yes 重新运行"


def _say(console: Console, text: str, style: str | None = None) -> None:
    from paicli.cli.printing import say  # REPL commands only: rich stays off a -p run's start-up

    say(console, text, style)


def _commands(ctx: CommandContext) -> SnapshotCommands | None:
    found = ctx.session.snapshots
    if found is not None:
        return found
    _say(ctx.io.console, "📸 这个会话没有工作区快照功能。", "yellow")
    return None


def confirmed_by(ctx: CommandContext, yes: bool, question: str, declined: str) -> bool:
    """`--yes` goes ahead, the interactive REPL asks, piped input without `--yes` has no one to ask."""
    if yes:
        return True
    if not ctx.io.interactive:
        _say(ctx.io.console, NO_HUMAN, "yellow")
        return False
    answer = ctx.io.ask(question)
    if answer is None or not is_yes(answer):
        _say(ctx.io.console, declined, "yellow")
        return False
    return True


def confirmed(ctx: CommandContext, commands: SnapshotCommands, question: str) -> bool:
    return confirmed_by(ctx, commands.yes, question, "已取消，文件保持不变。")


def snapshot_command(ctx: CommandContext, args: str) -> None:
    commands = _commands(ctx)
    if commands is None:
        return
    sub = " ".join(args.lower().split()) or "list"
    if sub.startswith("clean") and commands.snapshots.enabled:
        question = (
            "⚠️ 删除本项目的整个快照库（之后无法再 /undo 之前的改动），输入 y 确认："
            if sub == "clean --all"
            else "⚠️ 删除本项目的全部快照（之后无法再 /undo 之前的改动），输入 y 确认："
        )
        if not confirmed(ctx, commands, question):
            return
    ctx.reply(commands.report(sub))


def restore_command(ctx: CommandContext, args: str) -> None:
    commands = _commands(ctx)
    if commands is None:
        return
    if not args.strip():
        ctx.reply(commands.report("list"))
        _say(ctx.io.console, "用法: /restore <编号>，编号见上面的列表（/undo 撤回最近一轮）")
        return
    number = int(args)
    _restore(ctx, commands, number, f"用户用 /restore 把项目文件恢复到了快照 #{number} 时的样子")


def undo_command(ctx: CommandContext) -> None:
    """The newest turn or Plan/Team run taken back whole (after a restore: the restore undone)."""
    commands = _commands(ctx)
    if commands is None:
        return
    _restore(ctx, commands, None, "用户用 /undo 撤回了最近一轮对项目文件的改动")


def _restore(ctx: CommandContext, commands: SnapshotCommands, number: int | None, what: str) -> None:
    plan, reply = commands.plan(number)
    ctx.reply(reply)
    if plan is None or not plan.changes:
        return
    if confirmed(ctx, commands, "确认恢复这些文件？输入 y 确认："):
        ctx.reply(commands.restore(plan, what))
