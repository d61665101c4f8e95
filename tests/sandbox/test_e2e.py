"""The real paicli (`-p`, auto mode, no --yes) against the loopback server: what the model asks to run unasked
gives real output, and neither the saved key, the process environment nor PAICLI_API_KEY reach the model or
the ledger."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import ledger_entries, paicli_env, run_paicli

from .conftest import SSH_KEY, require_landlock

E2E_KEY = "sk-e2e-sandbox-secret"


def _tool_texts(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]


def test_unasked_commands_run_confined_in_the_real_cli(repo: Path, home: Path) -> None:
    require_landlock()
    calls = [
        ("execute_command", json.dumps({"command": "cat notes.txt"})),
        ("execute_command", json.dumps({"command": "cat ~/.ssh/id_ed25519"})),
        ("execute_command", json.dumps({"command": "cd /bin/../proc/self && cat environ"})),
        ("execute_command", json.dumps({"command": "git log --oneline"})),
    ]
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(*calls), "看完了")
        env = paicli_env(home, server.base_url, PAICLI_API_KEY=E2E_KEY)
        done = run_paicli(["-p", "看看项目"], env, repo)
        assert done.returncode == 0, done.stderr
        texts = _tool_texts(server.requests[1])
    assert "second line changed" in texts[0]
    assert "initial commit" in texts[3]
    everything = "\n".join(texts) + json.dumps(ledger_entries(home), ensure_ascii=False)
    assert SSH_KEY not in everything
    assert E2E_KEY not in everything
    assert "[HITL]" not in everything  # nothing was refused for want of a human: it ran, confined


def test_off_warns_at_start(repo: Path, home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("好")
        env = paicli_env(home, server.base_url, PAICLI_COMMAND_SANDBOX="off")
        done = run_paicli(["-p", "你好"], env, repo)
    assert done.returncode == 0, done.stderr
    assert "PAICLI_COMMAND_SANDBOX=off" in done.stderr + done.stdout
