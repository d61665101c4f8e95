"""Big pastes collapse to a placeholder and are sent expanded; Ctrl+O opens the last folded tool output;
grep_code's preview shows the matching lines."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from prompt_toolkit.input import PipeInput, create_pipe_input

from paicli.agent.events import ToolFinished, ToolStarted
from paicli.cli.paste import PasteStore
from paicli.cli.summaries import summarize_result
from paicli.testing.fake_backend import FakeBackend, events
from paicli.tools.base import ToolResult
from tests.cli.test_repl_interactive import CTRL_D, ENTER, Session, wait_for

pytestmark = pytest.mark.timeout(30)
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
CTRL_O = "\x0f"


@pytest.fixture
def pipe() -> Iterator[PipeInput]:
    with create_pipe_input() as inp:
        yield inp


def test_a_big_paste_becomes_a_placeholder_and_expands_when_sent() -> None:
    store = PasteStore()
    text = "\n".join(f"第 {n} 行" for n in range(1, 201))
    placeholder = store.collapse(text.replace("\n", "\r\n"))
    assert placeholder == "[已粘贴 200 行]"
    assert store.collapse("一行\n两行") == "一行\n两行"  # a short paste is inserted as is
    assert store.expand(f"看看这个日志 {placeholder} 哪里错了") == f"看看这个日志 {text} 哪里错了"
    assert store.expand(placeholder) == placeholder  # expanded once, then forgotten


def test_pasting_200_lines_in_the_repl_sends_all_of_them(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()
    session = Session(backend, pipe, tmp_path / "h")
    text = "\n".join(f"line {n}" for n in range(1, 201))
    assert session.run(None, "日志：", PASTE_START + text + PASTE_END, ENTER, CTRL_D) == 0
    [(name, (sent, _))] = backend.calls
    assert name == "run" and sent == "日志：" + text


def folded_run() -> FakeBackend:
    output = "\n".join(f"out {n}" for n in range(1, 41))
    result = ToolResult("c1", "execute_command", output)
    return FakeBackend(
        scripts=[events(ToolStarted("c1", "execute_command", '{"command":"make"}'), ToolFinished(result))]
    )


def test_ctrl_o_shows_the_last_folded_output_and_keeps_the_typed_line(
    pipe: PipeInput, tmp_path: Path
) -> None:
    backend = folded_run()
    session = Session(backend, pipe, tmp_path / "h")

    def feeder(inp: PipeInput) -> None:
        wait_for(session, "Ctrl+O 展开")
        inp.send_text("还没打完" + CTRL_O)
        wait_for(session, "输出结束")
        inp.send_text("的句子" + ENTER + CTRL_D)

    assert session.run(feeder, "构建" + ENTER) == 0
    text = session.text
    assert "── execute_command 的完整输出（40 行）──" in text
    assert all(f"out {n}\n" in text for n in range(1, 41))
    assert [call[1][0] for call in backend.calls] == ["构建", "还没打完的句子"]  # Ctrl+O submitted nothing


def test_ctrl_o_with_nothing_folded_says_so(pipe: PipeInput, tmp_path: Path) -> None:
    backend = FakeBackend()
    session = Session(backend, pipe, tmp_path / "h")

    def feeder(inp: PipeInput) -> None:
        inp.send_text(CTRL_O)
        wait_for(session, "还没有被折叠的工具输出")
        inp.send_text(CTRL_D)

    assert session.run(feeder) == 0 and backend.calls == []


def test_grep_preview_shows_matching_lines_first() -> None:
    body = "\n".join(
        [
            "grep_code: 模式 'retry' 在 1 个文件中找到 2 处匹配",
            "src/a.py-10-import os",
            "src/a.py-11-",
            "src/a.py:12:def retry():",
            "src/a.py-13-    pass",
            "--",
            "src/a.py-40-x = 1",
            "src/a.py:41:retry()",
        ]
    )
    summary = summarize_result(ToolResult("c", "grep_code", body))
    assert summary.preview[:2] == ("src/a.py:12:def retry():", "src/a.py:41:retry()")
    assert summary.headline.startswith("模式 'retry'")
