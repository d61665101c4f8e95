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
    """/context's `工具定义:` row: (tokens as shown, number of tools)."""
    row = re.search(r"工具定义:\s+(\S+).*\[(\d+) 个工具\]", report)
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
            messages_only = backend.core.compaction.figure(
                list(backend.agent.history), None, model=backend.agent.llm.model
            ).tokens
            shown = figures(backend)
        finally:
            backend.close(5)
        assert ["tools" in r for r in server.requests] == [True, False]
    assert offered[1] > 0 and offered[0] != "0"
    assert after == ("0", 0)
    assert status.context_tokens == messages_only  # the status bar counts no schema either
    assert shown[0] == shown[1] == shown[2], shown


def test_team_members_calls_never_calibrate_the_main_conversations_figure(tmp_path: Path) -> None:
    from paicli.testing.openai_server import Reply
    from tests.cli.test_e2e_team import APPROVE, role_of, team_plan

    def member(text: str) -> Reply:  # each member's provider figure far above its own size
        return Reply.text(
            text, usage={"prompt_tokens": 90_000, "completion_tokens": 5, "total_tokens": 90_005}
        )

    def respond(body: dict[str, object]) -> Reply | None:
        role = role_of(body)  # type: ignore[arg-type]
        if role == "planner":
            return member(team_plan(("s1", "统计甲模块", [])))
        if role == "reviewer":
            return member(APPROVE)
        return member("s1 的结果") if role == "worker" else None

    with FakeOpenAIServer(responder=respond) as server:
        server.push(Reply.text("主对话的回答。", usage={"prompt_tokens": 900, "completion_tokens": 5}))
        backend = session(tmp_path, server.base_url)
        try:
            backend.run("统计甲模块", "team", lambda e: None, CancelToken())
            counter, model = backend.core.compaction.counter, backend.parts.llm.model
            team_report = backend.report.context().text  # settles what the provider reported
            after_team = counter.calibration(model)
            backend.run("总结一下", "react", lambda e: None, CancelToken())
            report = backend.report.context().text
            after_turn = counter.calibration(model)
        finally:
            backend.close(5)
    assert after_team is None  # only members called the model: the main figure is still uncalibrated
    assert "尚未校准" in team_report and "90000" not in team_report
    assert after_turn is not None and after_turn.observations == 1  # from the main conversation's one call
    assert "服务端上次报告 prompt_tokens: 900" in report


def test_after_a_long_answer_the_bar_marks_compaction_due_and_summary_calls_count_as_input(
    tmp_path: Path,
) -> None:
    from paicli.cli.statusbar import status_line
    from paicli.testing.openai_server import Reply, is_summary_request

    summary = (
        "## 当前目标与成功条件\n回答问题\n## 用户要求与已确认决定\n无\n"
        "## 已完成工作及证据\n写了长回答\n## 未解决问题与下一步\n继续"
    )
    summary_usage = {"prompt_tokens": 7_000, "completion_tokens": 50, "total_tokens": 7_050}

    def respond(body: dict[str, object]) -> Reply | None:
        return Reply.text(summary, usage=summary_usage) if is_summary_request(body) else None

    long_answer = "这是一个非常详细的回答，覆盖了每一个细节。" * 450
    with FakeOpenAIServer(responder=respond) as server:
        server.push(long_answer, "第二个回答。")
        backend = session(tmp_path, server.base_url)
        try:
            backend.run("请详细解释", "react", lambda e: None, CancelToken())
            due = backend.status()
            before = backend.report.usage().prompt_tokens
            backend.run("继续", "react", lambda e: None, CancelToken())
            after = backend.status()
            computed = server.usages  # the main requests' own (the summaries' are scripted)
        finally:
            backend.close(5)
        summaries = [body for body in server.requests if is_summary_request(body)]
    assert due.context_tokens > due.context_window  # the history holds more than the window now
    assert due.compaction_due == "compact"
    line = status_line(due)
    assert "(发送前压缩)" in line and not re.search(r"\(\d{3,}\.\d%\)", line), line
    assert summaries and after.compaction_due == ""  # the next send compacted first
    assert len(computed) == 2
    spent = summary_usage["prompt_tokens"] * len(summaries) + computed[-1]["prompt_tokens"]
    assert after.input_tokens == before + spent  # every summary call is in the `in` figure
