"""A timed-out or cancelled execute_command keeps its last output lines on screen, with the limit named."""

from __future__ import annotations

import io
import json
import re
import threading
from pathlib import Path

import pytest
from rich.console import Console

from paicli.cancel import CancelToken
from paicli.cli.render import EventRenderer
from paicli.cli.summaries import summarize_result
from paicli.tools.base import ToolFinished, ToolResult
from tests.tools.helpers import make_runner, run

MANY_LINES = "for i in $(seq 1 12); do echo line-$i; done"


def command(cmd: str) -> str:
    return json.dumps({"command": cmd})


def timed_out(project: Path, cmd: str) -> ToolResult:
    runner = make_runner(project, values={"PAICLI_COMMAND_TIMEOUT_SECONDS": "1"})
    result = run(runner, ("execute_command", command(cmd)))[0]
    assert result.timed_out
    return result


@pytest.mark.e2e  # waits out a real one-second command limit
def test_a_timed_out_command_names_its_limit_and_keeps_its_last_lines(project: Path) -> None:
    summary = summarize_result(timed_out(project, f"{MANY_LINES}; sleep 30"))
    assert summary.headline == "⏱️ 超时（1 秒上限）已终止，共 12 行，最后 5 行："
    assert summary.preview[:-1] == tuple(f"line-{n}" for n in range(8, 13)) and summary.tone == "error"
    assert summary.preview[-1] == "（时间上限由 PAICLI_COMMAND_TIMEOUT_SECONDS 设置）"


@pytest.mark.e2e  # waits out a real one-second command limit
def test_a_timed_out_command_without_output_says_so(project: Path) -> None:
    summary = summarize_result(timed_out(project, "sleep 30"))
    assert summary.headline == "⏱️ 超时（1 秒上限）已终止，没有输出"


def test_a_cancelled_command_keeps_what_it_printed(project: Path) -> None:
    (project / "go").mkdir()
    cancel = CancelToken()
    results: list[ToolResult] = []
    cmd = command(f"{MANY_LINES}; touch go/printed; sleep 30")
    runner = make_runner(project)
    worker = threading.Thread(
        target=lambda: results.extend(run(runner, ("execute_command", cmd), cancel=cancel))
    )
    worker.start()
    for _ in range(1000):  # the command's own marker: everything before it was printed
        if (project / "go" / "printed").exists():
            break
        threading.Event().wait(0.01)
    cancel.cancel()
    worker.join(timeout=30)
    summary = summarize_result(results[0])
    assert summary.headline.startswith("⏹️ 已取消并终止了命令，共 12 行")
    ran = re.search(r"已运行 (\d+\.\d) 秒", results[0].content)  # how long it ran: it may have changed things
    assert ran is not None and float(ran.group(1)) > 0 and "可能已经改动了文件" in results[0].content
    assert summary.preview[-1] == "line-12"  # no time limit named: none was hit


@pytest.mark.e2e  # waits out a real one-second command limit
def test_the_renderer_prints_the_kept_lines_under_the_headline(project: Path) -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=False)
    renderer = EventRenderer(console, console)
    renderer(ToolFinished(timed_out(project, f"{MANY_LINES}; sleep 30")))
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("  ⎿ ⏱️ 超时（1 秒上限")
    assert [line.strip() for line in lines[1:6]] == [f"line-{n}" for n in range(8, 13)]
    assert "PAICLI_COMMAND_TIMEOUT_SECONDS" in lines[6]
