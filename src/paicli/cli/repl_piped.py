"""The REPL when stdin is not a terminal: one input per line, answers on stdout, progress on stderr."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, TypeVar

from rich.console import Console

from paicli.agent.events import RunFinished
from paicli.cancel import CancelToken
from paicli.cli import stop_signals
from paicli.cli.command_table import BUILTIN
from paicli.cli.commands import CommandTable, mask_secrets
from paicli.cli.render import say
from paicli.cli.repl_dispatch import Dispatcher
from paicli.cli.repl_plan import offer_continuation
from paicli.cli.repl_terminal import CANCEL_REQUESTED, run_in_worker

if TYPE_CHECKING:
    from paicli.cli.app_backend import AppBackend

T = TypeVar("T")
EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_CANCELLED = 0, 1, 2, 130
MAX_LINE_CHARS = 16 * 1024 * 1024  # anything larger could never fit a request (see cli.input_size)
MAX_DRAIN_CHARS = 1024 * 1024 * 1024
_DRAIN_CHUNK = 1 << 20


class PipedIO:
    """stdin is not a terminal: one input per line, answers on stdout, progress on stderr, no ANSI."""

    markdown = False
    interactive = False
    pick_inline = False  # a picker lists and returns: the next line is the next input, never an answer

    def __init__(self, lines: IO[str], console: Console, progress: Console) -> None:
        self._lines = lines
        self.console = console
        self.progress = progress
        self.failed_runs = 0  # tasks that ended in an error (model/API failure): the exit code says so

    def next_line(self) -> str | None:
        """The next input line. A line over MAX_LINE_CHARS is skipped (drained, never held) with its size;
        a line that never ends within MAX_DRAIN_CHARS (`< /dev/zero`) ends the input."""
        while True:
            line = self._lines.readline(MAX_LINE_CHARS + 1)
            if len(line) <= MAX_LINE_CHARS or line.endswith("\n"):
                return None if line == "" else line.rstrip("\r\n")
            size, ended = len(line), False
            while size < MAX_DRAIN_CHARS and not ended:
                chunk = self._lines.readline(_DRAIN_CHUNK)
                ended = chunk == "" or chunk.endswith("\n")
                size += len(chunk.rstrip("\r\n"))
            if not ended:
                say(
                    self.progress, f"⚠️ 标准输入中有一行超过 {size:,} 个字符仍未结束，已停止读取输入", "yellow"
                )
                return None
            say(self.progress, f"⚠️ 这一行输入过大（{size:,} 个字符），已跳过，没有发送任何请求", "yellow")

    def read_key(self, prompt: str) -> str:
        return ""  # no keys to read from a script: the plan review is never shown here

    def ask(self, question: str) -> str | None:
        say(self.progress, question, "dim")
        return self.next_line()

    def run_cancellable(
        self,
        work: Callable[[CancelToken], T],
        *,
        cancellable: bool = True,
        quiet: Callable[[], None] | None = None,
        resume: Callable[[], None] | None = None,
        typed: Callable[[str], None] | None = None,
    ) -> T:
        try:
            result = run_in_worker(work, self._wait, self._interrupted)
        except Exception:
            self.failed_runs += 1
            raise
        if isinstance(result, RunFinished) and result.status == "error":
            self.failed_runs += 1
        return result

    def _wait(self, done: threading.Event, cancel: CancelToken) -> None:
        while not done.is_set():
            try:
                done.wait(0.1)
            except KeyboardInterrupt:
                self._interrupted(cancel)

    def _interrupted(self, cancel: CancelToken) -> None:
        if not cancel.cancelled:
            say(self.progress, CANCEL_REQUESTED, "yellow")
        cancel.cancel()

    def clear_input_history(self) -> None:
        return None


def run_piped(
    session: AppBackend, lines: IO[str], console: Console, progress: Console, table: CommandTable = BUILTIN
) -> int:
    """Every input line in turn; the exit code (design/contract.md): 2 when an input was not a valid command,
    else 1 when a task failed, else 0; 130 after a SIGTERM (the task it cancelled is the last one)."""
    io = PipedIO(lines, console, progress)
    dispatcher = Dispatcher(session, io, table)
    offer_continuation(dispatcher)
    usage_errors = 0
    while not stop_signals.terminated() and (line := io.next_line()) is not None:
        if not line.strip():
            continue
        say(progress, f"› {mask_secrets(line.strip())}", "dim")
        if dispatcher.table.parse(line).kind == "unknown":
            usage_errors += 1
        if not dispatcher.handle(line):
            break
        dispatcher.notices()
    if stop_signals.terminated():
        say(progress, "⏹️ 收到终止信号，不再读取后面的输入。", "yellow")
        return EXIT_CANCELLED
    if usage_errors:
        return EXIT_USAGE
    return EXIT_FAILED if io.failed_runs else EXIT_OK
