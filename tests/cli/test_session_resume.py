"""/resume tells the user where the conversation left off."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.compose import build_components
from paicli.cli.replay import COMPACTED_NOTE
from paicli.cli.session_restore import last_answer
from paicli.config.parsed import ParsedConfig
from paicli.config.settings import load_settings
from paicli.llm.messages import Message, ToolCall
from paicli.testing.openai_server import FakeOpenAIServer, Reply, is_summary_request
from paicli.tools.approval import AutoApprover, DenyingApprover
from tests.cli.served_session import command, served_env, served_parts

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
            [earlier] = second.core.restore.sessions()
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


def test_resuming_a_compacted_session_replays_its_last_turns_from_the_ledger(tmp_path: Path) -> None:
    """The view the model continues from holds a summary; the user sees the last turns as they happened,
    the count of the rest, and the refused call marked as not run."""
    summary = "## 当前目标与成功条件\n答题\n## 用户要求与已确认决定\n无\n## 已完成工作及证据\n无\n## 未解决问题与下一步\n无"
    project = tmp_path / "project"
    project.mkdir()
    with FakeOpenAIServer(responder=lambda body: summary if is_summary_request(body) else None) as server:
        server.push(
            "回答一。",
            Reply.tool_calls(("execute_command", json.dumps({"command": "npm publish"}))),
            "没有发布。",
            "回答三。",
        )
        env = served_env(tmp_path, server.base_url, PAICLI_RESUME_REPLAY_TURNS="2")
        settings = load_settings(env, cwd=project)
        first = AppBackend(build_components(settings, ParsedConfig.read(env), DenyingApprover(), yes=False))
        for text in ("问题一", "发布到 npm", "问题三"):
            first.run(text, "react", lambda e: None, CancelToken())
        compacted = command(first, "/compact")
        first.close(5)
        second = AppBackend(build_components(settings, ParsedConfig.read(env), AutoApprover(), yes=True))
        try:
            [earlier] = second.core.restore.sessions()
            reply = second.resume(earlier.session_id)
            view = list(second.agent.history)
        finally:
            second.close(5)
    assert "📦 上下文已压缩" in compacted, compacted
    lines = reply.text.splitlines()
    assert (
        f"（共 3 轮对话，模型上下文 {len(view) - 1} 条消息）" in lines[0]
    )  # the view: minus its system prompt
    assert lines[1:] == [
        "── 之前的对话 ──",
        "（更早的 1 轮未显示，共 3 轮）",
        "› 发布到 npm",
        "  ⏺ execute_command(npm publish)",
        "    ⎿ 🚫 已拒绝，未执行",
        "  没有发布。",
        "› 问题三",
        "  回答三。",
        COMPACTED_NOTE,
        "── 以上是恢复的对话，可以接着说 ──",
    ]
    assert any("[已压缩的历史对话摘要]" in (m.content or "") for m in view)  # the model's view is unchanged
