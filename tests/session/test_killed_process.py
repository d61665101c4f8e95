"""A process killed with SIGKILL in the middle of a tool resumes into a protocol-valid request."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from paicli.llm.messages import Message
from paicli.session.opener import LedgerOpener
from paicli.session.resume import INTERRUPTED_RESULT, load_view

from .helpers import valid_protocol

CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from paicli.llm.messages import Message, ToolCall
    from paicli.session.ledger import ConversationLedger

    ledger = ConversationLedger.create(Path(sys.argv[1]), Path(sys.argv[2]), "glm-5.1", "glm", "0.1.0")
    ledger.append_message("react", "agent", "session_attach", Message.system("系统提示"))
    ledger.append_message("react", "agent", "user_input", Message.user("跑一下测试"))
    call = ToolCall("call-1", "execute_command", '{"command":"pytest"}')
    ledger.append_message("react", "agent", "llm_response", Message.assistant("我来跑测试", (call,), "先跑"))
    print(ledger.path, flush=True)
    time.sleep(120)  # the tool is running when the process is killed
    """
)


@pytest.mark.e2e  # a process of its own, SIGKILLed
@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_sigkill_mid_tool_resumes_into_a_valid_request(tmp_path: Path, project: Path) -> None:
    home = tmp_path / "home"
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(home), str(project)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert child.stdout is not None
        path = Path(child.stdout.readline().strip())
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL

    result = load_view(path)
    assert [m.role for m in result.messages] == ["user", "assistant", "tool"]
    assert result.messages[-1] == Message.tool("call-1", INTERRUPTED_RESULT)
    request = [Message.system("新的系统提示"), *result.messages, Message.user("继续")]
    assert valid_protocol(request)

    ledger, resumed = LedgerOpener(()).resume(path, model="glm-5.1", provider="glm", version="0.1.0")
    assert resumed.messages == result.messages
    ledger.append_message("react", "agent", "user_input", Message.user("继续"))
    again = load_view(path)
    assert again.messages == [*result.messages, Message.user("继续")]
    assert again.repaired == 0  # the repaired view was checkpointed when the session was resumed
