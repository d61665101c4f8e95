"""The ReAct loop with the real tool runner: cancelling mid-command kills the process group, history stays valid."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

from paicli.agent.events import AgentEvent, ToolStarted
from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.config.env import EnvLookup
from paicli.tools.approval import ApprovalState, AutoApprover
from paicli.tools.runner import ToolRunner
from tests.agent.fake_tools import StaticPrompt
from tests.fakes.protocol import assert_protocol_valid
from tests.fakes.scripted_llm import ScriptedLLM, tool_call_reply


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _find_pgid(marker: str) -> int | None:
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in cmdline:
            return os.getpgid(int(entry.name))
    return None


def test_cancel_mid_command_kills_the_group_and_the_next_request_is_valid(project: Path) -> None:
    marker = "sleep 33.125"
    env = EnvLookup(environ={"HOME": str(project)})
    runner = ToolRunner(project, AutoApprover(), None, None, env, None, ApprovalState(yes=True))
    llm = ScriptedLLM([
        tool_call_reply(("execute_command", json.dumps({"command": marker})), ("list_dir", '{"path": "."}')),
        "好的，已停止。",
    ])
    agent = ReactAgent(llm, runner, StaticPrompt())
    cancel = CancelToken()
    started = threading.Event()

    def sink(event: AgentEvent) -> None:
        if isinstance(event, ToolStarted) and event.name == "execute_command":
            started.set()

    pgids: list[int] = []

    def canceller() -> None:
        started.wait(10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            pgid = _find_pgid(marker)
            if pgid is not None:
                pgids.append(pgid)
                break
            time.sleep(0.02)
        cancel.cancel()

    thread = threading.Thread(target=canceller)
    thread.start()
    finished = agent.run("跑一个很久的命令", sink, cancel)
    thread.join()
    assert finished.status == "cancelled"
    assert pgids, "the command never started"
    deadline = time.monotonic() + 5
    while _group_alive(pgids[0]) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _group_alive(pgids[0])
    assert_protocol_valid(agent.history)
    tool_messages = [m for m in agent.history if m.role == "tool"]
    assert len(tool_messages) == 2 and all("用户取消" in (m.content or "") for m in tool_messages)
    assert agent.run("还在吗？", lambda e: None, CancelToken()).status == "done"
    assert_protocol_valid(llm.requests[-1].messages)
