"""One input line -> one backend call, and its outcome printed: tasks (ReAct, /plan, /team) and every slash
command. It talks only to a `Backend` and to the terminal side through `ReplIO`."""

from __future__ import annotations

from paicli.cli.backend import Backend, CommandReply, RunMode
from paicli.cli.commands import help_text, is_yes, mask_secrets, parse, split_memory_args, unknown_reply
from paicli.cli.render import COMPACTING_LABEL, EventRenderer, WaitSpinner, say
from paicli.cli.repl_terminal import ReplIO, run_rendered

GOODBYE = "👋 再见，下次见！"
_PENDING_TEXT: dict[RunMode, tuple[str, str, str]] = {
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


class Dispatcher:
    """Turns one input line into a backend call and prints the outcome."""

    def __init__(self, backend: Backend, io: ReplIO) -> None:
        self.backend = backend
        self.io = io
        self.pending: RunMode | None = None
        self.last_folded: tuple[str, str] | None = None  # (tool, full output) of the last folded tool output

    def handle(self, line: str) -> bool:
        """Returns False when the REPL should stop."""
        parsed = parse(line)
        try:
            if parsed.kind == "none":
                if parsed.args:
                    mode: RunMode = self.pending or self._default_mode()
                    self.pending = None
                    self.run_task(parsed.args, mode)
                return True
            if parsed.kind == "unknown":
                say(self.io.console, unknown_reply(mask_secrets(parsed.args)), "yellow")
                return True
            return self._command(parsed.name, parsed.args)
        except KeyboardInterrupt:
            say(self.io.progress, "已中断。", "yellow")
        except Exception as exc:  # the CLI edge: one failing command must not end the session
            say(self.io.console, f"❌ 命令执行失败: {exc}", "red")
        return True

    def cancel_pending(self) -> bool:
        if self.pending is None:
            return False
        say(self.io.console, _PENDING_TEXT[self.pending][2], "yellow")
        self.pending = None
        return True

    def _command(self, name: str, args: str) -> bool:
        if name == "exit":
            say(self.io.console, "\n" + GOODBYE)
            return False
        handler = getattr(self, f"_cmd_{name}")
        handler(args)
        return True

    def reply(self, reply: CommandReply, prefix: str = "") -> None:
        text = reply.text
        if prefix and not text.startswith(prefix.strip()):
            text = prefix + text
        say(self.io.console, text, None if reply.ok else "red")

    def notices(self) -> None:
        self.show_notices(self.backend.drain_notices())

    def show_notices(self, lines: list[str]) -> None:
        for line in lines:
            say(self.io.progress, line, "dim")

    def _default_mode(self) -> RunMode:
        """`/mode plan` (or Shift+Tab) makes plain input a plan, when the backend says so."""
        default = getattr(self.backend, "default_mode", None)
        return default() if callable(default) else "react"

    def remember_fold(self, tool: str, text: str) -> None:
        self.last_folded = (tool, text)

    def show_last_folded(self, limit: int = 2000) -> None:
        """Ctrl+O: the last folded tool output in full (a very long one up to `limit` lines)."""
        if self.last_folded is None:
            say(self.io.console, "（还没有被折叠的工具输出）", "dim")
            return
        tool, text = self.last_folded
        lines = text.splitlines()
        say(self.io.console, f"── {tool} 的完整输出（{len(lines)} 行）──", "cyan")
        say(self.io.console, "\n".join(lines[:limit]))
        more = f"，另有 {len(lines) - limit} 行未显示" if len(lines) > limit else ""
        say(self.io.console, f"── 输出结束{more} ──", "cyan")

    def run_task(self, text: str, mode: RunMode) -> None:
        if mode == "plan":
            from paicli.cli.repl_plan import plan_flow

            flow = plan_flow(self)
            if flow is not None:
                flow.run(text)
                return
        renderer = EventRenderer(
            self.io.console,
            self.io.progress,
            markdown=self.io.markdown,
            on_fold=self.remember_fold if getattr(self.io, "interactive", False) else None,
        )
        memory = getattr(getattr(self.backend, "parts", None), "memory", None)
        if memory is not None:
            memory.on_injected = lambda contents: self._show_memories(renderer, contents)
        try:
            run_rendered(self.io, renderer, lambda cancel: self.backend.run(text, mode, renderer, cancel))
        finally:
            if memory is not None:
                memory.on_injected = None
        self.notices()

    def _show_memories(self, renderer: EventRenderer, contents: list[str]) -> None:
        from paicli.memory.manager import injected_line

        interactive = getattr(self.io, "interactive", False)
        renderer.memory_line(injected_line(contents, ctrl_o=interactive))
        if interactive:
            self.remember_fold("长期记忆", "\n".join(f"- {c}" for c in contents))

    # -- commands -------------------------------------------------------------------------------------

    def _cmd_help(self, _: str) -> None:
        say(self.io.console, help_text())

    def _cmd_clear(self, _: str) -> None:
        reply = self.backend.clear()
        if getattr(self.io, "interactive", False):
            self.io.console.clear()  # a fresh screen for a fresh conversation
        self.reply(reply)

    def _cmd_cancel(self, _: str) -> None:
        say(self.io.console, "现在没有正在运行的任务（任务运行时按 Esc 取消）。")

    def _cmd_context(self, _: str) -> None:
        self.reply(self.backend.context_report())

    def _cmd_policy(self, args: str) -> None:
        self.reply(self.backend.policy(args.lower()) if args else self.backend.policy())

    def _cmd_skill(self, args: str) -> None:
        self.reply(self.backend.skill(args))

    def _cmd_mcp(self, args: str) -> None:
        self.reply(self.backend.mcp(args))

    def _cmd_config(self, _: str) -> None:
        self.reply(self.backend.config_report())

    def _cmd_audit(self, args: str) -> None:
        self.reply(self.backend.audit(args))

    def _cmd_export(self, args: str) -> None:
        self.reply(self.backend.export(args))

    def _cmd_save(self, args: str) -> None:
        self.reply(self.backend.save(args))

    def _cmd_model(self, args: str) -> None:
        choices = getattr(self.backend, "model_choices", None)
        if args or not getattr(self.io, "interactive", False) or not callable(choices):
            self._switch_model(args)
            return
        from paicli.cli.models import list_text

        found = choices()
        say(self.io.console, list_text(found, numbered=True))
        answer = (self.io.ask("输入编号切换模型（回车保持当前）：") or "").strip()
        if not answer:
            return
        if answer.isdigit() and 1 <= int(answer) <= len(found):
            answer = found[int(answer) - 1].spec
        self._switch_model(answer)

    def _switch_model(self, args: str) -> None:
        """A model its provider does not list is switched to only when the person at the terminal says so."""
        from paicli.cli.models import refused_unlisted

        reply = self.backend.model(args)
        if not reply.confirm:
            self.reply(reply)
            return
        say(self.io.console, reply.text, "yellow")
        if not getattr(self.io, "interactive", False):
            self.reply(CommandReply(refused_unlisted(args.strip()), ok=False))
            return
        answer = (self.io.ask(reply.confirm) or "").strip().lower()
        if answer in ("y", "yes", "是"):
            self.reply(self.backend.model(args, confirmed=True))
        else:
            say(self.io.console, "↩️ 没有切换模型", "dim")

    def _cmd_mode(self, args: str) -> None:
        self.reply(self.backend.set_mode(args), "🧭 ")

    def _cmd_hitl(self, args: str) -> None:
        self.reply(self.backend.hitl(args), "🔒 ")

    def _cmd_compact(self, args: str) -> None:
        renderer = EventRenderer(self.io.console, self.io.progress, markdown=self.io.markdown)
        spinner = WaitSpinner(self.io.progress)
        say(self.io.progress, "⏳ 正在压缩上下文，请稍候…", "dim")
        spinner.start(COMPACTING_LABEL)
        try:
            reply = self.io.run_cancellable(
                lambda cancel: self.backend.compact(args or None, renderer, cancel), quiet=spinner.stop
            )
        finally:
            spinner.stop()
        self.reply(reply)

    def _cmd_memory(self, args: str) -> None:
        sub, _ = split_memory_args(args)
        if sub == "clear":
            answer = self.io.ask("⚠️ 确认清空全部长期记忆？此操作无法撤销，输入 y 确认：")
            if answer is None or not is_yes(answer):
                say(self.io.console, "已取消，长期记忆保持不变。", "yellow")
                return
        if sub != "search":
            self.reply(self.backend.memory(args))
            return
        spinner = WaitSpinner(self.io.progress)
        spinner.start("搜索长期记忆")  # the first search loads the segmenter: seconds on a cold start
        try:
            reply = self.backend.memory(args)
        finally:
            spinner.stop()
        self.reply(reply)

    def _cmd_plan(self, args: str) -> None:
        self._mode_command("plan", args)

    def _cmd_team(self, args: str) -> None:
        self._mode_command("team", args)

    def _mode_command(self, mode: RunMode, args: str) -> None:
        announce_next, announce_now, _ = _PENDING_TEXT[mode]
        supports = getattr(self.backend, "supports_mode", None)
        if callable(supports) and not supports(mode):
            self.pending = None
            kept = "（这条任务没有执行）" if args else ""
            say(self.io.console, _UNSUPPORTED_TEXT[mode] + kept, "yellow")
            return
        if not args:
            self.pending = mode
            say(self.io.console, announce_next, "cyan")
            return
        self.pending = None
        say(self.io.progress, announce_now, "cyan")
        self.run_task(args, mode)

    def _cmd_init(self, args: str) -> None:
        renderer = EventRenderer(self.io.console, self.io.progress, markdown=self.io.markdown)
        force = args.lower() == "--force"
        spinner = WaitSpinner(self.io.progress)
        spinner.start("生成 PAI.md")  # one silent model call: show that something is happening

        def quiet() -> None:
            spinner.stop()
            renderer.pause()

        try:
            reply = self.io.run_cancellable(
                lambda cancel: self.backend.init_project(force, renderer, cancel), quiet=quiet
            )
        finally:
            spinner.stop()
            renderer.stop_spinner()
        self.reply(reply)

    def _cmd_snapshot(self, args: str) -> None:
        from paicli.cli.snapshot_commands import snapshot_command

        snapshot_command(self, args)

    def _cmd_restore(self, args: str) -> None:
        from paicli.cli.snapshot_commands import restore_command

        restore_command(self, args)

    def _cmd_undo(self, _: str) -> None:
        from paicli.cli.snapshot_commands import restore_command

        restore_command(self, "1")

    def _cmd_history(self, _: str) -> None:
        self.io.clear_input_history()
        say(self.io.console, "🧹 输入历史记录已删除")

    def _cmd_resume(self, args: str) -> None:
        from paicli.cli.session_picker import choose_session

        session_id = choose_session(
            lambda hidden: self.backend.list_sessions(include_hidden=hidden),
            self.io.console,
            self.io.ask if getattr(self.io, "pick_inline", True) else None,
            args,
        )
        if session_id is not None:
            self._resume_and_offer(session_id)

    def _resume_and_offer(self, session_id: str) -> None:
        reply = self.backend.resume(session_id)
        self.reply(reply)
        if reply.ok:
            from paicli.cli.repl_plan import offer_continuation

            offer_continuation(self)
