"""/resume tells the user where the conversation left off."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.session_restore import last_answer
from paicli.llm.messages import Message, ToolCall
from tests.cli.served_session import served_parts
from tests.fakes.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.timeout(60)


def test_last_answer_skips_tool_calls_and_folds_to_one_line() -> None:
    messages = [
        Message.user("看看项目"),
        Message("assistant", "结论：\n\n一切  正常。"),
        Message.user("再跑一下测试"),
        Message("assistant", "", tool_calls=(ToolCall("c1", "execute_command", "{}"),)),
        Message("tool", "ok", tool_call_id="c1"),
    ]
    assert last_answer(messages) == "结论： 一切 正常。"
    assert last_answer([Message.user("只有问题")]) == ""
    assert last_answer([Message("assistant", "很长" * 100)], limit=20).endswith("…")


def test_resuming_a_session_recaps_its_last_answer(tmp_path: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("登录页的 bug 在 auth.py 第 42 行，已经修好。")

        def backend() -> AppBackend:
            return AppBackend(served_parts(tmp_path, server.base_url))

        first = backend()
        first.run("修一下登录页", "react", lambda e: None, CancelToken())
        first.close(5)
        second = backend()
        try:
            [earlier] = second.list_sessions()
            reply = second.resume(earlier.session_id)
        finally:
            second.close(5)
    assert reply.ok
    lines = reply.text.splitlines()  # the conversation is replayed: the input, then the answer
    assert lines[1:] == [
        "── 之前的对话 ──",
        "› 修一下登录页",
        "  登录页的 bug 在 auth.py 第 42 行，已经修好。",
        "── 以上是恢复的对话，可以接着说 ──",
    ]
