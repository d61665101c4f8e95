"""The handler of each built-in slash command: what it asks at the terminal, which session call it makes, and
how the reply is printed. Each gets the REPL's `CommandContext` (the full session among it) and its arguments."""

from __future__ import annotations

from paicli.cli.backend import CommandReply, RunMode
from paicli.cli.commands import CommandContext, is_yes, split_memory_args
from paicli.cli.render import COMPACTING_LABEL, EventRenderer, WaitSpinner, say

GOODBYE = "👋 再见，下次见！"
PENDING_TEXT: dict[RunMode, tuple[str, str, str]] = {
    "plan": (
        "📋 下一条输入将按 Plan-and-Execute 模式执行（先规划再逐步执行），输入前按 Esc 可取消；执行完自动回到 ReAct。",
        "📋 这条任务按 Plan-and-Execute 模式执行",
        "↩️ 不再等待 Plan-and-Execute，下一条输入仍按默认的 ReAct 执行。",
    ),
    "team": (
        "👥 下一条输入将交给多智能体协作（规划者 + 执行者 + 检查者），输入前按 Esc 可取消；执行完自动回到 ReAct。",
        "👥 这条任务交给多智能体协作执行",
        "↩️ 不再等待多智能体协作，下一条输入仍按默认的 ReAct 执行。",
    ),
}
_UNSUPPORTED_TEXT: dict[RunMode, str] = {
    "plan": "📋 Plan-and-Execute 模式在这个版本里还不能用，请直接输入任务，按默认的 ReAct 模式执行。",
    "team": "👥 多智能体协作模式在这个版本里还不能用，请直接输入任务，按默认的 ReAct 模式执行。",
}


def help_command(ctx: CommandContext, _: str) -> None:
    say(ctx.io.console, ctx.table.help_text())


def exit_repl(ctx: CommandContext, _: str) -> None:
    say(ctx.io.console, "\n" + GOODBYE)
    ctx.stop()


def clear(ctx: CommandContext, _: str) -> None:
    reply = ctx.session.clear()
    if ctx.io.interactive:
        ctx.io.console.clear()  # a fresh screen for a fresh conversation
    ctx.reply(reply)


def cancel(ctx: CommandContext, _: str) -> None:
    say(ctx.io.console, "现在没有正在运行的任务（任务运行时按 Esc 取消）。")


def context(ctx: CommandContext, _: str) -> None:
    ctx.reply(ctx.session.context_report())


def policy(ctx: CommandContext, args: str) -> None:
    ctx.reply(ctx.session.policy(args.lower()) if args else ctx.session.policy())


def skill(ctx: CommandContext, args: str) -> None:
    ctx.reply(ctx.session.skill(args))


def mcp(ctx: CommandContext, args: str) -> None:
    ctx.reply(ctx.session.mcp(args))


def config(ctx: CommandContext, _: str) -> None:
    ctx.reply(ctx.session.config_report())


def audit(ctx: CommandContext, args: str) -> None:
    ctx.reply(ctx.session.audit(args))


def export(ctx: CommandContext, args: str) -> None:
    ctx.reply(ctx.session.export(args))


def save(ctx: CommandContext, args: str) -> None:
    ctx.reply(ctx.session.save(args))


def mode(ctx: CommandContext, args: str) -> None:
    ctx.reply(ctx.session.set_mode(args), "🧭 ")


def hitl(ctx: CommandContext, args: str) -> None:
    ctx.reply(ctx.session.hitl(args), "🔒 ")


def history(ctx: CommandContext, _: str) -> None:
    ctx.io.clear_input_history()
    say(ctx.io.console, "🧹 输入历史记录已删除")


def model(ctx: CommandContext, args: str) -> None:
    if args or not ctx.io.interactive:
        _switch_model(ctx, args)
        return
    from paicli.cli.models import list_text

    found = ctx.session.model_choices()
    say(ctx.io.console, list_text(found, numbered=True))
    answer = (ctx.io.ask("输入编号切换模型（回车保持当前）：") or "").strip()
    if not answer:
        return
    if answer.isdigit() and 1 <= int(answer) <= len(found):
        answer = found[int(answer) - 1].spec
    _switch_model(ctx, answer)


def _switch_model(ctx: CommandContext, args: str) -> None:
    """A model its provider does not list is switched to only when the person at the terminal says so."""
    from paicli.cli.models import refused_unlisted

    reply = ctx.session.model(args)
    if not reply.confirm:
        ctx.reply(reply)
        return
    say(ctx.io.console, reply.text, "yellow")
    if not ctx.io.interactive:
        ctx.reply(CommandReply(refused_unlisted(args.strip()), ok=False))
        return
    answer = (ctx.io.ask(reply.confirm) or "").strip().lower()
    if answer in ("y", "yes", "是"):
        ctx.reply(ctx.session.model(args, confirmed=True))
    else:
        say(ctx.io.console, "↩️ 没有切换模型", "dim")


def compact(ctx: CommandContext, args: str) -> None:
    from paicli.cli.compaction_commands import compact_extra, compact_subcommand

    what, focus = compact_subcommand(args)
    if what != "compact":
        compact_extra(ctx, what, focus)
        return
    io = ctx.io
    renderer = EventRenderer(io.console, io.progress, markdown=io.markdown)
    spinner = WaitSpinner(io.progress)
    say(io.progress, "⏳ 正在压缩上下文，请稍候…", "dim")
    spinner.start(COMPACTING_LABEL)
    try:
        reply = io.run_cancellable(
            lambda token: ctx.session.compact(args or None, renderer, token), quiet=spinner.stop
        )
    finally:
        spinner.stop()
    ctx.reply(reply)


def memory(ctx: CommandContext, args: str) -> None:
    sub, _ = split_memory_args(args)
    if sub == "clear":
        answer = ctx.io.ask("⚠️ 确认清空全部长期记忆？此操作无法撤销，输入 y 确认：")
        if answer is None or not is_yes(answer):
            say(ctx.io.console, "已取消，长期记忆保持不变。", "yellow")
            return
    if sub != "search":
        ctx.reply(ctx.session.memory(args))
        return
    spinner = WaitSpinner(ctx.io.progress)
    spinner.start("搜索长期记忆")  # the first search loads the segmenter: seconds on a cold start
    try:
        reply = ctx.session.memory(args)
    finally:
        spinner.stop()
    ctx.reply(reply)


def plan(ctx: CommandContext, args: str) -> None:
    _mode_command(ctx, "plan", args)


def team(ctx: CommandContext, args: str) -> None:
    _mode_command(ctx, "team", args)


def _mode_command(ctx: CommandContext, mode: RunMode, args: str) -> None:
    announce_next, announce_now, _ = PENDING_TEXT[mode]
    if not ctx.session.supports_mode(mode):
        ctx.pending = None
        kept = "（这条任务没有执行）" if args else ""
        say(ctx.io.console, _UNSUPPORTED_TEXT[mode] + kept, "yellow")
        return
    if not args:
        ctx.pending = mode
        say(ctx.io.console, announce_next, "cyan")
        return
    ctx.pending = None
    say(ctx.io.progress, announce_now, "cyan")
    ctx.run_task(args, mode)


def init(ctx: CommandContext, args: str) -> None:
    io = ctx.io
    renderer = EventRenderer(io.console, io.progress, markdown=io.markdown)
    force = args.lower() == "--force"
    spinner = WaitSpinner(io.progress)
    spinner.start("生成 PAI.md")  # one silent model call: show that something is happening

    def quiet() -> None:
        spinner.stop()
        renderer.pause()

    try:
        reply = io.run_cancellable(
            lambda token: ctx.session.init_project(force, renderer, token), quiet=quiet
        )
    finally:
        spinner.stop()
        renderer.stop_spinner()
    ctx.reply(reply)


def snapshot(ctx: CommandContext, args: str) -> None:
    from paicli.cli.snapshot_commands import snapshot_command

    snapshot_command(ctx, args)


def restore(ctx: CommandContext, args: str) -> None:
    from paicli.cli.snapshot_commands import restore_command

    restore_command(ctx, args)


def undo(ctx: CommandContext, _: str) -> None:
    from paicli.cli.snapshot_commands import restore_command

    restore_command(ctx, "1")


def resume(ctx: CommandContext, args: str) -> None:
    from paicli.cli.session_picker import choose_session

    session_id = choose_session(
        lambda hidden: ctx.session.list_sessions(include_hidden=hidden),
        ctx.io.console,
        ctx.io.ask if ctx.io.pick_inline else None,
        args,
    )
    if session_id is None:
        return
    reply = ctx.session.resume(session_id)
    ctx.reply(reply)
    if reply.ok:
        from paicli.cli.repl_plan import offer_continuation

        offer_continuation(ctx)
