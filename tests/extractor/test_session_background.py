"""The extraction call runs behind the session: a parked extraction model never holds up the next turn,
and the fact it saves reaches the request after it lands (AgentAutoFactExtractionTest)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from tests.cli.served_session import command, served_parts

CONVENTION = "我们团队约定所有提交信息都用中文书写"


def _is_extraction(body: dict[str, Any]) -> bool:
    return "=== 用户原文 ===" in str(body["messages"][-1].get("content", ""))


def last_user_text(server: FakeOpenAIServer) -> str:
    """The latest agent request's user text: a background extraction call may arrive after it."""
    agent_requests = [body for body in server.requests if not _is_extraction(body)]
    return str(agent_requests[-1]["messages"][-1]["content"])


def test_a_slow_extraction_does_not_delay_the_next_turn(tmp_path: Path) -> None:
    release = threading.Event()
    parked = threading.Event()

    def responder(body: dict[str, Any]) -> Reply | str:
        if _is_extraction(body):
            parked.set()
            release.wait(100)  # the extraction model is as slow as we like
            return json.dumps({"facts": [{"quote": CONVENTION}]}, ensure_ascii=False)
        return "好的。"

    with FakeOpenAIServer(responder=responder) as server:
        parts = served_parts(tmp_path, server.base_url, auto_extract=True)
        backend = AppBackend(parts)
        try:
            first = backend.run(f"{CONVENTION}。帮我看看 README", "react", lambda e: None, CancelToken())
            assert first.answer == "好的。"
            assert parked.wait(60)  # the extraction call is now in flight and blocked
            second = backend.run("再看看 LICENSE", "react", lambda e: None, CancelToken())
            assert second.answer == "好的。"  # answered while the extraction is still parked
            assert parts.memory.list_all() == []
            notice_queued = threading.Event()
            backend.set_notice_listener(notice_queued.set)
            release.set()
            assert notice_queued.wait(60)  # the notice is queued after the memory write
            assert [e.content for e in parts.memory.list_all()] == [CONVENTION]
            assert any(CONVENTION in line for line in backend.drain_notices())  # the notice names the fact
            backend.run("提交信息用什么语言写？", "react", lambda e: None, CancelToken())
            # the user's own statement is still in the visible history, so the memory is not repeated
            assert "## 相关长期记忆" not in last_user_text(server)
            assert "已清空当前对话历史" in command(backend, "/clear")
            backend.run("提交信息用什么语言写？", "react", lambda e: None, CancelToken())
            last = last_user_text(server)  # memory placement `turn`: the block heads the user message
            assert last.startswith("## 相关长期记忆") and f"[自动提取，待核实] {CONVENTION}" in last
            assert last.endswith("提交信息用什么语言写？")
        finally:
            release.set()
            backend.close(10)
