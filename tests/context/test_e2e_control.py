"""Issue 38 end to end: PAICLI_COMPACTION_TRIGGER moves when summaries start (piped REPL); with
PAICLI_AUTO_COMPACT=off nothing is cleared or summarised automatically and a turn whose request would not fit
stops with a message naming /compact, sending nothing over the window (-p and piped REPL)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from paicli.context.clearing import CLEARED_PREFIX
from paicli.testing.openai_server import (
    FakeOpenAIServer,
    Reply,
    count_tokens,
    is_summary_request,
    prompt_text,
)
from paicli.testing.proc import paicli_env, run_paicli

SUMMARY = (
    "## 当前目标与成功条件\n逐轮核对数据量\n## 用户要求与已确认决定\n每轮说明变化\n"
    "## 已完成工作及证据\n已核对前面各批\n## 未解决问题与下一步\n继续核对"
)


def chatty(body: dict[str, Any]) -> Reply | str:
    if is_summary_request(body):
        return SUMMARY
    return "这一批的数据量已经核对过了，和上一批相比变化不大，原因也整理好了。" * 14


def turns(count: int) -> list[str]:
    return [f"第 {i} 轮：请核对这一批的数据量并说明变化" for i in range(1, count + 1)]


def piped(
    project: Path, home: Path, lines: list[str], respond: Any, window: int, **extra: str
) -> tuple[Any, list[dict[str, Any]]]:
    with FakeOpenAIServer(responder=respond) as server:
        env = paicli_env(home, server.base_url, PAICLI_CONTEXT_WINDOW=str(window), **extra)
        proc = run_paicli([], env, project, stdin="\n".join([*lines, "/exit"]) + "\n", timeout=240)
        requests = server.requests
        server.assert_no_violations()
    return proc, requests


def test_the_trigger_setting_moves_when_summaries_start(project: Path, isolated_home: Path) -> None:
    proc, requests = piped(project, isolated_home, turns(9), chatty, 16_000)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not any(is_summary_request(r) for r in requests)  # the default trigger is not reached
    assert "/compact show" not in proc.stdout + proc.stderr
    proc, requests = piped(project, isolated_home, turns(9), chatty, 16_000, PAICLI_COMPACTION_TRIGGER="0.3")
    assert proc.returncode == 0, proc.stderr[-2000:]
    summaries = [i for i, r in enumerate(requests) if is_summary_request(r)]
    assert summaries
    later = json.dumps(requests[summaries[0] + 1]["messages"], ensure_ascii=False)
    assert "[已压缩的历史对话摘要]" in later
    output = proc.stdout + proc.stderr
    assert "正在自动摘要较早的对话" in output and "/compact show" in output


def reader(body: dict[str, Any]) -> Reply | str:
    """One file per round, for as long as the loop lets it run."""
    if is_summary_request(body):
        return SUMMARY
    done = sum(1 for m in body["messages"] if m["role"] == "tool")
    return Reply.tool_calls(("read_file", json.dumps({"path": f"data/d{done % 20}.txt"})))


def write_data(project: Path) -> None:
    (project / "data").mkdir()
    for n in range(20):
        lines = "".join(f"record {n}-{k}: value={k * 7} status=ok\n" for k in range(60))
        (project / "data" / f"d{n}.txt").write_text(lines, encoding="utf-8")


def assert_nothing_automatic(requests: list[dict[str, Any]], window: int) -> None:
    assert not any(is_summary_request(r) for r in requests)
    sent = [
        json.dumps(r["messages"][1:], ensure_ascii=False) for r in requests
    ]  # the system prompt explains it
    assert not any(CLEARED_PREFIX in text for text in sent)
    sizes = [count_tokens(prompt_text(r)) for r in requests]
    assert max(sizes) <= window, sizes


def test_print_mode_with_auto_compaction_off_stops_before_the_window(
    project: Path, isolated_home: Path
) -> None:
    write_data(project)
    with FakeOpenAIServer(responder=reader) as server:
        env = paicli_env(
            isolated_home, server.base_url, PAICLI_CONTEXT_WINDOW="8000", PAICLI_AUTO_COMPACT="off"
        )
        proc = run_paicli(["-p", "把 data 目录下的文件逐个读一遍", "--yes"], env, project, timeout=180)
        requests = server.requests
        server.assert_no_violations()
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert "/compact" in proc.stderr and "PAICLI_AUTO_COMPACT=off" in proc.stderr
    assert len(requests) >= 3  # it ran until the window was full
    assert_nothing_automatic(requests, 8_000)


def test_piped_session_with_auto_compaction_off_goes_on_after_compact(
    project: Path, isolated_home: Path
) -> None:
    lines = [*turns(14), "/compact", "第 15 轮：压缩以后继续核对"]
    proc, requests = piped(project, isolated_home, lines, chatty, 8_000, PAICLI_AUTO_COMPACT="off")
    output = proc.stdout + proc.stderr
    assert proc.returncode == 1  # a turn stopped
    stopped = output.count("所以这次没有发送")
    assert stopped >= 1 and "/compact" in output
    manual = [i for i, r in enumerate(requests) if is_summary_request(r)]
    assert len(manual) == 1  # only the one the user asked for
    assert_nothing_automatic(requests[: manual[0]], 8_000)
    last = json.dumps(requests[-1]["messages"], ensure_ascii=False)
    assert "[已压缩的历史对话摘要]" in last and "第 15 轮：压缩以后继续核对" in last
    answered = re.findall(
        r"第 (\d+) 轮", " ".join(json.dumps(r["messages"][-1], ensure_ascii=False) for r in requests)
    )
    assert "15" in answered
