"""stdin is not a terminal: one input per line, answers on stdout, progress on stderr, exit 0 at EOF."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import threading
from dataclasses import replace
from pathlib import Path

import pytest
from rich.console import Console

from paicli.agent.events import ToolFinished, ToolStarted
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.commands import CommandContext, CommandTable
from paicli.cli.repl import run_repl
from paicli.testing.fake_backend import FakeBackend, events, recording_table, streamed, wait_for_cancel
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.tools.base import ToolResult
from tests.cli.served_session import served_parts


def drive(
    backend: FakeBackend | AppBackend, text: str, tmp_path: Path, table: CommandTable | None = None
) -> tuple[int, str, str]:
    """A piped REPL over `backend`; a FakeBackend's session commands are recorded (`recording_table`)."""
    out, err = io.StringIO(), io.StringIO()
    code = run_repl(
        backend,  # type: ignore[arg-type]
        input=io.StringIO(text),
        output=out,
        interactive=False,
        history_file=tmp_path / "input.history",
        progress=Console(file=err, width=100),
        table=table or (recording_table() if isinstance(backend, FakeBackend) else None),
    )
    return code, out.getvalue(), err.getvalue()


def test_each_line_is_one_input_until_eof(tmp_path: Path) -> None:
    backend = FakeBackend(
        scripts=[streamed("第一个", "答案"), streamed("second")], notices=["🧠 记住了 1 条事实"]
    )
    code, out, err = drive(backend, "任务一\n\n/clear\n任务二\n", tmp_path)
    assert code == 0
    assert backend.calls == [("run", ("任务一", "react")), ("clear", None), ("run", ("任务二", "react"))]
    assert out.splitlines() == ["第一个答案", "已记录 /clear", "second"]
    assert "🧠 记住了 1 条事实" in err
    assert backend.closed
    assert not (tmp_path / "input.history").exists()


def test_tool_activity_goes_to_stderr_without_ansi(tmp_path: Path) -> None:
    run = events(
        ToolStarted("c1", "execute_command", '{"command": "ls"}'),
        ToolFinished(ToolResult("c1", "execute_command", "a\nb\nc\nd\ne")),
    )
    backend = FakeBackend(scripts=[run])
    _, out, err = drive(backend, "列一下文件\n", tmp_path)
    assert out == ""
    assert "⏺ execute_command(ls)" in err and "⎿ 5 行" in err and "还有 2 行" in err
    assert "\x1b[" not in out + err


def test_help_unknown_and_exit_stop_reading(tmp_path: Path) -> None:
    backend = FakeBackend()
    code, out, _ = drive(backend, "/help\n/wechat\n/exit\n不会执行\n", tmp_path)
    assert code == 2  # /wechat is not a command: a usage error for the script that sent it
    assert "可用命令：" in out and "❌ 没有这个命令: /wechat" in out and "👋" in out
    assert backend.names() == []


def test_plan_without_payload_applies_to_the_next_input_only(tmp_path: Path) -> None:
    backend = FakeBackend()
    drive(backend, "/plan\n做计划的事\n普通的事\n/team 一起做\n", tmp_path)
    assert [args for name, args in backend.calls] == [
        ("做计划的事", "plan"),
        ("普通的事", "react"),
        ("一起做", "team"),
    ]


def test_memory_clear_takes_the_next_line_as_confirmation(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        lines = "/save 项目用 Java 17\n/memory clear\nno\n/mem list\n/memory clear\ny\n/mem list\n"
        code, out, _ = drive(backend, lines, tmp_path)
    assert code == 0 and server.requests == []  # "no" and "y" answered the question: no model call
    declined, cleared = out.split("已取消")[1].split("全部长期记忆已删除")
    assert "项目用 Java 17" in declined and "项目用 Java 17" not in cleared and "没有找到" in cleared


def test_resume_lists_sessions_and_never_takes_the_next_line_as_the_choice(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("早的回答", "新的回答", "好")
        earlier = []
        for question in ("更早的问题", "最新的问题"):
            session = AppBackend(served_parts(tmp_path, server.base_url))
            session.run(question, "react", lambda _event: None, CancelToken())
            earlier.append(session.parts.ledger.session_id)
            session.close(5)
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        _, out, _ = drive(backend, "/resume\n2\n/resume nope\n/resume 问题\n/resume 2\n", tmp_path)
        assert [message["content"] for message in server.requests[-1]["messages"][1:]] == ["2"]
    assert out.index("最新的问题") < out.index("更早的问题")  # newest first
    assert "1 轮" in out and "fake-model" in out and "没有找到会话: nope" in out
    assert out.count("用 /resume <编号|会话 id|搜索词> 恢复其中一个") == 2  # the bare list and the 2 matches
    assert f"已恢复会话 {earlier[0]}" in out and "早的回答" in out.split("已恢复会话")[1]


def test_other_commands_reach_the_backend(tmp_path: Path) -> None:
    backend = FakeBackend()
    _, out, _ = drive(
        backend,
        "/model glm\n/mode plan\n/hitl on\n/policy\n/ctx\n/compact 接口\n/init --force\n"
        "/save --global 用中文\n/cancel\n/history clear\n",
        tmp_path,
    )
    assert backend.calls == [
        ("model", "glm"),
        ("mode", "plan"),
        ("hitl", "on"),
        ("policy", None),
        ("context", None),
        ("compact", "接口"),
        ("init", "--force"),
        ("save", "--global 用中文"),
    ]
    assert (
        "已记录 /mode plan" in out
        and "已记录 /hitl on" in out
        and "没有正在运行的任务" in out
        and "输入历史记录已删除" in out
    )


def test_a_failing_backend_command_does_not_end_the_session(tmp_path: Path) -> None:
    def broken(ctx: CommandContext, args: str) -> None:
        raise RuntimeError("坏了")

    table = recording_table()
    policy = table.find("policy")
    assert policy is not None
    table = CommandTable(replace(spec, handler=broken) if spec is policy else spec for spec in table.specs)
    backend = FakeBackend()
    code, out, _ = drive(backend, "/policy\n继续\n", tmp_path, table)
    assert code == 0 and "❌ 命令执行失败: 坏了" in out and backend.calls[-1] == ("run", ("继续", "react"))


@pytest.mark.e2e  # a process of its own, interrupted
def test_ctrl_c_cancels_a_piped_run(tmp_path: Path) -> None:
    """A real subprocess: SIGINT while a task runs cancels it, the REPL goes on and exits 0 at EOF."""
    script = textwrap.dedent(
        """
        import io, sys, threading
        from pathlib import Path
        sys.path.insert(0, sys.argv[1])
        from paicli.testing.fake_backend import FakeBackend, wait_for_cancel
        from paicli.cli.repl import run_repl
        started = threading.Event()
        backend = FakeBackend(scripts=[wait_for_cancel(started, timeout=20)])
        threading.Thread(target=lambda: (started.wait(20), print("STARTED", file=sys.stderr, flush=True)),
                         daemon=True).start()
        code = run_repl(backend, interactive=False, history_file=Path(sys.argv[2]))
        print("EXIT", code, backend.calls)
        """
    )
    root = Path(__file__).resolve().parents[2]
    err_path = tmp_path / "stderr.txt"
    with err_path.open("w") as err_file:
        proc = subprocess.Popen(
            [sys.executable, "-c", script, str(root), str(tmp_path / "h")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err_file,
            text=True,
            cwd=tmp_path,
        )
        assert proc.stdin is not None
        proc.stdin.write("长任务\n")
        proc.stdin.flush()
        for _ in range(400):
            if "STARTED" in err_path.read_text(encoding="utf-8"):
                break
            threading.Event().wait(0.05)
        os.kill(proc.pid, signal.SIGINT)
        out, _ = proc.communicate(input="/exit\n", timeout=20)
    assert "EXIT 0" in out and "长任务" in out
    err = err_path.read_text(encoding="utf-8")
    assert "⏹️ 正在停止当前任务…" in err and "任务已取消" in err


def test_a_run_error_is_reported_and_the_repl_goes_on(tmp_path: Path) -> None:
    started = threading.Event()
    backend = FakeBackend(scripts=[wait_for_cancel(started, timeout=0.05)])
    code, _, err = drive(backend, "等\n/clear\n", tmp_path)
    assert code == 1 and "❌ 任务未完成: never cancelled" in err and backend.names() == ["run", "clear"]


def test_ctrl_c_before_the_watcher_listens_is_still_only_a_cancel() -> None:
    from paicli.cli.repl_terminal import run_in_worker

    calls: list[str] = []

    def wait(done: threading.Event, cancel: CancelToken) -> None:
        calls.append("wait")
        if len(calls) == 1:
            raise KeyboardInterrupt  # lands before the watcher's own handler is in place
        done.wait(10)

    def work(cancel: CancelToken) -> str:
        return "stopped" if cancel.wait(10) else "ran to the end"

    seen: list[bool] = []
    result = run_in_worker(work, wait, lambda cancel: (seen.append(cancel.cancelled), cancel.cancel()))
    assert result == "stopped" and seen == [False] and calls == ["wait", "wait"]
