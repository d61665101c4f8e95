"""The approval question's words: whole option labels, and the one default (stdio: Enter) said on screen."""

from __future__ import annotations

import io
import sys

import pytest
from rich.cells import cell_len

from paicli.cli.approval import TerminalApprover, ask_on_stdio, question_line, question_options, spaced
from paicli.cli.wrapping import pack
from paicli.tools.base import ApprovalDecision, ApprovalRequest

REQUEST = ApprovalRequest(
    "write_file",
    {"path": "docs/a.txt"},
    "写入文件: docs/a.txt",
    "当前为 ask 模式",
    always="项目内的文件写入和编辑（write_file / edit_file；不含 shell 命令）",
)


def test_the_line_is_the_options_joined() -> None:
    assert question_line(REQUEST) == "  ".join(question_options(REQUEST))
    assert question_options(REQUEST)[1] == f"[a] 本会话始终允许{REQUEST.always}"


@pytest.mark.parametrize("width", [40, 59, 79, 119])
def test_options_at_any_width_keep_labels_and_words_whole(width: int) -> None:
    drawn = pack(question_options(REQUEST), width)
    assert all(cell_len(row) <= width for row in drawn)
    for whole in (
        "[y] 允许",
        "[n] 拒绝",
        "[t] 拒绝并告诉它怎么做",
        "[Esc] 拒绝：",
        "write_file",
        "edit_file",
    ):
        assert any(whole in row for row in drawn), (width, drawn)


def test_stdio_says_what_enter_does_and_enter_denies(monkeypatch: pytest.MonkeyPatch) -> None:
    shown = io.StringIO()
    monkeypatch.setattr(sys, "stdin", io.StringIO("\n"))
    monkeypatch.setattr(sys, "stderr", shown)
    assert ask_on_stdio(REQUEST) == "deny"
    assert "[n] 拒绝（直接回车 = 拒绝）" in shown.getvalue()


def test_a_latin_label_is_set_apart_from_the_chinese_around_it() -> None:
    mcp = ApprovalRequest("mcp__fs__read", {}, "MCP 工具: read", "需要确认", always="MCP 工具 fs/read")
    assert question_options(mcp)[1] == "[a] 本会话始终允许 MCP 工具 fs/read"
    assert spaced("MCP 工具 fs/read") == " MCP 工具 fs/read "
    assert spaced("以 `npm test` 开头的命令") == "以 `npm test` 开头的命令"
    assert question_options(REQUEST)[1] == f"[a] 本会话始终允许{REQUEST.always}"


def test_the_repl_lends_its_asker_for_its_run_and_stdio_asks_again_after(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    approver = TerminalApprover()
    asked: list[str] = []

    def repl_asker(request: ApprovalRequest) -> ApprovalDecision:
        asked.append(request.tool)
        return "approve"

    monkeypatch.setattr(sys, "stdin", io.StringIO("y\n"))
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    with approver.asking(repl_asker):
        assert approver.approve(REQUEST) == "approve" and asked == ["write_file"]
        assert sys.stdin.read() == "y\n"  # stdio was not read while the REPL asked
    monkeypatch.setattr(sys, "stdin", io.StringIO("n\n"))
    assert approver.handler is None and approver.approve(REQUEST) == "deny" and asked == ["write_file"]
