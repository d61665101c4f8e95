"""The REPL when stdin is not a terminal: one input per line, answers on stdout, progress on stderr."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import IO, TypeVar

from rich.console import Console

from paicli.cancel import CancelToken
from paicli.cli.backend import Backend
from paicli.cli.commands import mask_secrets
from paicli.cli.render import say
from paicli.cli.repl import CANCEL_REQUESTED, Dispatcher, run_in_worker
from paicli.cli.repl_plan import offer_continuation

T = TypeVar("T")


class PipedIO:
    """stdin is not a terminal: one input per line, answers on stdout, progress on stderr, no ANSI."""

    markdown = False

    def __init__(self, lines: IO[str], console: Console, progress: Console) -> None:
        self._lines = lines
        self.console = console
        self.progress = progress

    def next_line(self) -> str | None:
        line = self._lines.readline()
        return None if line == "" else line.rstrip("\r\n")

    def ask(self, question: str) -> str | None:
        say(self.progress, question, "dim")
        return self.next_line()

    def run_cancellable(self, work: Callable[[CancelToken], T], *, cancellable: bool = True,
                        quiet: Callable[[], None] | None = None) -> T:
        return run_in_worker(work, self._wait, self._interrupted)

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


def run_piped(backend: Backend, lines: IO[str], console: Console, progress: Console) -> int:
    io = PipedIO(lines, console, progress)
    dispatcher = Dispatcher(backend, io)
    offer_continuation(dispatcher)
    while (line := io.next_line()) is not None:
        if not line.strip():
            continue
        say(progress, f"› {mask_secrets(line.strip())}", "dim")
        if not dispatcher.handle(line):
            break
        dispatcher.notices()
    return 0
