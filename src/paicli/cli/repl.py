"""The REPL's entry: an interactive prompt or piped lines, then an orderly goodbye (background saves finished,
late notices shown, the way back into the session printed)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

from rich.console import Console

from paicli.cli.backend import SessionPort
from paicli.cli.command_table import BUILTIN
from paicli.cli.commands import CommandTable
from paicli.cli.printing import SafeConsole
from paicli.cli.render import say
from paicli.config.keys import Keys, no_keys

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    from paicli.cli.app_backend import AppBackend
    from paicli.cli.repl_prompt import ApprovalHost


def run_repl(
    backend: AppBackend,
    *,
    input: Input | IO[str] | None = None,
    output: Output | IO[str] | None = None,
    interactive: bool,
    history_file: Path,
    console: Console | None = None,
    progress: Console | None = None,
    status_bar: bool = True,
    approver: ApprovalHost | None = None,
    intro: str = "",
    table: CommandTable | None = None,
    history_keys: Keys = no_keys,
) -> int:
    """Run the REPL until /exit, Ctrl+D or end of input; returns the exit code (0).

    Interactive: `input`/`output` are prompt_toolkit objects (tests pass `create_pipe_input()` and
    `DummyOutput()`), `console` receives everything rich prints. Piped: `input` is a text stream
    (default stdin), answers go to `output` (default stdout) and progress to `progress` (default stderr).
    `approver`: in interactive mode its `handler` is set to ask at this REPL's prompt while a task runs
    (and reset on exit); piped sessions leave it alone. `intro` (a resumed conversation) is shown below the
    banner. `table`: the slash commands (default: the built-in ones). `history_keys`: the configured keys, masked in the
    input history file. On the way out it says when a memory save is still finishing and how to continue this session.
    """
    if interactive:
        console = console or SafeConsole(force_terminal=True)
        progress = console
    else:
        console = console or SafeConsole(file=_text_stream(output, sys.stdout), highlight=False, emoji=False)
        progress = progress or SafeConsole(stderr=True, highlight=False, emoji=False)
    try:
        if not interactive:
            from paicli.cli.repl_piped import run_piped

            if intro:
                say(progress, intro)
            return run_piped(backend, _text_stream(input, sys.stdin), console, progress, table or BUILTIN)
        from paicli.cli.repl_prompt import run_interactive

        return run_interactive(
            backend,
            input=input,
            output=output,
            history_file=history_file,
            console=console,
            status_bar=status_bar,
            approver=approver,
            intro=intro,
            table=table or BUILTIN,
            history_keys=history_keys,
        )
    finally:
        _finishing_note(backend, progress)
        backend.close()
        _late_notices(backend, progress)
        _cost_line(backend, progress)
        _continue_hint(backend, progress)


def _finishing_note(backend: SessionPort, progress: Console) -> None:
    try:
        busy = backend.pending_background() > 0
    except Exception:
        busy = False
    if busy:
        say(progress, "⏳ 正在完成长期记忆的保存（最多等 10 秒）…", "dim")


def _cost_line(backend: AppBackend, progress: Console) -> None:
    """What the session's model calls cost, when every one of them could be priced."""
    try:
        spent = backend.report.spent()  # not status(): that counts the context, once per prompt is enough
    except Exception:  # a front end's stand-in session has no report
        return
    if spent.known and spent.text():
        say(progress, f"本次会话费用: {spent.text()}（{spent.priced_calls} 次模型调用，按价格表估算）", "dim")


def _continue_hint(backend: SessionPort, progress: Console) -> None:
    """The way back into this session, once it holds a conversation."""
    try:
        if not backend.has_conversation():
            return
        info = backend.info()
    except Exception:
        return
    if info.session_id:  # the command on a row of its own: a long id never wraps it at 120 columns
        say(progress, "会话已保存，下次接着这个会话继续:", "dim")
        say(progress, f"   paicli --resume {info.session_id}", "dim", whole=True)


def _late_notices(backend: SessionPort, progress: Console) -> None:
    """Background work that finished while `close` waited for it still gets its line."""
    try:
        for line in backend.drain_notices():
            say(progress, line, "dim")
    except Exception:  # the session is over; a broken console must not turn a clean exit into a crash
        return


def _text_stream(candidate: object, default: IO[str]) -> IO[str]:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    if candidate is None or isinstance(candidate, (Input, Output)):
        return default
    return candidate  # type: ignore[return-value]
