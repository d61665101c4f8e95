"""Slash commands against a real session without a terminal: `ScriptedIO` is the REPL's terminal side with
scripted answers, and `command` types one line at a REPL over the session and returns what it printed."""

from __future__ import annotations

import io
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from paicli.cancel import CancelToken
from paicli.cli.command_table import BUILTIN
from paicli.cli.commands import CommandTable
from paicli.cli.printing import SafeConsole
from paicli.cli.repl_dispatch import Dispatcher

if TYPE_CHECKING:
    from rich.console import Console

    from paicli.cli.app_backend import AppBackend

T = TypeVar("T")


class ScriptedIO:
    """The REPL's terminal side for a command test: output in `out`, follow-up questions answered from
    `answers` (None once they run out), work run on the calling thread with a fresh token."""

    markdown = False
    pick_inline = False

    def __init__(self, answers: Sequence[str] = (), *, interactive: bool = False) -> None:
        self.out = io.StringIO()
        self.console: Console = SafeConsole(file=self.out, width=200)
        self.progress: Console = SafeConsole(file=io.StringIO(), width=200)
        self.answers = list(answers)
        self.asked: list[str] = []
        self.interactive = interactive

    def ask(self, question: str) -> str | None:
        self.asked.append(question)
        return self.answers.pop(0) if self.answers else None

    def read_key(self, prompt: str) -> str:
        return ""

    def run_cancellable(self, work: Callable[[CancelToken], T], **_: Any) -> T:
        return work(CancelToken())

    def clear_input_history(self) -> None:
        return None


def command(
    session: AppBackend, line: str, answers: Sequence[str] = (), table: CommandTable = BUILTIN
) -> str:
    """What the REPL prints for one input line against `session` (its follow-up questions answered)."""
    scripted = ScriptedIO(answers)
    Dispatcher(session, scripted, table).handle(line)
    return scripted.out.getvalue()
