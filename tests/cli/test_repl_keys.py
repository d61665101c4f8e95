"""Prompt keys as a person uses them: Tab/Esc with the completion menu, Ctrl+C, multi-line, approvals, /compact."""

from __future__ import annotations

import io
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output
from rich.console import Console

from paicli.agent.events import EventSink, RunFinished
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.approval import ESC_NOTE, TerminalApprover, question_line
from paicli.cli.repl import run_repl
from paicli.config.modes import RunMode
from paicli.testing.fake_backend import FakeBackend, recording_table
from paicli.testing.openai_server import FakeOpenAIServer, Reply, is_summary_request
from paicli.tools.base import ApprovalReply, ApprovalRequest
from tests.cli.screen import plain_screen, redrawn_after, run_on_screen, shown_after
from tests.cli.served_session import served_parts
from tests.cli.test_repl_interactive import CTRL_C, CTRL_D, ENTER, ESC, Session, pause, wait_for

pytestmark = pytest.mark.timeout(30)
TAB = "\t"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


def typed(*steps: str, gap: float = 0.3) -> object:
    """A feeder that sends each step and lets the prompt settle (completion, Esc timeout) in between."""

    def feeder(inp: PipeInput) -> None:
        for step in steps:
            inp.send_text(step)
            pause(gap)

    return feeder


def test_tab_on_a_single_command_takes_it_and_a_second_tab_keeps_it(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()
    Session(backend, pipe, tmp_path / "h").run(typed("/pol", TAB, TAB, ENTER, CTRL_D))  # type: ignore[arg-type]
    assert backend.calls == [("policy", None)]


def test_tab_walks_into_a_folder_and_on_to_the_file(pipe: PipeInput, tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "util.py").write_text("x = 1\n", encoding="utf-8")
    backend = FakeBackend(project_root=str(tmp_path))

    def feeder(inp: PipeInput, screen: io.StringIO) -> None:
        shown_after(screen, inp, "看 @sr", "src/")  # the menu offers the folder
        shown_after(screen, inp, TAB, "util.py")  # taken; the menu now lists the folder's file
        shown_after(screen, inp, TAB, "util.py")  # taken into the line
        shown_after(screen, inp, ENTER, "看 @src/util.py")
        inp.send_text(CTRL_D)

    run_on_screen(backend, pipe, tmp_path, feeder)
    assert backend.calls == [("run", ("看 @src/util.py", "react"))]


def test_esc_closes_the_menu_and_keeps_the_completed_text(pipe: PipeInput, tmp_path: Path) -> None:
    (tmp_path / "hello.py").write_text("print(1)\n", encoding="utf-8")
    (tmp_path / "help.md").write_text("# help\n", encoding="utf-8")
    backend = FakeBackend(project_root=str(tmp_path))

    # Tab picks the first of two candidates with the menu still open; Esc closes it and the picked path stays.
    def feeder(inp: PipeInput, screen: io.StringIO) -> None:
        shown_after(screen, inp, "看 @hel", "help.md")  # the menu lists both files
        shown_after(screen, inp, TAB, "hello.py")  # the first one is taken into the line, menu still open
        redrawn_after(screen, inp, ESC)  # a lone Esc, handled once the meta-key timeout passed
        shown_after(screen, inp, " 好吗", "好吗")
        shown_after(screen, inp, ENTER, "看 @hello.py 好吗")
        inp.send_text(CTRL_D)

    run_on_screen(backend, pipe, tmp_path, feeder)
    assert backend.calls == [("run", ("看 @hello.py 好吗", "react"))]


def test_esc_without_a_menu_still_clears_the_line(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()

    def feeder(inp: PipeInput, screen: io.StringIO) -> None:
        shown_after(screen, inp, "不要了", "不要了")
        redrawn_after(screen, inp, ESC)
        shown_after(screen, inp, "/clear", "/clear")
        inp.send_text(ENTER)
        for _ in range(600):
            if backend.calls:
                break
            pause(0.05)
        inp.send_text(CTRL_D)

    run_on_screen(backend, pipe, tmp_path, feeder)
    assert backend.calls == [("clear", None)]


def test_ctrl_c_on_an_empty_line_says_how_to_leave(pipe: PipeInput, tmp_path: Path) -> None:
    session = Session(FakeBackend(), pipe, tmp_path / "h")
    session.run(typed("有字", CTRL_C, CTRL_C, CTRL_D))  # type: ignore[arg-type]
    assert session.text.count("Ctrl+D 或输入 /exit 退出") == 1  # only for the empty line


def test_continuation_lines_are_indented_under_the_first(pipe: PipeInput, tmp_path: Path) -> None:
    screen = io.StringIO()
    output = Vt100_Output(screen, lambda: Size(rows=20, columns=80), term="xterm")
    backend = FakeBackend()
    feeder = typed("第一行", ESC + ENTER, "第二行", ENTER, CTRL_D)
    thread = threading.Thread(target=feeder, args=(pipe,), daemon=True)
    thread.start()
    run_repl(
        backend,
        table=recording_table(),
        input=pipe,
        output=output,
        interactive=True,
        history_file=tmp_path / "h",
        console=Session(backend, pipe, tmp_path).console,
    )
    thread.join(10)
    assert backend.calls == [("run", ("第一行\n第二行", "react"))]
    lines = plain_screen(screen.getvalue()).split("\r\n")
    assert any(line.startswith("  第二行") for line in lines)  # under "第一行", not under "›"
    assert not any(line.startswith("第二行") for line in lines)


def ask_once(
    pipe: PipeInput, tmp_path: Path, request: ApprovalRequest, *steps: str
) -> tuple[Session, list[object]]:
    """`steps`: keys, then the text to wait for, and so on."""
    approver = TerminalApprover()
    answers: list[object] = []

    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        answers.append(approver.approve(request))
        return RunFinished("done", "")

    backend = FakeBackend(scripts=[run])
    session = Session(backend, pipe, tmp_path / "h")

    def feeder(inp: PipeInput) -> None:
        wait_for(session, "需要确认: " + request.summary)
        for keys, shown in zip(steps[::2], steps[1::2], strict=True):
            inp.send_text(keys)
            wait_for(session, shown)
        inp.send_text(CTRL_D)

    session.run(feeder, "构建" + ENTER, approver=approver)
    return session, answers


def test_approve_all_says_what_it_covers(pipe: PipeInput, tmp_path: Path) -> None:
    request = ApprovalRequest(
        "execute_command",
        {"command": "npm test"},
        "执行命令: npm test",
        "需要确认",
        preview="npm test",
        always="以 `npm test` 开头的命令",
    )
    session, answers = ask_once(pipe, tmp_path, request, "a", "已允许")
    assert answers == ["approve_all"]
    assert "[a] 本会话始终允许以 `npm test` 开头的命令" in question_line(
        request
    )  # the question says it before
    assert "本会话里以 `npm test` 开头的命令不再逐次询问" in session.text  # and the answer after
    assert session.text.count("npm test") == 2  # summary and answer: the one-line command is not repeated


def test_always_is_not_offered_for_a_destructive_command(pipe: PipeInput, tmp_path: Path) -> None:
    request = ApprovalRequest(
        "execute_command",
        {"command": "rm -rf build"},
        "执行命令: rm -rf build",
        "需要确认",
        preview="rm -rf build",
        always=None,
    )
    _, answers = ask_once(pipe, tmp_path, request, "a" + "y", "已允许")
    assert answers == ["approve"]  # "a" was ignored, "y" allowed only this call
    assert "[a]" not in question_line(request) and "只能逐次允许" in question_line(request)


def test_esc_at_an_approval_refuses_and_tells_the_model_why(pipe: PipeInput, tmp_path: Path) -> None:
    request = ApprovalRequest("write_file", {"path": "a.py"}, "写入文件: a.py", "需要确认", always="文件编辑")
    _, answers = ask_once(pipe, tmp_path, request, ESC, "已拒绝")
    assert answers == [ApprovalReply("deny", ESC_NOTE)]


def test_t_refuses_and_sends_what_to_do_instead(pipe: PipeInput, tmp_path: Path) -> None:
    request = ApprovalRequest("write_file", {"path": "a.py"}, "写入文件: a.py", "需要确认", always="文件编辑")
    session, answers = ask_once(
        pipe, tmp_path, request, "t", "告诉它应该怎么做", "改写到 b.py" + ENTER, "已拒绝"
    )
    assert answers == [ApprovalReply("deny", "改写到 b.py")]
    assert "已把你的说明交给它" in session.text


def test_esc_cancels_a_running_compact(pipe: PipeInput, tmp_path: Path) -> None:
    def hang_summaries(body: dict[str, Any]) -> Reply | None:
        return Reply.hang() if is_summary_request(body) else None

    with FakeOpenAIServer(responder=hang_summaries) as server:
        server.push("回答一。", "回答二。", "回答三。")
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        for text in ("问题一", "问题二", "问题三"):
            backend.run(text, "react", lambda _event: None, CancelToken())
        session = Session(backend, pipe, tmp_path / "h")  # type: ignore[arg-type]

        def feeder(inp: PipeInput) -> None:
            assert server.wait_for_hang(30)  # the summary request is on its way
            inp.send_text(ESC)
            wait_for(session, "压缩没有完成")
            inp.send_text(CTRL_D)

        session.run(feeder, "/compact" + ENTER)
    assert "正在停止当前任务" in session.text and "上下文已压缩" not in session.text
    assert backend.state.phase == "idle"


def test_a_command_with_a_wrong_argument_shows_its_usage_only(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()
    session = Session(backend, pipe, tmp_path / "h")
    session.run(None, "/hitl off" + ENTER, CTRL_D)
    assert backend.calls == []
    assert "用法: /hitl [on|default]" in session.text and "/policy" not in session.text


def test_ctrl_c_at_an_approval_refuses_and_stops_the_task(pipe: PipeInput, tmp_path: Path) -> None:
    approver = TerminalApprover()
    request = ApprovalRequest("write_file", {"path": "a.py"}, "写入文件: a.py", "需要确认")
    seen: list[tuple[str, bool]] = []

    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        seen.append((approver.approve(request), cancel.cancelled))
        return RunFinished("cancelled" if cancel.cancelled else "done", "")

    backend = FakeBackend(scripts=[run])
    session = Session(backend, pipe, tmp_path / "h")

    def feeder(inp: PipeInput) -> None:
        wait_for(session, "需要确认: 写入文件: a.py")
        inp.send_text(CTRL_C)
        wait_for(session, "任务已取消")
        inp.send_text(CTRL_D)

    session.run(feeder, "写吧" + ENTER, approver=approver)
    assert seen == [("deny", True)]
    text = session.text
    assert text.index("已拒绝") < text.index("正在停止当前任务") < text.index("任务已取消")


def test_ctrl_d_while_a_task_runs_says_the_session_ends_after_it(pipe: PipeInput, tmp_path: Path) -> None:
    started = threading.Event()
    release = threading.Event()

    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        started.set()
        release.wait(10)
        return RunFinished("done", "慢慢的答案")

    backend = FakeBackend(scripts=[run])
    session = Session(backend, pipe, tmp_path / "h")

    def feeder(inp: PipeInput) -> None:
        assert started.wait(10)
        inp.send_text(CTRL_D)
        wait_for(session, "任务结束后退出")
        release.set()

    assert session.run(feeder, "慢一点" + ENTER) == 0
    text = session.text
    assert text.index("任务结束后退出") < text.index("慢慢的答案") < text.index("👋")
    assert text.count("任务结束后退出") == 1


def test_the_status_bar_keeps_the_mode_in_a_narrow_terminal(pipe: PipeInput, tmp_path: Path) -> None:
    class Screen(Vt100_Output):
        def get_rows_below_cursor_position(self) -> int:  # what a terminal's CPR answer would tell
            return 20

    screen = io.StringIO()
    backend = FakeBackend()
    pipe.send_text(CTRL_D)
    run_repl(
        backend,
        table=recording_table(),
        input=pipe,
        output=Screen(screen, lambda: Size(rows=30, columns=70)),
        interactive=True,
        history_file=tmp_path / "h",
        console=Session(backend, pipe, tmp_path).console,
    )
    shown = plain_screen(screen.getvalue())
    assert "fake-model · ctx ~12.3k/128k (9.6%) · in 45.1k out 3.2k · auto" in shown
    assert "cached" not in shown


@pytest.mark.parametrize(
    ("command", "answer"), [("/memory clear", "已取消，长期记忆保持不变"), ("/resume", "已取消恢复")]
)
def test_esc_backs_out_of_a_follow_up_question(
    pipe: PipeInput, tmp_path: Path, command: str, answer: str
) -> None:
    with FakeOpenAIServer() as server:
        server.push("旧的回答")
        earlier = AppBackend(served_parts(tmp_path, server.base_url))
        earlier.run("旧任务", "react", lambda _event: None, CancelToken())
        earlier.close(5)
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        backend.parts.memory.save_memory_tool("项目用 Java 17")
        printed = run_question(backend, pipe, tmp_path, command, answer)
    assert answer in printed
    assert (
        backend.parts.memory.list_all() != []
        and backend.parts.ledger.session_id != earlier.parts.ledger.session_id
    )


def run_question(backend: AppBackend, pipe: PipeInput, tmp_path: Path, command: str, answer: str) -> str:
    printed = io.StringIO()
    question = "确认清空全部长期记忆" if command == "/memory clear" else "输入编号、会话 id 或搜索词恢复"

    def feeder(inp: PipeInput, screen: io.StringIO) -> None:
        shown_after(screen, inp, command + ENTER, question)  # the question is drawn by the prompt itself
        inp.send_text(ESC)
        for _ in range(1200):
            if answer in printed.getvalue():
                break
            pause(0.05)
        inp.send_text(CTRL_D)

    console = Console(file=printed, force_terminal=False, width=120)
    run_on_screen(backend, pipe, tmp_path, feeder, console=console)
    return printed.getvalue()
