"""Acceptance: a model sending malformed arguments, an unknown tool, ../ and symlink paths gets clear refusals
from the real runner inside the ReAct loop, and the run finishes with a protocol-valid history."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from paicli.agent.events import AgentEvent
from paicli.cancel import CancelToken
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import ScriptedLLM, tool_call_reply

from .helpers import make_runner, unwrap

react = pytest.importorskip("paicli.agent.react")


class Prompt:
    def build(self, memory_context: str = "") -> str:
        return "system"


def test_bad_calls_get_refusals_and_the_run_finishes(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET", encoding="utf-8")
    os.symlink(outside, project / "escape")
    llm = ScriptedLLM(
        [
            tool_call_reply(
                ("read_file", '{"path": "a.txt"'),
                ("teleport", '{"to": "mars"}'),
                ("read_file", '{"path": "../outside/secret.txt"}'),
                ("read_file", '{"path": "escape/secret.txt"}'),
                ("list_dir", '{"path": 42}'),
            ),
            "我无法读取这些文件。",
        ]
    )
    agent = react.ReactAgent(llm, make_runner(project), Prompt())
    events: list[AgentEvent] = []
    finished = agent.run("读一下这些文件", events.append, CancelToken())
    assert finished.status == "done"
    assert_protocol_valid(agent.history)
    tool_texts = [m.text for m in agent.history if m.role == "tool"]
    assert len(tool_texts) == 5
    assert "参数不是合法的 JSON" in tool_texts[0]
    assert "未知工具: teleport" in tool_texts[1]
    assert "🛡️ 策略拒绝" in tool_texts[2] and "🛡️ 策略拒绝" in tool_texts[3]
    assert all("TOP SECRET" not in text for text in tool_texts)
    assert "目录不存在" in tool_texts[4]  # 42 is coerced to the path "42", which does not exist
    second_request = llm.requests[1].messages
    assert second_request[-1].role == "tool"


def test_cancel_during_a_command_leaves_every_call_answered(project: Path) -> None:
    llm = ScriptedLLM(
        [
            tool_call_reply(
                ("execute_command", '{"command": "echo $$ > pid.txt; sleep 30"}'),
                ("read_file", '{"path": "pid.txt"}'),
            ),
            "好的，命令已经停止。",
        ]
    )
    agent = react.ReactAgent(llm, make_runner(project), Prompt())
    cancel = CancelToken()
    outcome: list[object] = []
    worker = threading.Thread(target=lambda: outcome.append(agent.run("跑一下", lambda _e: None, cancel)))
    worker.start()
    pid_file = project / "pid.txt"
    for _ in range(500):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.01)
    pgid = int(pid_file.read_text().strip())
    cancel.cancel()
    worker.join(timeout=10)
    assert not worker.is_alive()
    for _ in range(200):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.01)
    else:
        pytest.fail("process group survived the cancel")
    assert_protocol_valid(agent.history)
    tool_messages = [m for m in agent.history if m.role == "tool"]
    assert len(tool_messages) == 2
    assert all(unwrap_text(m.text).startswith("用户取消了") for m in tool_messages)
    assert len(llm.requests) == 1
    assert agent.run("还在吗？", lambda _e: None, CancelToken()).status == "done"  # the session goes on
    assert_protocol_valid(llm.requests[-1].messages)


def unwrap_text(content: str) -> str:
    from paicli.tools.base import ToolResult

    return unwrap(ToolResult("x", "x", content))
