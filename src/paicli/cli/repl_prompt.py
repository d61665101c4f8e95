"""The interactive REPL: the prompt, its key bindings and completion, the status bar, notices shown at the prompt."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from prompt_toolkit import PromptSession
from prompt_toolkit.application import run_in_terminal
from prompt_toolkit.auto_suggest import AutoSuggestFromHistory
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.filters import has_completions
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.history import FileHistory, History, InMemoryHistory
from prompt_toolkit.input import Input, create_input
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.output import Output, create_output
from rich.cells import cell_len
from rich.console import Console

from paicli.cli.backend import BannerInfo, StatusSnapshot
from paicli.cli.command_handlers import GOODBYE
from paicli.cli.command_table import BUILTIN
from paicli.cli.commands import CommandTable
from paicli.cli.paste import PasteStore
from paicli.cli.printing import SafeConsole
from paicli.cli.render import say
from paicli.cli.repl_complete import ReplCompleter
from paicli.cli.repl_dispatch import Dispatcher
from paicli.cli.repl_io import InteractiveIO
from paicli.cli.repl_notices import NoticeRelay
from paicli.cli.repl_plan import offer_continuation
from paicli.cli.statusbar import format_window, status_line
from paicli.config.keys import Keys as ConfiguredKeys
from paicli.config.keys import no_keys
from paicli.fsperm import create_private_file, make_private
from paicli.redact import Redactor
from paicli.tools.base import ApprovalDecision, ApprovalReply, ApprovalRequest

if TYPE_CHECKING:
    from paicli.cli.app_backend import AppBackend


def banner_lines(info: BannerInfo) -> list[tuple[str, str]]:
    return [
        (f"✻ paicli v{info.version}", "bold cyan"),
        (f"  模型  {info.model} ({info.provider}) · 上下文窗口 {format_window(info.context_window)}", ""),
        (f"  项目  {info.project_root}", ""),
        (f"  会话  {info.session_id}", "dim"),
        *([(f"  技能  {info.skills}（/skill 查看）", "dim")] if info.skills else []),
        *([(f"  {info.sandbox}", "dim")] if info.sandbox else []),
        ("", ""),
        ("  输入 / 查看命令（Tab 补全），@路径 把文件交给模型；", "dim"),
        (
            "  Esc+Enter 或 Ctrl+J 换行，Shift+Tab 切换模式，运行中按 Esc 取消任务，Ctrl+C 清空当前行，Ctrl+D 退出。",
            "dim",
        ),
    ]


EXIT_HINT = "（按 Ctrl+D 或输入 /exit 退出）"


def accept_or_cycle(buffer: Buffer) -> None:
    """Tab with the menu open: a single candidate is taken and the menu closes (a folder then lists its
    entries), so a second Tab goes on instead of cycling back to what was typed; several candidates cycle."""
    state = buffer.complete_state
    if state is None or len(state.completions) != 1:
        buffer.complete_next()
        return
    completion = state.completions[0]
    if state.complete_index is None:
        buffer.apply_completion(completion)
    else:
        buffer.complete_state = None  # already shown in the line
    if completion.text.endswith("/"):
        buffer.start_completion(select_first=False)


def _continuation(width: int, line_number: int, is_soft_wrap: int) -> str:
    return " " * width  # continuation lines line up with the text after "› "


HISTORY_KEEP = 10_000


class RedactedFileHistory(FileHistory):
    """Input history on disk without pasted keys (configured ones too), bearer tokens or `password=…` values."""

    def __init__(self, filename: str, keys: Iterable[str] = ()) -> None:
        super().__init__(filename)
        self._redactor = Redactor(keys)

    def store_string(self, string: str) -> None:
        super().store_string(self._redactor.text(string))


def trim_history(path: Path, keep: int) -> int:
    """Keep the newest `keep` entries of a prompt_toolkit FileHistory file; returns how many were dropped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return 0
    starts = [match.start() for match in re.finditer(r"(?m)^# ", text)]
    if len(starts) <= keep:
        return 0
    cut = starts[len(starts) - keep]
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("\n" + text[cut:], encoding="utf-8")
    make_private(tmp)
    os.replace(tmp, path)
    return len(starts) - keep


class InteractiveRepl:
    def __init__(
        self,
        session: AppBackend,
        inp: Input,
        out: Output,
        console: Console,
        history_file: Path,
        show_toolbar: bool = True,
        table: CommandTable = BUILTIN,
        history_keys: ConfiguredKeys = no_keys,
        intro: str = "",
    ) -> None:
        """`intro`: a line shown below the banner (the conversation a start-up resume restored)."""
        self._input = inp
        self._history_keys = history_keys
        self._output = out
        self._console = console
        self._history_file = history_file
        self._show_toolbar = show_toolbar
        self._status: StatusSnapshot | None = None
        self._intro = intro
        self._pastes = PasteStore()
        self._root = Path(session.info().project_root or ".")
        self.io = InteractiveIO(inp, out, console, self._clear_history)
        self._table = table
        self._dispatcher = Dispatcher(session, self.io, table)
        self._session = self._make_session()
        self._relay = NoticeRelay(
            lambda: self._session.app,
            lambda: self._dispatcher.port.drain_notices(),
            self._dispatcher.show_notices,
            self._refresh_status,
        )

    def _history(self) -> History:
        try:
            create_private_file(self._history_file)  # prompt history can hold pasted keys
            trim_history(self._history_file, HISTORY_KEEP)
            return RedactedFileHistory(str(self._history_file), self._history_keys())
        except OSError:
            return InMemoryHistory()

    def _make_session(self) -> PromptSession[str]:
        session: PromptSession[str] = PromptSession(
            history=self._history(),
            completer=ReplCompleter(
                self._root, mentions=lambda: self._dispatcher.session.mcp_mentions(), table=self._table
            ),
            complete_while_typing=True,
            auto_suggest=AutoSuggestFromHistory(),
            key_bindings=self._key_bindings(),
            bottom_toolbar=self._toolbar if self._show_toolbar else None,
            input=self._input,
            output=self._output,
            multiline=False,
            prompt_continuation=_continuation,
        )
        session.app.ttimeoutlen = 0.1  # a lone Esc should feel instant, not wait for a sequence
        session.app.timeoutlen = 0.5
        return session

    def _key_bindings(self) -> KeyBindings:
        bindings = KeyBindings()

        @bindings.add("escape", "enter")
        @bindings.add("c-j")
        def _newline(event: KeyPressEvent) -> None:
            event.current_buffer.insert_text("\n")

        @bindings.add("escape")
        def _escape(event: KeyPressEvent) -> None:
            buffer = event.current_buffer
            if buffer.complete_state is not None:
                buffer.complete_state = None  # close the menu, keep what was completed so far
            elif buffer.text:
                buffer.reset()
            elif self._dispatcher.pending is not None:
                run_in_terminal(self._dispatcher.cancel_pending)

        @bindings.add(Keys.BracketedPaste)
        def _paste(event: KeyPressEvent) -> None:
            event.current_buffer.insert_text(self._pastes.collapse(event.data))

        @bindings.add("c-v")  # a clipboard image becomes `@image:<abs path> ` (spec 10.1)
        def _paste_image(event: KeyPressEvent) -> None:
            from paicli.cli.clipboard import paste_image

            parts = self._dispatcher.session.parts
            pasted = paste_image(parts.settings.paicli_home, parts.values.clipboard_env)
            if pasted.path is not None:
                event.current_buffer.insert_text(pasted.typed)
            else:
                run_in_terminal(lambda: say(self._console, pasted.message, "dim"))

        @bindings.add("c-o")  # never accept the line (emacs operate-and-get-next would)
        def _expand_folded(event: KeyPressEvent) -> None:
            run_in_terminal(self._dispatcher.show_last_folded)

        @bindings.add("tab", filter=has_completions)
        def _tab(event: KeyPressEvent) -> None:
            accept_or_cycle(event.current_buffer)

        @bindings.add("s-tab", filter=~has_completions)  # with the menu open it still goes back a completion
        def _next_mode(event: KeyPressEvent) -> None:
            run_in_terminal(self._cycle_mode)

        return bindings

    def _cycle_mode(self) -> None:
        """Shift+Tab: cycles the session modes through the same path as `/mode`."""
        following = self._dispatcher.next_mode()
        self._dispatcher.handle(f"/mode {following}")
        self._refresh_status()

    def _refresh_status(self) -> None:
        """Once per prompt: counting the context on every keystroke's redraw would make typing lag."""
        if not self._show_toolbar:
            return
        try:
            self._status = self._dispatcher.port.status()
        except Exception:
            self._status = None

    def _toolbar(self) -> str:
        pending = self._dispatcher.pending
        extra = f" · 下一条: {pending}" if pending else ""
        if self._status is None:
            return f" {extra}"
        columns = self._session.app.output.get_size().columns - 1 - cell_len(extra)
        return f" {status_line(self._status, columns)}{extra}"

    def _message(self) -> FormattedText:
        pending = self._dispatcher.pending
        if pending:
            return FormattedText([("ansicyan bold", f"{pending} "), ("bold", "› ")])
        return FormattedText([("bold", "› ")])

    def _clear_history(self) -> None:
        with contextlib.suppress(OSError):
            if self._history_file.exists():
                self._history_file.write_text("", encoding="utf-8")
        self._session = self._make_session()

    def run(self) -> int:
        # Raw mode for the whole session, not only inside prompts: Enter typed between two prompts
        # (while a command prints) must stay Enter instead of becoming a newline through ICRNL.
        with contextlib.ExitStack() as stack:
            with contextlib.suppress(Exception):
                stack.enter_context(self._input.raw_mode())
            self._dispatcher.listen(self._relay.notify)
            stack.callback(self._dispatcher.listen, None)
            return self._loop()

    def _loop(self) -> int:
        for text, style in banner_lines(self._dispatcher.port.info()):
            say(self._console, text, style or None)
        if self._intro:
            say(self._console, self._intro)
        offer_continuation(self._dispatcher)
        while True:
            self._dispatcher.notices()
            self._refresh_status()
            try:
                line = self._session.prompt(
                    self._message, pre_run=self._relay.attach, default=self._dispatcher.take_prefill()
                )
            except KeyboardInterrupt:
                self._pastes.forget()
                if not self._session.default_buffer.text.strip():
                    say(self._console, EXIT_HINT, "dim")
                continue
            except EOFError:
                say(self._console, GOODBYE)
                return 0
            finally:
                self._relay.detach()
            line = self._pastes.expand(line)
            if not self._dispatcher.handle(line):
                return 0
            if line.strip():
                self._console.print()


class ApprovalHost(Protocol):
    """The session's approver (cli.approval.TerminalApprover): the REPL lends it its asker while it runs."""

    def asking(
        self, handler: Callable[[ApprovalRequest], ApprovalDecision | ApprovalReply]
    ) -> AbstractContextManager[None]: ...


def run_interactive(
    session: AppBackend,
    *,
    input: object,
    output: object,
    history_file: Path,
    console: Console | None,
    status_bar: bool = True,
    approver: ApprovalHost | None = None,
    intro: str = "",
    table: CommandTable = BUILTIN,
    history_keys: ConfiguredKeys = no_keys,
) -> int:
    inp = input if isinstance(input, Input) else create_input()
    out = output if isinstance(output, Output) else create_output()
    show_toolbar = status_bar
    repl = InteractiveRepl(
        session,
        inp,
        out,
        console or SafeConsole(force_terminal=True),
        history_file,
        show_toolbar,
        table,
        history_keys,
        intro,
    )
    if approver is None:
        return repl.run()
    with approver.asking(repl.io.approval_handler):
        return repl.run()
