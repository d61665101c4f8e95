"""The prompt_toolkit REPL driven through a pipe input (keys as a terminal would send them)."""

from __future__ import annotations

import dataclasses
import io
import re
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from paicli.agent.events import EventSink, ModelCallStarted, RunFinished, TextDelta
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.approval import TerminalApprover
from paicli.cli.command_table import BUILTIN, COMMANDS
from paicli.cli.commands import CommandContext, CommandSpec, CommandTable
from paicli.cli.repl import run_repl
from paicli.cli.repl_complete import ReplCompleter
from paicli.config.modes import RunMode
from paicli.testing.fake_backend import FakeBackend, recording_table, streamed, wait_for_cancel
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.tools.base import ApprovalRequest
from tests.cli.screen import redrawn_after, run_on_screen, shown_after
from tests.cli.served_session import served_parts

ESC = "\x1b"
ENTER = "\r"
CTRL_C = "\x03"
CTRL_D = "\x04"
UP = "\x1b[A"


pytestmark = pytest.mark.timeout(30)


SECOND = ApprovalRequest("write_file", {"path": "b.py"}, "写入文件: b.py", "需要确认", always="文件编辑")


def pause(seconds: float) -> None:
    """Let the prompt settle between keys (Esc and Tab are resolved after short timeouts)."""
    threading.Event().wait(seconds)


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


class Session:
    def __init__(self, backend: FakeBackend, pipe: PipeInput, history: Path) -> None:
        self.backend = backend
        self.pipe = pipe
        self.history = history
        self.buffer = io.StringIO()
        self.console = Console(file=self.buffer, force_terminal=False, width=120)
        self.table: CommandTable | None = None  # default: the built-in one (session commands recorded)

    def run(
        self,
        feeder: Callable[[PipeInput], None] | None = None,
        *keys: str,
        approver: TerminalApprover | None = None,
    ) -> int:
        """Run the REPL on this (main) thread; `feeder` types on another one."""
        for key in keys:
            self.pipe.send_text(key)
        thread = None
        if feeder is not None:
            thread = threading.Thread(target=feeder, args=(self.pipe,), daemon=True)
            thread.start()
        code = run_repl(
            self.backend,
            table=self.table or (recording_table() if isinstance(self.backend, FakeBackend) else None),
            input=self.pipe,
            output=DummyOutput(),
            interactive=True,
            history_file=self.history,
            console=self.console,
            approver=approver,
        )
        if thread is not None:
            thread.join(10)
        return code

    @property
    def text(self) -> str:
        return self.buffer.getvalue()


def test_completion_lists_commands_with_descriptions(tmp_path: Path) -> None:
    completer = ReplCompleter(tmp_path)
    found = list(completer.get_completions(Document("/"), CompleteEvent(completion_requested=True)))
    assert [c.text for c in found] == ["/" + spec.name for spec in COMMANDS]
    metas = [c.display_meta_text for c in found]
    assert metas == [spec.description for spec in COMMANDS]
    assert [c.text for c in completer.get_completions(Document("/me"), CompleteEvent())] == ["/memory"]
    assert [c.text for c in completer.get_completions(Document("/ct"), CompleteEvent())] == ["/ctx"]
    assert [c.text for c in completer.get_completions(Document("/QU"), CompleteEvent())] == ["/quit"]
    subs = list(completer.get_completions(Document("/memory s"), CompleteEvent()))
    assert [c.text for c in subs] == ["search "]
    assert list(completer.get_completions(Document("hello"), CompleteEvent())) == []


def test_at_paths_complete_project_files_and_skip_tool_dirs(tmp_path: Path) -> None:
    (tmp_path / "src" / "pkg").mkdir(parents=True)
    (tmp_path / "src" / "pkg" / "service.py").write_text("x")
    (tmp_path / "src" / "app.py").write_text("x")
    for skipped in (".git", ".paicli", ".venv", "node_modules"):
        (tmp_path / skipped).mkdir()
        (tmp_path / skipped / "service_copy.py").write_text("x")
    completer = ReplCompleter(tmp_path)

    def texts(line: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(line), CompleteEvent())]

    assert texts("看看 @s") == ["@src/"]
    assert texts("看看 @src/") == ["@src/app.py", "@src/pkg/"]
    assert texts("@src/pkg/se") == ["@src/pkg/service.py"]
    assert texts("@servi") == ["@src/pkg/service.py"]  # name search when nothing at the top matches
    assert texts("@../") == []
    assert texts("@.") == []


def test_at_completes_mcp_resources_beside_paths(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    mentions = ["@docs:file:///guide.md", "@docs:file:///api.md", "@tracker:issue://1"]
    completer = ReplCompleter(tmp_path, mentions=lambda: mentions)

    def texts(line: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(line), CompleteEvent())]

    assert texts("看 @docs:") == ["@docs:file:///guide.md", "@docs:file:///api.md"]
    assert texts("@tr") == ["@tracker:issue://1"]
    assert texts("@do") == ["@docs:file:///guide.md", "@docs:file:///api.md", "@docs/"]
    mcp_subs = [c.text for c in completer.get_completions(Document("/mcp re"), CompleteEvent())]
    assert mcp_subs == ["restart ", "resources"]


def test_help_clear_and_a_task_then_ctrl_d(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend(scripts=[streamed("## 结果\n\n", "一切**正常**\n")])
    session = Session(backend, pipe, tmp_path / "history" / "input.history")
    code = session.run(None, "/help" + ENTER, "/clear" + ENTER, "检查一下项目" + ENTER, CTRL_D)
    assert code == 0
    assert backend.calls == [("clear", None), ("run", ("检查一下项目", "react"))]
    text = session.text
    assert "paicli v9.9.9" in text and "fake-model (fakeprov)" in text and "128k" in text
    assert "可用命令：" in text and "已记录 /clear" in text
    assert "结果" in text and "一切正常" in text and "**" not in text
    assert "👋" in text and backend.closed
    assert "检查一下项目" in (tmp_path / "history" / "input.history").read_text(encoding="utf-8")


def test_tab_completes_a_command(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()

    def feeder(inp: PipeInput, screen: io.StringIO) -> None:
        shown_after(screen, inp, "/pol", "/policy")  # the menu offers the command
        redrawn_after(screen, inp, "\t")
        inp.send_text(ENTER)
        for _ in range(600):
            if backend.calls:
                break
            pause(0.05)
        inp.send_text(CTRL_D)

    run_on_screen(backend, pipe, tmp_path, feeder)
    assert backend.calls == [("policy", None)]


def test_esc_cancels_the_running_task(pipe: PipeInput, tmp_path: Path) -> None:
    started = threading.Event()
    backend = FakeBackend(scripts=[wait_for_cancel(started)])

    def feeder(inp: PipeInput) -> None:
        assert started.wait(10)
        inp.send_text(ESC)
        pause(0.5)
        inp.send_text(CTRL_D)

    session = Session(backend, pipe, tmp_path / "h")
    session.pipe.send_text("长时间的任务" + ENTER)
    code = session.run(feeder)
    assert code == 0
    assert "⏹️ 正在停止当前任务…" in session.text and "任务已取消" in session.text


def test_ctrl_c_cancels_the_running_task_and_typeahead_reaches_the_next_prompt(
    pipe: PipeInput, tmp_path: Path
) -> None:
    started = threading.Event()
    backend = FakeBackend(scripts=[wait_for_cancel(started)])

    def feeder(inp: PipeInput) -> None:
        assert started.wait(10)
        inp.send_text("/policy" + ENTER)
        inp.send_text(CTRL_C)
        inp.send_text(CTRL_D)

    session = Session(backend, pipe, tmp_path / "h")
    session.pipe.send_text("任务" + ENTER)
    session.run(feeder)
    assert backend.names() == ["run", "policy"]
    assert "⏹️ 正在停止当前任务…" in session.text


def test_ctrl_c_at_the_prompt_clears_the_line(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()
    Session(backend, pipe, tmp_path / "h").run(None, "不要执行这句", CTRL_C, "/ctx" + ENTER, CTRL_D)
    assert backend.calls == [("context", None)]


def test_newlines_by_esc_enter_ctrl_j_and_bracketed_paste(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()
    Session(backend, pipe, tmp_path / "h").run(
        None,
        "第一行" + ESC + ENTER + "第二行" + ENTER,
        "a\nb" + ENTER,
        "\x1b[200~粘贴一\r\n粘贴二\x1b[201~" + ENTER,
        CTRL_D,
    )
    assert [args for _, args in backend.calls] == [
        ("第一行\n第二行", "react"),
        ("a\nb", "react"),
        ("粘贴一\n粘贴二", "react"),
    ]


@pytest.mark.e2e  # Esc is resolved after prompt_toolkit's real timeout
def test_plan_pending_and_esc_cancels_it(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()
    session = Session(backend, pipe, tmp_path / "h")

    def feeder(inp: PipeInput) -> None:
        inp.send_text("/team" + ENTER)
        pause(0.3)
        inp.send_text(ESC)
        pause(1.0)
        inp.send_text("普通任务" + ENTER + "/plan" + ENTER + "计划任务" + ENTER + CTRL_D)

    session.run(feeder)
    assert [args for _, args in backend.calls] == [("普通任务", "react"), ("计划任务", "plan")]
    assert "不再等待多智能体协作" in session.text


def test_history_persists_across_sessions_and_can_be_cleared(tmp_path: Path) -> None:
    history = tmp_path / "history" / "input.history"
    with create_pipe_input() as first:
        Session(FakeBackend(), first, history).run(None, "记住这句" + ENTER, CTRL_D)
    backend = FakeBackend()
    with create_pipe_input() as second:
        Session(backend, second, history).run(None, UP + ENTER, "/history clear" + ENTER, CTRL_D)
    assert backend.calls == [("run", ("记住这句", "react"))]
    assert "记住这句" not in history.read_text(encoding="utf-8")


def test_memory_clear_is_confirmed_at_a_prompt(pipe: PipeInput, tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        backend.parts.memory.save_memory_tool("项目用 Java 17")
        session = Session(backend, pipe, tmp_path / "h")  # type: ignore[arg-type]
        session.run(None, "/memory clear" + ENTER, "n" + ENTER, "/memory clear" + ENTER, "y" + ENTER, CTRL_D)
        assert server.requests == []  # the answers were taken by the question, not run as tasks
    _, cleared = session.text.split("已取消")
    assert "全部长期记忆已删除" in cleared and backend.parts.memory.list_all() == []


def test_notices_are_printed_after_a_task(pipe: PipeInput, tmp_path: Path) -> None:
    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        emit(ModelCallStarted(1))
        emit(TextDelta("好的"))
        backend.notices.append("🧠 已自动提取 2 条事实")
        return RunFinished("done", "好的")

    backend = FakeBackend(scripts=[run])
    session = Session(backend, pipe, tmp_path / "h")
    session.run(None, "做点事" + ENTER, CTRL_D)
    assert session.text.index("好的") < session.text.index("🧠 已自动提取 2 条事实")


def test_a_backend_that_raises_in_run_is_reported(pipe: PipeInput, tmp_path: Path) -> None:
    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        raise RuntimeError("连接失败")

    backend = FakeBackend(scripts=[run])
    session = Session(backend, pipe, tmp_path / "h")
    assert session.run(None, "做点事" + ENTER, "/clear" + ENTER, CTRL_D) == 0
    assert "❌ 任务未完成: 连接失败" in session.text and backend.names() == ["run", "clear"]


REQUEST = ApprovalRequest(
    "write_file",
    {"path": "a.py"},
    "写入文件: a.py",
    "ask 模式下写文件需要确认",
    preview="--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-old\n+new\n",
    always="项目内的文件编辑",
)


def wait_for(session: Session, text: str) -> None:
    for _ in range(200):
        if text in session.text:
            return
        pause(0.05)
    raise AssertionError(f"{text!r} never shown:\n{session.text}")


@pytest.mark.parametrize(
    ("keys", "decision"),
    [
        ("y", "approve"),
        ("a", "approve_all"),
        ("好Y", "approve"),
        ("n", "deny"),
        ("yes" + ENTER, "approve"),  # the rest of the word and its Enter reach neither the model nor /clear
        ("no" + ENTER, "deny"),
        ("all" + ENTER, "approve_all"),
    ],
)
def test_approval_is_asked_at_the_prompt(pipe: PipeInput, tmp_path: Path, keys: str, decision: str) -> None:
    approver = TerminalApprover()
    answers: list[str] = []

    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        emit(TextDelta("先改文件。\n\n"))
        answers.append(approver.approve(REQUEST))
        return RunFinished("done", "")

    backend = FakeBackend(scripts=[run])
    session = Session(backend, pipe, tmp_path / "h")

    def feeder(inp: PipeInput) -> None:
        wait_for(session, "需要确认: 写入文件: a.py")
        inp.send_text(keys)
        wait_for(session, "已拒绝" if decision == "deny" else "已允许")
        inp.send_text("/clear" + ENTER + CTRL_D)

    assert session.run(feeder, "改一下" + ENTER, approver=approver) == 0
    assert answers == [decision]
    assert backend.names() == ["run", "clear"]
    text = session.text
    assert (
        text.index("先改文件") < text.index("需要确认")
        and "+new" in text
        and "ask 模式下写文件需要确认" in text
    )
    assert approver.handler is None


def test_an_approval_outside_a_run_is_refused_not_hung(pipe: PipeInput, tmp_path: Path) -> None:
    approver = TerminalApprover()
    answers: list[str] = []

    def asks(ctx: CommandContext, args: str) -> None:
        answers.append(approver.approve(REQUEST))

    table = BUILTIN.with_command(CommandSpec("asks", "/asks", "审批一次", handler=asks))
    session = Session(FakeBackend(), pipe, tmp_path / "h")
    session.table = table
    session.run(None, "/asks" + ENTER, CTRL_D, approver=approver)
    assert answers == ["deny"]


def test_history_file_is_trimmed_to_the_newest_entries(tmp_path: Path) -> None:
    from prompt_toolkit.history import FileHistory

    from paicli.cli.repl_prompt import trim_history

    path = tmp_path / "input.history"
    history = FileHistory(str(path))
    for number in range(12):
        history.store_string(f"输入 {number}\n第二行")
    assert trim_history(path, 5) == 7
    assert trim_history(path, 5) == 0
    kept = list(FileHistory(str(path)).load_history_strings())
    assert kept == [f"输入 {number}\n第二行" for number in range(11, 6, -1)]


def test_status_bar_shows_the_backend_status_once_per_prompt(pipe: PipeInput, tmp_path: Path) -> None:
    from prompt_toolkit.data_structures import Size
    from prompt_toolkit.output.vt100 import Vt100_Output

    class Counting(FakeBackend):
        status_calls = 0

        def status(self):  # type: ignore[no-untyped-def]
            Counting.status_calls += 1
            return super().status()

    screen = io.StringIO()

    class Screen(Vt100_Output):
        def get_rows_below_cursor_position(self) -> int:  # what a terminal's CPR answer would tell
            return 20

    output = Screen(screen, lambda: Size(rows=30, columns=140))
    backend = Counting()
    pipe.send_text("abcdefgh" + CTRL_C + CTRL_D)
    run_repl(
        backend,
        table=recording_table(),
        input=pipe,
        output=output,
        interactive=True,
        history_file=tmp_path / "h",
        console=Console(file=io.StringIO()),
    )
    shown = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen.getvalue())
    assert "fake-model · ctx ~12.3k/128k (9.6%) · in 45.1k out 3.2k cached 30.0k (67% hit) · auto" in shown
    assert Counting.status_calls == 2  # one per prompt, not one per keystroke


def test_status_bar_can_be_turned_off(pipe: PipeInput, tmp_path: Path) -> None:

    class NoStatus(FakeBackend):
        def status(self):  # type: ignore[no-untyped-def]
            raise AssertionError("status bar is off")

    pipe.send_text("/clear" + ENTER + CTRL_D)
    backend = NoStatus()
    code = run_repl(
        backend,
        table=recording_table(),
        input=pipe,
        output=DummyOutput(),
        interactive=True,
        history_file=tmp_path / "h",
        console=Console(file=io.StringIO()),
        status_bar=False,
    )
    assert code == 0 and backend.names() == ["clear"]


def test_shift_tab_cycles_the_session_mode(pipe: PipeInput, tmp_path: Path) -> None:
    class Modes(FakeBackend):
        def status(self):  # type: ignore[no-untyped-def]
            current = next((args for name, args in reversed(self.calls) if name == "mode"), "auto")
            return dataclasses.replace(super().status(), mode=f"{current} · hitl")

    backend = Modes()
    session = Session(backend, pipe, tmp_path / "h")
    session.run(None, "\x1b[Z", "\x1b[Z", "\x1b[Z", "\x1b[Z", "\x1b[Z", CTRL_D)
    modes = [args for name, args in backend.calls if name == "mode"]
    assert modes == ["plan", "team", "ask", "auto", "plan"]  # every mode of the table, team too
    assert "已记录 /mode team" in session.text and "已记录 /mode ask" in session.text


def two_approvals(pipe: PipeInput, tmp_path: Path, first: str, second: str) -> tuple[Session, list[object]]:
    """One run asking twice: `first` typed at the first question, `second` (an approval) at the second."""
    approver = TerminalApprover()
    answers: list[object] = []

    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        answers.append(approver.approve(REQUEST))
        answers.append(approver.approve(SECOND))
        return RunFinished("done", "")

    backend = FakeBackend(scripts=[run])
    session = Session(backend, pipe, tmp_path / "h")

    def feeder(inp: PipeInput) -> None:
        wait_for(session, "需要确认: 写入文件: a.py")
        inp.send_text(first)
        wait_for(session, "需要确认: 写入文件: b.py")
        inp.send_text(second)
        wait_for(session, "已允许这一次")  # the second answer is an approval in each test
        inp.send_text("/clear" + ENTER + CTRL_D)

    assert session.run(feeder, "改两个文件" + ENTER, approver=approver) == 0
    assert backend.names() == ["run", "clear"]  # nothing typed at a question became a turn
    return session, answers


def test_y_enter_answers_one_question_and_its_enter_does_not_deny_the_next(
    pipe: PipeInput, tmp_path: Path
) -> None:
    _, answers = two_approvals(pipe, tmp_path, "y" + ENTER, "y")
    assert answers == ["approve", "approve"]


def test_enter_alone_does_not_answer_a_question_without_a_default(pipe: PipeInput, tmp_path: Path) -> None:
    session, answers = two_approvals(pipe, tmp_path, ENTER + ENTER + "n", "yes" + ENTER)
    assert answers == ["deny", "approve"]
    assert session.text.count("🚫 已拒绝") == 1
