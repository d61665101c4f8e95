"""One input line -> a task run (ReAct, /plan, /team) or the handler of its row in the command table, and the
outcome printed. Commands reach the full `AppBackend` through their handlers; the terminal side is `ReplIO`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply, NoticeListener, SessionPort
from paicli.cli.command_handlers import PENDING_TEXT
from paicli.cli.command_table import BUILTIN
from paicli.cli.commands import CommandTable, is_yes, mask_secrets
from paicli.cli.render import EventRenderer, say
from paicli.cli.repl_terminal import ReplIO, run_guarded
from paicli.cli.shell_escape import is_shell_escape, shell_escape
from paicli.config.modes import RunMode, next_mode

if TYPE_CHECKING:
    from paicli.cli.app_backend import AppBackend

BUSY = "⏳ 当前任务还在运行，/{name} 要等它结束后再用。"
BARE_KEPT = "已取消，什么都没有改变（/{name} 直接执行，不再询问）。"


class Dispatcher:
    """Turns one input line into a session call and prints the outcome (the `CommandContext` of handlers)."""

    def __init__(self, session: AppBackend, io: ReplIO, table: CommandTable = BUILTIN) -> None:
        self._session = session
        self._io = io
        self._table = table
        self.pending: RunMode | None = None
        self.last_folded: tuple[str, str] | None = None  # (tool, full output) of the last folded tool output
        self.running = False
        self._stopped = False
        self.next_input = ""  # what the next prompt starts with (/rewind puts the message back)

    @property
    def session(self) -> AppBackend:
        return self._session

    @property
    def port(self) -> SessionPort:
        """What the REPL loop may use of the current session."""
        return self._session

    @property
    def io(self) -> ReplIO:
        return self._io

    @property
    def table(self) -> CommandTable:
        return self._table

    def listen(self, listener: NoticeListener | None) -> None:
        """Background notices of the session wake `listener` (None: no more)."""
        self._session.set_notice_listener(listener)

    def stop(self) -> None:
        self._stopped = True

    def prefill(self, text: str) -> None:
        self.next_input = text

    def take_prefill(self) -> str:
        text, self.next_input = self.next_input, ""
        return text

    def handle(self, line: str) -> bool:
        """Returns False when the REPL should stop."""
        parsed = self._table.parse(line)
        try:
            if is_shell_escape(line):  # `!command`: the user's own shell command, no model call
                shell_escape(self, line)
                return True
            if parsed.kind == "none":
                if parsed.args:
                    mode: RunMode = self.pending or self._session.default_mode()
                    self.pending = None
                    self.run_task(parsed.args, mode)
                return True
            if parsed.kind == "unknown":
                say(self._io.console, self._table.unknown_reply(mask_secrets(parsed.args)), "yellow")
                return True
            self._command(parsed.name, parsed.args, parsed.bare)
        except KeyboardInterrupt:
            say(self._io.progress, "已中断。", "yellow")
        except Exception as exc:  # the CLI edge: one failing command must not end the session
            say(self._io.console, f"❌ 命令执行失败: {exc}", "red")
        return not self._stopped

    def _command(self, name: str, args: str, bare: bool = False) -> None:
        spec = self._table.find(name)
        assert spec is not None  # parse only names commands of this table
        if spec.idle_only and self.running:
            say(self._io.console, BUSY.format(name=spec.name), "yellow")
            return
        if bare and spec.bare_question and self._io.interactive:
            answer = self._io.ask(spec.bare_question)
            if answer is None or not is_yes(answer):
                say(self._io.console, BARE_KEPT.format(name=spec.name), "yellow")
                return
        spec.handler(self, args)

    def cancel_pending(self) -> bool:
        if self.pending is None:
            return False
        say(self._io.console, PENDING_TEXT[self.pending][2], "yellow")
        self.pending = None
        return True

    def next_mode(self) -> str:
        """Shift+Tab: the session mode after the current one (plan only when the session can plan)."""
        try:
            current = self._session.status().mode.split()[0]
        except Exception:
            current = "auto"
        return next_mode(current)

    def reply(self, reply: CommandReply, prefix: str = "") -> None:
        text = reply.text
        if prefix and not text.startswith(prefix.strip()):
            text = prefix + text
        say(self._io.console, text, None if reply.ok else "red")

    def notices(self) -> None:
        self.show_notices(self._session.drain_notices())

    def show_notices(self, lines: list[str]) -> None:
        for line in lines:
            say(self._io.progress, line, "dim")

    def remember_fold(self, tool: str, text: str) -> None:
        self.last_folded = (tool, text)

    def show_last_folded(self, limit: int = 2000) -> None:
        """Ctrl+O: the last folded tool output in full (a very long one up to `limit` lines)."""
        console = self._io.console
        if self.last_folded is None:
            say(console, "（还没有被折叠的工具输出）", "dim")
            return
        tool, text = self.last_folded
        lines = text.splitlines()
        say(console, f"── {tool} 的完整输出（{len(lines)} 行）──", "cyan")
        say(console, "\n".join(lines[:limit]))
        more = f"，另有 {len(lines) - limit} 行未显示" if len(lines) > limit else ""
        say(console, f"── 输出结束{more} ──", "cyan")

    def run_task(self, text: str, mode: RunMode) -> None:
        io = self._io
        with self._busy():
            if mode == "plan" and io.interactive:
                from paicli.cli.repl_plan import PlanFlow

                PlanFlow(self, io.read_key).run(text)
                return
            renderer = EventRenderer(
                io.console,
                io.progress,
                markdown=io.markdown,
                on_fold=self.remember_fold if io.interactive else None,
            )
            session = self._session
            session.on_memories(lambda contents: self._show_memories(renderer, contents))
            try:
                renderer.finish(
                    run_guarded(io, renderer, lambda cancel: session.run(text, mode, renderer, cancel))
                )
            finally:
                session.on_memories(None)

    @contextmanager
    def _busy(self) -> Iterator[None]:
        """A task runs (idle-only commands wait); its background notices are shown once it is done."""
        self.running = True
        try:
            yield
        finally:
            self.running = False
        self.notices()

    def _show_memories(self, renderer: EventRenderer, contents: list[str]) -> None:
        from paicli.memory.said import injected_line

        interactive = self._io.interactive
        renderer.memory_line(injected_line(contents, ctrl_o=interactive))
        if interactive:
            self.remember_fold("长期记忆", "\n".join(f"- {c}" for c in contents))
