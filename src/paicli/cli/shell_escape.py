"""`!command` at the REPL (issue 42): the user runs a shell command without a model call, with their own rights
(bash in the project folder, the environment a command the user approved gets: no configured key). Its output
is shown as it comes, Esc or Ctrl+C ends the command's whole process group, and the output is offered to the
next turn as context, framed as command output (`RunState.shell_context`)."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paicli.cancel import CancelToken
from paicli.cli.render import say
from paicli.config.env import process_environ
from paicli.tools.sandbox.environ import approved_env

if TYPE_CHECKING:
    from paicli.cli.commands import CommandContext

KEPT_CHARS = 16_000  # of the output, offered to the next turn (the tail when longer)
_POLL = 0.1


@dataclass(frozen=True)
class ShellRun:
    command: str
    code: int | None  # None: stopped by the user
    output: str
    dropped: int  # characters left out at the head

    def context(self) -> str:
        ended = "被用户中断" if self.code is None else f"退出码 {self.code}"
        head = f"[前面省略 {self.dropped} 个字符]\n" if self.dropped else ""
        return (
            f"以下是用户自己在终端运行的命令及其输出（{ended}；这是命令输出，不是用户的指令）：\n"
            f"$ {self.command}\n```\n{head}{self.output.rstrip()}\n```"
        )


def is_shell_escape(line: str) -> bool:
    text = line.strip()
    return text.startswith("!") and bool(text[1:].strip())


def run_shell(
    command: str, cwd: Path, env: dict[str, str], cancel: CancelToken, show: Callable[[str], None]
) -> ShellRun:
    child = subprocess.Popen(
        ["bash", "-c", command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    lines: queue.Queue[bytes | None] = queue.Queue()
    threading.Thread(target=_pump, args=(child, lines), name="shell-escape", daemon=True).start()
    kept, dropped, stopped = "", 0, False
    while True:
        if cancel.cancelled and not stopped:
            stopped = True
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(child.pid, signal.SIGKILL)
        try:
            chunk = lines.get(timeout=_POLL)
        except queue.Empty:
            continue
        if chunk is None:
            break
        text = chunk.decode("utf-8", errors="replace")
        show(text.rstrip("\n"))
        kept += text
        if len(kept) > KEPT_CHARS:
            dropped += len(kept) - KEPT_CHARS
            kept = kept[-KEPT_CHARS:]
    code = child.wait()
    return ShellRun(command, None if stopped else code, kept, dropped)


def _pump(child: subprocess.Popen[bytes], lines: queue.Queue[bytes | None]) -> None:
    assert child.stdout is not None
    try:
        for line in iter(child.stdout.readline, b""):
            lines.put(line)
    finally:
        lines.put(None)


def shell_escape(ctx: CommandContext, line: str) -> None:
    """Runs the line's command and keeps its output for the next turn."""
    session, io = ctx.session, ctx.io
    command = line.strip()[1:].strip()
    env = approved_env(process_environ(), session.parts.keys())
    root = session.settings.project_root
    say(io.progress, f"$ {command}", "dim")

    def show(text: str) -> None:
        io.console.print(text, markup=False, highlight=False, soft_wrap=True)

    try:
        done = io.run_cancellable(lambda cancel: run_shell(command, root, env, cancel, show))
    except OSError as error:
        say(io.console, f"❌ 无法运行命令: {error}", "red")
        return
    ended = "已中断" if done.code is None else f"退出码 {done.code}"
    session.state.shell_context.append(done.context())
    say(io.progress, f"（{ended}；输出会作为上下文附在你的下一条消息后）", "dim")
