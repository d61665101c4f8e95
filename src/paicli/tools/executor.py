"""The command executor seam: where and how `execute_command` runs a command, behind one protocol. The
composition root chooses the session's `CommandExecutors` once: a command a human approved runs unconfined
without paicli's keys (tools/shell.py's `UnconfinedExecutor`); one nobody approved runs in the OS sandbox when
it is active (tools/sandbox/executor.py: its fork server, or a wrapper process of its own), else unconfined
without any secret-looking variable. Values and protocols only."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from paicli.cancel import CancelToken


@dataclass(frozen=True)
class CommandRequest:
    command: str
    cwd: Path
    timeout_seconds: float
    cancel: CancelToken
    capture_limit: int  # characters of output kept
    on_output: Callable[[str], None] | None = None  # each line the command prints, in order (display only)


@dataclass
class Capture:
    """Merged stdout+stderr, decoded with replacement characters, capped at `limit` chars."""

    limit: int
    text: str = ""
    overflowed: bool = False

    def add(self, chunk: str) -> None:
        room = self.limit - len(self.text)
        if len(chunk) > room:
            self.overflowed = True
            chunk = chunk[: max(room, 0)]
        if chunk:
            self.text += chunk


@dataclass(frozen=True)
class CommandRun:
    capture: Capture
    exit_code: int | None
    timed_out: bool
    cancelled: bool
    pid: int
    not_started: bool = False  # the sandbox could not confine the command: it did not run (output says why)
    notes: tuple[str, ...] = ()  # what the sandbox refused or removed: shown first in the result
    sandbox_refused: bool = False  # the sandbox refused part of it (a human may have it rerun outside)


class CommandExecutor(Protocol):
    def run(self, request: CommandRequest) -> CommandRun: ...


@dataclass(frozen=True)
class CommandExecutors:
    """The session's executors: `approved` for a command a human said yes to (or a grant covers), `unasked`
    for one that paicli's own judgement let through."""

    approved: CommandExecutor
    unasked: CommandExecutor

    def for_call(self, auto_run: bool) -> CommandExecutor:
        return self.unasked if auto_run else self.approved
