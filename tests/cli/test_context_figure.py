"""One context figure: the status bar, /context's bar and its total line agree, before and after calibration."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.statusbar import status_line
from paicli.context.status import format_tokens
from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.served_session import served_parts

pytestmark = pytest.mark.timeout(60)


def figures(backend: AppBackend) -> tuple[str, str, str, str]:
    """(status bar ctx, /context bar figure, /context total figure, the total's source note)."""
    bar = status_line(backend.status())
    ctx = re.search(r"ctx ~?([\d.]+k?)/", bar)
    report = backend.report.context().text
    top = re.search(r"\]\s+[\d.]+%\s+\(([\d.]+k?) / ", report)
    total = re.search(r"合计:\s+([\d.]+k?)\s+\([\d. ]+%\)\s+（(.+)）", report)
    assert ctx and top and total, (bar, report)
    return ctx.group(1), top.group(1), total.group(1), total.group(2)


def session(tmp_path: Path, base_url: str) -> AppBackend:
    return AppBackend(served_parts(tmp_path, base_url, PAICLI_CONTEXT_WINDOW="8000"))


def tools_row(report: str) -> tuple[str, int]:
    """/context's `Tools schema:` row: (tokens as shown, number of tools)."""
    row = re.search(r"Tools schema:\s+(\S+).*\[(\d+) 个工具\]", report)
    assert row, report
    return row.group(1), int(row.group(2))


def test_status_bar_and_context_report_show_the_same_figure(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("好的，已经看过了。" * 20, "第二个回答。" * 30)
        backend = session(tmp_path, server.base_url)
        try:
            backend.run("看一下项目结构" * 10, "react", lambda e: None, CancelToken())
            first = figures(backend)
            backend.run("再详细一点" * 10, "react", lambda e: None, CancelToken())
            second = figures(backend)
            status = backend.status()
        finally:
            backend.close(5)
    for shown in (first, second):
        assert shown[0] == shown[1] == shown[2], shown
    assert "服务端" in second[3]  # the provider reported usage: the figure says it is calibrated
    assert second[0] == format_tokens(status.context_tokens) and status.context_source == "calibrated"
    assert "~" not in status_line(status)


def test_once_the_model_refuses_tools_the_context_figures_count_no_tool_schema(tmp_path: Path) -> None:
    with FakeOpenAIServer(["好的"], reject_tools=True) as server:
        backend = session(tmp_path, server.base_url)
        try:
            offered = tools_row(backend.report.context().text)
            backend.run("你好", "react", lambda e: None, CancelToken())
            after = tools_row(backend.report.context().text)
            status = backend.status()
            messages_only = backend.core.compaction.figure(list(backend.agent.history), None).tokens
            shown = figures(backend)
        finally:
            backend.close(5)
        assert ["tools" in r for r in server.requests] == [True, False]
    assert offered[1] > 0 and offered[0] != "0"
    assert after == ("0", 0)
    assert status.context_tokens == messages_only  # the status bar counts no schema either
    assert shown[0] == shown[1] == shown[2], shown
