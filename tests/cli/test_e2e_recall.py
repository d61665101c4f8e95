"""Issue 38 end to end: `recall` brings back what compaction removed, by the id a placeholder carries (same
session, piped REPL) and by query over this project's earlier sessions (`-p`), through the loopback server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from paicli.testing.openai_server import FakeOpenAIServer, Reply, is_summary_request
from paicli.testing.proc import paicli_env, run_paicli

WINDOW = 16_000
SUMMARY = (
    "## 当前目标与成功条件\n逐轮读取 notes 下的文件\n"
    "## 用户要求与已确认决定\n每轮读一个文件\n"
    "## 已完成工作及证据\n已读取前几轮的文件\n"
    "## 未解决问题与下一步\n继续"
)
_CLEARED_ID = re.compile(r"^\[已清理的旧工具结果\] recall:(r\d+)")


def last_user(body: dict[str, Any]) -> str:
    return next(str(m["content"]) for m in reversed(body["messages"]) if m["role"] == "user")


def tool_results(body: dict[str, Any]) -> dict[str, str]:
    return {str(m["tool_call_id"]): str(m["content"]) for m in body["messages"] if m["role"] == "tool"}


def cleared_ids(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(tool_call_id, recall id) of every cleared result in a request, oldest first."""
    found = []
    for message in body["messages"]:
        match = _CLEARED_ID.match(str(message.get("content") or "")) if message["role"] == "tool" else None
        if match:
            found.append((str(message["tool_call_id"]), match.group(1)))
    return found


def reading_responder(body: dict[str, Any]) -> Reply | str:
    if is_summary_request(body):
        return SUMMARY
    messages = body["messages"]
    turn = last_user(body)
    if "recall" in turn:
        if messages[-1]["role"] == "user":
            recall_id = cleared_ids(body)[0][1]
            return Reply.tool_calls(("recall", json.dumps({"id": recall_id})))
        return "找回来了。"
    number = turn.split("第", 1)[1].split("轮", 1)[0]
    if messages[-1]["role"] == "user":
        return Reply.tool_calls(("read_file", json.dumps({"path": f"notes/f{number}.txt"})))
    return f"第{number}轮读完了。"


def test_a_cleared_result_comes_back_verbatim_by_the_id_its_placeholder_carries(
    project: Path, isolated_home: Path
) -> None:
    (project / "notes").mkdir()
    for i in range(1, 10):
        lines = "".join(f"第{i}份笔记 line {n}: value-{i}-{n} with some padding words\n" for n in range(60))
        (project / "notes" / f"f{i}.txt").write_text(lines, encoding="utf-8")
    turns = [f"第{i}轮：请读取 notes/f{i}.txt" for i in range(1, 10)]
    script = "\n".join([*turns, "请用 recall 取回最早被清理的那份工具结果", "/exit"]) + "\n"
    with FakeOpenAIServer(responder=reading_responder) as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_CONTEXT_WINDOW=str(WINDOW))
        proc = run_paicli([], env, project, stdin=script, timeout=180)
        requests = server.requests
        assert server.violations == []
    assert proc.returncode == 0, proc.stderr[-3000:]

    asking = next(r for r in requests if "recall" in last_user(r) and r["messages"][-1]["role"] == "user")
    call_id, recall_id = cleared_ids(asking)[0]
    original = next(tool_results(r)[call_id] for r in requests if call_id in tool_results(r))
    assert original.startswith('<tool_result tool="read_file"') and "value-" in original
    inner = original[original.index("\n") + 1 : -len("\n</tool_result>")]
    answered = requests[-1]
    recall_result = next(m for m in answered["messages"] if m["role"] == "tool" and "recall " in m["content"])
    text = recall_result["content"]
    assert text.startswith('<tool_result tool="recall" trust="untrusted-data">')
    assert f"--- #{recall_id[1:]} 工具结果（read_file） ---\n{inner}\n" in text  # the exact original text
    assert text.count("<tool_result") == 1  # framed once, as untrusted data like any tool result
    recall_tools = [t for t in requests[0]["tools"] if t["function"]["name"] == "recall"]
    assert len(recall_tools) == 1  # present from the first request on
    assert all(r["tools"] == requests[0]["tools"] for r in requests if not is_summary_request(r))


def test_an_earlier_session_of_this_project_is_found_by_query(
    project: Path, isolated_home: Path, tmp_path: Path
) -> None:
    elsewhere = tmp_path / "other-project"
    elsewhere.mkdir()

    def responder(body: dict[str, Any]) -> Reply | str:
        if "发版分支" in last_user(body) and "叫什么" in last_user(body):
            if body["messages"][-1]["role"] == "user":
                return Reply.tool_calls(("recall", json.dumps({"query": "发版分支"})))
            return "上次说的发版分支是 release-hydra-7。"
        return "好的，记下了。"

    with FakeOpenAIServer(responder=responder) as server:
        env = paicli_env(isolated_home, server.base_url)
        other = run_paicli(["-p", "这个项目的发版分支叫 other-branch-9"], env, elsewhere)
        first = run_paicli(
            ["-p", "我们的发版分支叫 release-hydra-7，staging 数据库在 db-7.internal"], env, project
        )
        asked = run_paicli(["-p", "上次说的发版分支叫什么？"], env, project)
        requests = server.requests
        assert server.violations == []
    assert other.returncode == first.returncode == asked.returncode == 0, asked.stderr
    result = tool_results(requests[-1])
    text = next(iter(result.values()))
    assert text.startswith('<tool_result tool="recall" trust="untrusted-data">')
    assert "release-hydra-7" in text and "db-7.internal" in text
    assert "other-branch-9" not in text  # another project's sessions are not searched
    found_id = re.search(r"id (session-[0-9A-Za-z-]+:r\d+) · ", text)
    assert found_id, text
    assert "用户" in text  # the user's own words come back marked as the user's
    assert "release-hydra-7" in asked.stdout
