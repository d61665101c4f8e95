"""The REPL shows which memories went into the turn (issue 28), through the real CLI and the loopback server."""

from __future__ import annotations

from pathlib import Path

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.entry import new_fact
from paicli.memory.store import LongTermMemory
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import paicli_env, run_paicli


def test_piped_repl_names_the_injected_memories(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir()
    store = LongTermMemory(home / ".paicli" / "memory", MemoryValues.parse(EnvLookup(environ={})))
    store.store(new_fact("我们项目用的是 Java 21", {"scope": "global"}))
    with FakeOpenAIServer(default_reply="好的。") as server:
        env = paicli_env(home, server.base_url)
        proc = run_paicli([], env, project, stdin="我们项目用哪个 Java 版本？\n/exit\n", timeout=180)
    shown = proc.stdout + proc.stderr
    assert proc.returncode == 0, proc.stderr
    assert "🧠 本轮带入 1 条长期记忆：我们项目用的是 Java 21" in shown
    assert "Ctrl+O" not in shown.split("🧠", 1)[1].splitlines()[0]  # piped: no key to press
    assert any("我们项目用的是 Java 21" in str(m.get("content")) for m in server.requests[-1]["messages"])
