"""Issue 13 end to end: tool definitions and the system prompt are byte-identical across a whole session.

A piped REPL session with ordinary turns, a tool call, a short "thanks" turn, a headline, an offline
request whose web call is refused, a turn after `/mode`, and memories saved mid-session by the model and
by `/save` (which the next turn retrieves): every request to the main model carries exactly the same `tools` and system message,
so the provider's prefix cache can serve everything before the newest messages.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli

TURNS = [
    # before any file is read: after one, a memory the model saves needs a person (issue 37), and there is none here
    "记住：这个项目的构建用 Java 17 和 Gradle",
    "读一下 README.md，总结一下这个项目",
    "谢谢，今天先到这里",
    "OpenAI 发布新一代推理模型 全面开放",
    "不要联网，直接解释一下 asyncio 的事件循环",
    "/mode ask",  # (/mode plan would plan the next inputs: a different loop)
    "列出项目里的文件",
    "/save 发布窗口是每周四晚上八点",
    "发布窗口是什么时候？",
    "Refactor calc",
]


def _last_user(body: dict[str, Any]) -> str:
    return next(str(m.get("content") or "") for m in reversed(body["messages"]) if m["role"] == "user")


def responder(body: dict[str, Any]) -> Reply | str:
    last = body["messages"][-1]
    if last["role"] != "user":
        return "好的，处理完了。"
    text = _last_user(body)
    if "README" in text:
        return Reply.tool_calls(("read_file", json.dumps({"path": "README.md"})))
    if "记住" in text:
        fact = {"fact": "项目构建工具是 Gradle 8，JDK 版本 17", "scope": "project"}
        return Reply.tool_calls(("save_memory", json.dumps(fact, ensure_ascii=False)))
    if "asyncio" in text:
        return Reply.tool_calls(("web_search", json.dumps({"query": "asyncio event loop"})))
    if "列出" in text:
        return Reply.tool_calls(("list_dir", json.dumps({"path": "."})))
    return "好的。"


def test_tools_and_system_prompt_are_byte_identical_for_the_whole_session(
    project: Path, isolated_home: Path
) -> None:
    (project / "README.md").write_text("# calc\n一个命令行计算器。\n", encoding="utf-8")
    with FakeOpenAIServer(responder=responder) as server:
        env = paicli_env(
            isolated_home,
            server.base_url,
            PAICLI_PROMPT_RUNTIME_DATE="2026-11-30",
            PAICLI_PROMPT_RUNTIME_ZONE="UTC",
        )
        proc = run_paicli([], env, project, stdin="\n".join([*TURNS, "/exit"]) + "\n", timeout=180)
        assert proc.returncode == 0, proc.stderr
        assert server.violations == []
        requests = list(server.requests)

    tasks = [turn for turn in TURNS if not turn.startswith("/")]
    assert len(requests) == len(tasks) + 4  # every task turn, plus the follow-up after each of 4 tool calls
    tools = {json.dumps(r.get("tools"), ensure_ascii=False) for r in requests}
    systems = {json.dumps(r["messages"][0], ensure_ascii=False) for r in requests}
    assert len(tools) == 1, "tool definitions changed between requests"
    assert len(systems) == 1, "the system prompt changed between requests"
    names = [t["function"]["name"] for t in requests[0]["tools"]]
    assert {"web_fetch", "web_search", "save_memory"} <= set(names)

    by_turn = {_last_user(r): r for r in requests}
    saved = (isolated_home / ".paicli" / "memory" / "long_term_memory.json").read_text(encoding="utf-8")
    assert "Gradle 8，JDK 版本 17" in saved  # the memory was written mid-session...
    later = next(text for text in by_turn if text.endswith("发布窗口是什么时候？"))
    assert "## 相关长期记忆" in later and "每周四晚上八点" in later  # a /save reached the next turn
    assert (
        "每周四晚上八点" not in requests[-1]["messages"][0]["content"]
    )  # memories ride in the turn, not the prefix
    refused = [m for r in requests for m in r["messages"] if m["role"] == "tool" and "web_search" in str(m)]
    assert refused and all("[WEB_TOOLS_DISABLED]" in str(m["content"]) for m in refused)
    assert "看起来像标题或摘录" in proc.stdout + proc.stderr  # the headline turn was still told apart
