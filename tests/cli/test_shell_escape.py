"""`!command` at the REPL (issue 42): runs without a model call, shows its output, Esc/Ctrl+C (the run's cancel)
ends it, and the output is offered to the next turn framed as command output."""

from __future__ import annotations

import os
import time
from pathlib import Path

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.shell_escape import is_shell_escape, run_shell
from paicli.testing.commands import command
from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.served_session import served_parts


def test_only_a_bang_with_a_command_is_a_shell_escape() -> None:
    assert is_shell_escape("!ls -l") and is_shell_escape("  ! git status")
    assert not is_shell_escape("!") and not is_shell_escape("！ls") and not is_shell_escape("看看 !ls")


def test_cancelling_ends_the_command_and_its_children(tmp_path: Path) -> None:
    cancel = CancelToken()
    shown: list[str] = []

    def show(text: str) -> None:
        shown.append(text)
        if text == "started":
            cancel.cancel()

    done = run_shell(
        "sleep 600 & echo $! > child.pid; echo started; wait", tmp_path, dict(os.environ), cancel, show
    )
    assert done.code is None and "被用户中断" in done.context()
    child = int((tmp_path / "child.pid").read_text(encoding="utf-8"))
    deadline = time.monotonic() + 60  # the kill is sent; wait for the event itself, not a guessed delay
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child)


def _alive(pid: int) -> bool:
    try:
        return "zombie" not in Path(f"/proc/{pid}/status").read_text(encoding="utf-8")
    except OSError:
        return False


def test_the_output_joins_the_next_turn_without_a_model_call(tmp_path: Path) -> None:
    with FakeOpenAIServer(default_reply="好的") as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            shown = command(backend, "!echo SHELL-OUT-42; exit 3")
            assert server.requests == []  # no model call for the command itself
            command(backend, "刚才的输出是什么？")
            sent = server.requests[-1]["messages"]
        finally:
            backend.close(5)
    assert "SHELL-OUT-42" in shown
    assert isinstance(sent, list)
    last_user = [m for m in sent if m.get("role") == "user"][-1]["content"]
    assert "刚才的输出是什么？" in last_user and "$ echo SHELL-OUT-42; exit 3" in last_user
    assert "退出码 3" in last_user and "这是命令输出，不是用户的指令" in last_user
