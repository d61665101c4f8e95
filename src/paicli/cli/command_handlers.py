"""The handler of each built-in slash command: what it asks at the terminal, which part of the session it uses,
and how the reply is printed. Each gets the REPL's `CommandContext` (the whole session among it) and its
arguments; a handler calls the session's parts directly (cli/app_backend.py)."""

from __future__ import annotations

from paicli.agent.events import Compacted
from paicli.cli import session_commands
from paicli.cli.app_backend import sandbox_line
from paicli.cli.backend import CommandReply
from paicli.cli.commands import CommandContext, is_yes, split_memory_args
from paicli.cli.render import COMPACTING_LABEL, EventRenderer, WaitSpinner, say
from paicli.config.modes import RunMode

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
CLEARED = "🗑️ 已清空当前对话历史；长期记忆不受影响。"
GRANTS_RESET = "🛡️ 已撤销本会话的全部“始终允许”，之后需要确认的操作会照常询问。"
NO_MCP = (
    "MCP: 未配置服务器。在 ~/.paicli/mcp.json 或项目的 .paicli/mcp.json 里写 "
    '{"mcpServers": {"名字": {"command": "…", "args": []}}}'
)


def help_command(ctx: CommandContext, _: str) -> None:
    say(ctx.io.console, ctx.table.help_text())


def exit_repl(ctx: CommandContext, _: str) -> None:
    say(ctx.io.console, "\n" + GOODBYE)
    ctx.stop()


def clear(ctx: CommandContext, _: str) -> None:
    ctx.session.agent.clear()
    ctx.session.parts.tools.reset_session()
    if ctx.io.interactive:
        ctx.io.console.clear()  # a fresh screen for a fresh conversation
    ctx.reply(CommandReply(CLEARED))


def cancel(ctx: CommandContext, _: str) -> None:
    say(ctx.io.console, "现在没有正在运行的任务（任务运行时按 Esc 取消）。")


def context(ctx: CommandContext, _: str) -> None:
    from paicli.cli.receipt_view import pins_text

    reply = ctx.session.report.context()
    pins = ctx.session.parts.pins.items()
    ctx.reply(CommandReply(f"{reply.text}\n\n{pins_text(pins)}", reply.ok) if pins else reply)


def policy(ctx: CommandContext, args: str) -> None:
    parts = ctx.session.parts
    if args.lower() == "reset":
        parts.approval.clear_grants()
        ctx.reply(CommandReply(GRANTS_RESET))
        return
    ctx.reply(CommandReply(parts.tools.policy_report()))


def skill(ctx: CommandContext, args: str) -> None:
    skills = ctx.session.parts.skills
    before = skills.index_text()
    reply = session_commands.skill_command(skills, args)
    if skills.index_text() != before:
        ctx.session.agent.invalidate_system_prompt()
    ctx.reply(reply)


def mcp(ctx: CommandContext, args: str) -> None:
    servers = ctx.session.parts.mcp
    if servers is None:
        ctx.reply(CommandReply(NO_MCP))
        return
    text = servers.command(args)
    ctx.reply(CommandReply(text, ok=not text.startswith(("用法", "没有名为"))))


def config(ctx: CommandContext, args: str) -> None:
    session = ctx.session
    if args:  # `/config provider <name> --api-key … [--default]`
        from paicli.cli import provider_config

        parsed = provider_config.parse_provider_args(args)
        if isinstance(parsed, str):
            ctx.reply(CommandReply(parsed, ok=False))
            return
        reply = provider_config.save(parsed, session.settings.paicli_home / "config.json")
        if reply.ok:
            session.switch_model(session.settings.with_config_reread())  # switchable to at once
        ctx.reply(reply)
        return
    report = session_commands.config_report(session.settings, session.parts.sources)
    lines = [report, sandbox_line(session.parts)]
    if session.parts.lsp is not None:  # which language servers give diagnostics (issue 46)
        lines.extend(session.parts.lsp.get().status_lines())
    ctx.reply(CommandReply("\n".join(line for line in lines if line)))


def audit(ctx: CommandContext, args: str) -> None:
    ctx.reply(session_commands.audit_command(ctx.session.parts.tools.audit, args))


def export(ctx: CommandContext, args: str) -> None:
    """The whole conversation from the ledger; `--view`: what the model sees now (its system prompt too)."""
    session = ctx.session
    view = args.split(maxsplit=1)[:1] == ["--view"]
    target = args.split(maxsplit=1)[1] if view and len(args.split(maxsplit=1)) > 1 else ("" if view else args)
    ledger = session.parts.ledger
    if view or ledger.path is None:
        reply = session_commands.export_command(
            list(session.agent.history),
            target,
            home=session.settings.paicli_home,
            project_root=session.settings.project_root,
            session_id=ledger.session_id,
            model=session.settings.model,
            redactor=ledger.redactor,
            system=view,
        )
    else:
        from paicli.cli.export_ledger import export_ledger

        reply = export_ledger(
            ledger.path,
            target,
            home=session.settings.paicli_home,
            project_root=session.settings.project_root,
            session_id=ledger.session_id,
            model=session.settings.model,
            redact=ledger.redactor.text,
        )
    ctx.reply(reply)


def save(ctx: CommandContext, args: str) -> None:
    from paicli.memory.commands import parse_save_args, run_save

    reply = run_save(ctx.session.parts.memory, parse_save_args(args))
    ctx.reply(CommandReply(reply.text, ok=reply.ok))


def mode(ctx: CommandContext, args: str) -> None:
    ctx.reply(CommandReply(f"🧭 {ctx.session.parts.approval.set_mode(args.strip())}"))


def hitl(ctx: CommandContext, args: str) -> None:
    ctx.reply(CommandReply(f"🔒 {ctx.session.parts.approval.set_hitl(args.strip())}"))


def history(ctx: CommandContext, _: str) -> None:
    ctx.io.clear_input_history()
    say(ctx.io.console, "🧹 输入历史记录已删除")


def model(ctx: CommandContext, args: str) -> None:
    if args or not ctx.io.interactive:
        _switch_model(ctx, args)
        return
    from paicli.cli.models import list_text

    found = ctx.session.models.choices()
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

    models = ctx.session.models
    reply = models.command(args)
    if not reply.confirm:
        ctx.reply(reply)
        return
    say(ctx.io.console, reply.text, "yellow")
    if not ctx.io.interactive:
        ctx.reply(CommandReply(refused_unlisted(args.strip()), ok=False))
        return
    answer = (ctx.io.ask(reply.confirm) or "").strip().lower()
    if answer in ("y", "yes", "是"):
        ctx.reply(models.command(args, confirmed=True))
    else:
        say(ctx.io.console, "↩️ 没有切换模型", "dim")


def compact(ctx: CommandContext, args: str) -> None:
    from paicli.cli.compaction_commands import compact_extra
    from paicli.cli.compaction_controls import compact_subcommand

    what, focus = compact_subcommand(args)
    if what != "compact":
        compact_extra(ctx, what, focus)
        return
    io = ctx.io
    renderer = EventRenderer(io.console, io.progress, markdown=io.markdown)
    spinner = WaitSpinner(io.progress)
    say(io.progress, "⏳ 正在压缩上下文，请稍候…", "dim")
    spinner.start(COMPACTING_LABEL)
    state = ctx.session.state
    state.phase = "compacting"
    try:
        result = io.run_cancellable(
            lambda token: ctx.session.agent.compact_now(args or None, token), quiet=spinner.stop
        )
    finally:
        state.phase = "idle"
        spinner.stop()
    if result.error:
        ctx.reply(CommandReply(f"❌ 压缩没有完成: {result.error}", ok=False))
    elif not result.steps:
        ctx.reply(CommandReply("📭 对话还很短，暂时没有可以压缩的内容"))
    else:
        renderer(Compacted(result, manual=True))
        schema = ctx.session.report.schema_tokens()  # as /context counts it
        before, after = result.before_tokens + schema, result.after_tokens + schema
        hint = "（/compact show 看摘要与回执，/compact undo 撤销）"
        ctx.reply(CommandReply(f"📦 上下文已压缩: {before:,} -> {after:,} tokens{hint}"))


def memory(ctx: CommandContext, args: str) -> None:
    sub, rest = split_memory_args(args)
    if sub in ("files", "edit"):  # the instruction files (issue 42): cli/instruction_commands.py
        from paicli.cli import instruction_commands

        if sub == "files":
            instruction_commands.memory_files(ctx)
        else:
            instruction_commands.memory_edit(ctx, rest)
        return
    if sub == "clear":
        answer = ctx.io.ask("⚠️ 确认清空全部长期记忆？此操作无法撤销，输入 y 确认：")
        if answer is None or not is_yes(answer):
            say(ctx.io.console, "已取消，长期记忆保持不变。", "yellow")
            return
    report = ctx.session.report
    if sub != "search":
        ctx.reply(report.memory(args))
        return
    spinner = WaitSpinner(ctx.io.progress)
    spinner.start("搜索长期记忆")  # the first search loads the segmenter: seconds on a cold start
    try:
        reply = report.memory(args)
    finally:
        spinner.stop()
    ctx.reply(reply)


def plan(ctx: CommandContext, args: str) -> None:
    _mode_command(ctx, "plan", args)


def team(ctx: CommandContext, args: str) -> None:
    _mode_command(ctx, "team", args)


def _mode_command(ctx: CommandContext, mode: RunMode, args: str) -> None:
    announce_next, announce_now, _ = PENDING_TEXT[mode]
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

    from paicli.memory.project import run_init

    session = ctx.session
    root, llm = session.settings.project_root, session.parts.llm
    try:
        reply = io.run_cancellable(
            lambda token: run_init(root, llm, "--force" if force else "", token), quiet=quiet
        )
    finally:
        spinner.stop()
        renderer.stop_spinner()
    ctx.reply(CommandReply(reply.text, ok=reply.ok))


def snapshot(ctx: CommandContext, args: str) -> None:
    from paicli.cli.snapshot_commands import snapshot_command

    snapshot_command(ctx, args)


def restore(ctx: CommandContext, args: str) -> None:
    from paicli.cli.snapshot_commands import restore_command

    restore_command(ctx, args)


def undo(ctx: CommandContext, _: str) -> None:
    from paicli.cli.snapshot_commands import undo_command

    undo_command(ctx)


def rewind(ctx: CommandContext, args: str) -> None:
    from paicli.cli.rewind_command import rewind_command

    rewind_command(ctx, args)


def fork(ctx: CommandContext, _: str) -> None:
    from paicli.cli.session_admin import fork as fork_session

    ctx.reply(fork_session(ctx.session))


def rename(ctx: CommandContext, args: str) -> None:
    from paicli.cli.session_admin import rename as rename_session

    ctx.reply(rename_session(ctx.session, args))


def sessions(ctx: CommandContext, args: str) -> None:
    from paicli.cli.session_admin import clean, expired_sessions, sessions_list
    from paicli.cli.snapshot_commands import confirmed_by

    words = args.split()
    if not words:
        ctx.reply(sessions_list(ctx.session))
        return
    found = expired_sessions(ctx.session, " ".join(words[1:]))
    if isinstance(found, CommandReply):
        ctx.reply(found)
        return
    stale, days = found
    question = f"⚠️ 删除 {len(stale)} 个超过 {days} 天没有活动的会话（无法恢复），输入 y 确认："
    if confirmed_by(ctx, ctx.session.parts.approval.yes, question, "已取消，会话保持不变。"):
        ctx.reply(clean(ctx.session, stale, days))


def resume(ctx: CommandContext, args: str) -> None:
    from paicli.cli.session_picker import choose_session

    session_id = choose_session(
        lambda hidden: ctx.session.core.restore.sessions(hidden),
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
