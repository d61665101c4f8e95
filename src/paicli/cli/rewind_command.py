"""`/rewind [N | 搜索词] [--conversation | --files]` (issue 43): go back to before an earlier message — the
conversation and the files (the default), the conversation only, or the files only.

Bare `/rewind` lists the earlier messages and asks for one (a number, or words to search); `/rewind N` goes N
messages back. Approval follows `/restore`: the interactive REPL asks once (the same question picks what to
take back), piped input changes files only with `--yes`. The message gone back to returns to the input line.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply
from paicli.cli.render import say
from paicli.cli.session_rewind import Scope, apply, prepare, preview, timeline, turn_list
from paicli.cli.snapshot_commands import NO_HUMAN
from paicli.session.timeline import Timeline

if TYPE_CHECKING:
    from paicli.cli.commands import CommandContext
    from paicli.snapshots.recorder import WorkspaceSnapshots

USAGE = "用法: /rewind [N|搜索词] [--conversation|--files]（N=1 回到最近一条消息之前）"
PICK_QUESTION = "输入编号（1 = 最近一条）或搜索词，直接回车取消："
SCOPE_QUESTION = "回车或 y：回退对话和文件；c：只回退对话；f：只恢复文件；n：取消："
CONFIRM_QUESTION = "确认回退？输入 y 确认："
_FLAGS: dict[str, Scope] = {"--conversation": "conversation", "--chat": "conversation", "--files": "files"}
_ANSWERS: dict[str, Scope] = {
    "": "all",
    "y": "all",
    "yes": "all",
    "是": "all",
    "c": "conversation",
    "f": "files",
}


def rewind_command(ctx: CommandContext, args: str) -> None:
    words = args.split()
    flags = [_FLAGS[word.lower()] for word in words if word.lower() in _FLAGS]
    query = " ".join(word for word in words if word.lower() not in _FLAGS)
    session = ctx.session
    found = timeline(session.parts.ledger)
    if isinstance(found, CommandReply):
        ctx.reply(found)
        return
    index = _choose(ctx, found, query)
    if index is None:
        return
    snapshots = session.snapshots.snapshots if session.snapshots is not None else None
    scope = _scope(ctx, found, index, flags[0] if flags else None, snapshots)
    if scope is None:
        return
    choice = prepare(found, index, scope, snapshots)
    if isinstance(choice, CommandReply):
        ctx.reply(choice)
        return
    reply = apply(choice, session.agent, session.parts.ledger, snapshots)
    ctx.reply(reply)
    if reply.ok and scope != "files":
        _return_input(ctx, choice.turn.typed)


def _scope(
    ctx: CommandContext, found: Timeline, index: int, flag: Scope | None, snapshots: WorkspaceSnapshots | None
) -> Scope | None:
    """What to take back, asked and confirmed once at the terminal; piped input changes files only with
    --yes. None: nothing is done (said why)."""
    scope: Scope = flag or "all"
    choice = prepare(found, index, scope, snapshots)
    if isinstance(choice, CommandReply):
        ctx.reply(choice)
        return None
    say(ctx.io.console, preview(choice, len(found.turns)))
    touches_files = choice.files is not None and bool(choice.files.changes)
    if not ctx.io.interactive:
        if touches_files and not _yes(ctx):
            say(ctx.io.console, NO_HUMAN, "yellow")
            return None
        return scope
    if flag is None:
        asked = ctx.io.ask(SCOPE_QUESTION)  # None: the question was dismissed (Ctrl+C / Ctrl+D)
        chosen = _ANSWERS.get(asked.strip().lower()) if asked is not None else None
    else:
        answer = (ctx.io.ask(CONFIRM_QUESTION) or "n").strip().lower()
        chosen = scope if answer in ("y", "yes", "是") else None
    if chosen is None:
        say(ctx.io.console, "已取消，对话和文件保持不变。", "yellow")
    return chosen


def _yes(ctx: CommandContext) -> bool:
    return ctx.session.parts.approval.yes


def _choose(ctx: CommandContext, found: Timeline, query: str) -> int | None:
    """The index of the turn to go back to before, asking until one is chosen; None once it said why not."""
    total = len(found.turns)
    shown: list[int] | None = None
    while True:
        if not query:
            say(ctx.io.console, turn_list(found, shown))
            if not ctx.io.interactive:
                say(ctx.io.console, USAGE, "dim")
                return None
            query = (ctx.io.ask(PICK_QUESTION) or "").strip()
            if not query:
                say(ctx.io.console, "已取消回退。", "yellow")
                return None
        if query.isdigit():
            back = int(query)
            if 1 <= back <= total:
                return total - back
            ctx.reply(CommandReply(f"❌ 只能回退 1 到 {total} 条消息，收到: {back}", ok=False))
            return None
        matches = _search(found, query, shown)
        if not matches:
            ctx.reply(CommandReply(f"❌ 没有找到包含“{query}”的消息（/rewind 查看列表）", ok=False))
            return None
        if len(matches) == 1:
            return matches[0]
        say(ctx.io.console, f"🔎 有 {len(matches)} 条消息包含“{query}”：")
        if not ctx.io.interactive:
            say(ctx.io.console, turn_list(found, matches))
            say(ctx.io.console, USAGE, "dim")
            return None
        shown, query = matches, ""


def _search(found: Timeline, query: str, within: list[int] | None) -> list[int]:
    words = query.lower().split()
    indexes = within if within is not None else list(range(len(found.turns) - 1, -1, -1))
    return [i for i in indexes if all(word in found.turns[i].typed.lower() for word in words)]


def _return_input(ctx: CommandContext, typed: str) -> None:
    """The message gone back to, on the input line to edit and send again (interactive), or shown."""
    if ctx.io.interactive:
        ctx.prefill(typed)
        say(ctx.io.console, "这条消息已放回输入行，可以修改后重新发送。", "dim")
    else:
        say(ctx.io.console, f"回退到的消息（需要时重新发送）：{typed}", "dim")
