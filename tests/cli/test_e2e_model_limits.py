"""Issue 40 end to end: paicli as a subprocess against a loopback server with a real local server's limits — a
context size it reports and enforces, a reply cut at max_tokens, a template that drops tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from paicli.testing.openai_server import (
    FakeOpenAIServer,
    Reply,
    count_tokens,
    is_summary_request,
    prompt_text,
)
from paicli.testing.proc import ledger_entries, paicli_env, run_paicli
from paicli.testing.server_limits import ServerLimits

pytestmark = pytest.mark.timeout(300)

N_CTX = 9_000
SUMMARY = (
    "## 当前目标与成功条件\n逐轮记下用户给的材料\n"
    "## 用户要求与已确认决定\n每轮只回答收到\n"
    "## 已完成工作及证据\n前几轮的材料都已收到\n"
    "## 未解决问题与下一步\n等待下一轮材料"
)
MATERIAL = "这是一段需要记下来的背景材料，内容很长，细节很多，请先收好，稍后会用到。"  # ~40 tokens


def answer(body: dict[str, Any]) -> str:
    return SUMMARY if is_summary_request(body) else "收到。"


def turns(count: int, size: int = 20) -> str:
    return "".join(f"第{n}轮材料：{MATERIAL * size}\n" for n in range(count))


def prompt_tokens(requests: list[dict[str, Any]]) -> list[int]:
    return [count_tokens(prompt_text(request)) for request in requests]


def result_of(stdout: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(stdout.strip().splitlines()[-1])
    return found


def test_a_session_outgrowing_a_reported_window_stays_within_it(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer(responder=answer, limits=ServerLimits(n_ctx=N_CTX)) as server:
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli([], env, project, stdin=turns(10))
        again = run_paicli(["-p", "再来一轮", "-c"], env, project)
        sizes = prompt_tokens(server.requests)
        assert done.returncode == 0, done.stderr
        assert again.returncode == 0, again.stderr
        assert server.refusals == 0 and max(sizes) <= N_CTX, sizes
        assert server.gets == ["/v1/models"]  # asked once; the second start read it from the cache
        server.assert_no_violations()
    assert sum(1 for request in server.requests if is_summary_request(request)) >= 1
    cache = json.loads((isolated_home / ".paicli" / "cache" / "context-windows.json").read_text("utf-8"))
    assert [entry["tokens"] for entry in cache.values()] == [N_CTX]


def test_a_window_learned_from_a_refusal_is_kept_for_the_next_start(
    project: Path, isolated_home: Path
) -> None:
    limits = ServerLimits(n_ctx=N_CTX, reported=False)  # the server says it only when it refuses
    with FakeOpenAIServer(responder=answer, limits=limits) as server:
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli([], env, project, stdin=turns(10))
        first = len(server.requests)
        refused = server.refusals
        later = run_paicli([], env, project, stdin=turns(10))
        assert done.returncode == 0 and later.returncode == 0, done.stderr + later.stderr
        assert 1 <= refused <= 2, refused  # the turn's request (and its summary in the shared-prefix form)
        assert "上下文窗口" in done.stderr and "重试一次" in done.stderr
        assert server.refusals == refused  # the next session knew the window from the start
        assert max(prompt_tokens(server.requests[first:])) <= N_CTX
        server.assert_no_violations()
    cache = json.loads((isolated_home / ".paicli" / "cache" / "context-windows.json").read_text("utf-8"))
    assert [entry["tokens"] for entry in cache.values()] == [N_CTX]


def test_an_input_the_server_can_never_take_ends_clearly_and_leaves_no_trace(
    project: Path, isolated_home: Path
) -> None:
    limits = ServerLimits(n_ctx=N_CTX, reported=False)
    big = "请分析下面的材料：\n" + MATERIAL * 300  # ~12K tokens: within a 64K window, not within the server's
    with FakeOpenAIServer(responder=answer, limits=limits) as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_CONTEXT_WINDOW="64000")
        failed = run_paicli(["-p", big, "--output-format", "json"], env, project)
        later = run_paicli(["-p", "你好", "-c"], env, project)
        last = server.requests[-1]
        server.assert_no_violations()
    assert failed.returncode == 1
    result = result_of(failed.stdout)
    assert result["is_error"] is True and "PAICLI_CONTEXT_WINDOW" in result["result"]
    assert "/compact" in result["result"] and "9,000" in result["result"]
    assert later.returncode == 0, later.stderr
    assert MATERIAL not in json.dumps(last, ensure_ascii=False)  # the refused turn stayed out of the session
    assert any(e.get("source") == "context_overflow" for e in ledger_entries(isolated_home))


def test_the_output_cap_is_sent_and_a_cut_answer_is_continued_then_flagged(
    project: Path, isolated_home: Path
) -> None:
    limits = ServerLimits(honour_max_tokens=True)
    with FakeOpenAIServer(default_reply="这是一段很长的回答，" * 20, limits=limits) as server:
        env = paicli_env(
            isolated_home, server.base_url, PAICLI_MAX_OUTPUT_TOKENS="8", PAICLI_OUTPUT_CONTINUATIONS="1"
        )
        done = run_paicli(["-p", "写一段长文", "--output-format", "stream-json"], env, project)
        requests = server.requests
        server.assert_no_violations()
    assert done.returncode == 0, done.stderr
    result = result_of(done.stdout)
    assert result["truncated"] is True and result["is_error"] is False and result["num_turns"] == 2
    assert [request["max_tokens"] for request in requests] == [8, 8]
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    said = [line["text"] for line in lines if line["type"] == "notice"]
    assert said == [
        "✂️ 回答因长度上限被截断，正在自动续写（第 1/1 次）",
        "⚠️ 回答因长度上限被截断，内容不完整（已自动续写 1 次）",
    ]
    assert result["result"] == "这是一段很长的" * 2  # the cut part and its continuation, joined


def test_a_tool_call_cut_by_the_output_limit_is_never_run(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        cut = Reply.tool_calls(("write_file", '{"path": "a.txt", "content": "半'), finish_reason="length")
        server.push(cut, "好的，我分几次写。")
        done = run_paicli(
            ["-p", "写 a.txt", "--yes", "--output-format", "json"],
            paicli_env(isolated_home, server.base_url),
            project,
        )
        told = server.requests[1]["messages"][-1]
        server.assert_no_violations()
    assert done.returncode == 0, done.stderr
    assert not (project / "a.txt").exists()
    assert told["role"] == "tool" and "未执行" in told["content"]
    assert result_of(done.stdout)["truncated"] is False


def test_files_changed_names_what_tools_and_commands_wrote(project: Path, isolated_home: Path) -> None:
    (project / "kept.txt").write_text("不动\n", encoding="utf-8")
    with FakeOpenAIServer() as server:
        server.push(
            Reply.tool_calls(("write_file", '{"path": "notes/a.txt", "content": "一"}')),
            Reply.tool_calls(("execute_command", '{"command": "echo 二 > b.txt && rm kept.txt"}')),
            "都写好了",
            "你好",
        )
        env = paicli_env(isolated_home, server.base_url)
        done = run_paicli(["-p", "写两个文件", "--yes", "--output-format", "json"], env, project)
        text = run_paicli(["-p", "你好"], env, project)
    assert done.returncode == 0, done.stderr
    assert result_of(done.stdout)["files_changed"] == ["b.txt", "kept.txt", "notes/a.txt"]
    assert text.returncode == 0 and "files_changed" not in text.stdout


def test_a_server_that_drops_tools_is_named_and_the_session_goes_on_without_them(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer(default_reply="好的", limits=ServerLimits(drop_tools=True)) as server:
        done = run_paicli([], paicli_env(isolated_home, server.base_url), project, stdin="第一句\n第二句\n")
        requests = server.requests
        server.assert_no_violations()
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("聊天模板") == 1 and "--jinja" in done.stderr
    assert "tools" in requests[0] and "tools" not in requests[1] and requests[1]["max_tokens"] == 1
    assert "tools" not in requests[2] and "## Tools" not in requests[2]["messages"][0]["content"]


def test_the_tools_list_of_the_system_prompt_names_the_requests_tools(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer(default_reply="好") as server:
        done = run_paicli(["-p", "你好"], paicli_env(isolated_home, server.base_url), project)
        first = server.requests[0]
    assert done.returncode == 0, done.stderr
    system = first["messages"][0]["content"]
    listed = system.split("## Tools\n\n", 1)[1].split("\n", 1)[0]
    sent = [tool["function"]["name"] for tool in first["tools"]]
    assert listed.split() == list(sent) and "revert_turn" in sent


def test_model_info_says_what_the_server_reports(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer(limits=ServerLimits(n_ctx=16_384)) as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_CONTEXT_WINDOW="32000")
        done = run_paicli([], env, project, stdin="/model info\n")
    assert done.returncode == 0, done.stderr
    assert "上下文窗口 32,000 tokens（已配置）" in done.stdout
    assert "服务端报告的上下文窗口：16,384 tokens（llama.cpp meta.n_ctx）" in done.stdout
    assert "请把 PAICLI_CONTEXT_WINDOW 设为 16384" in done.stdout
