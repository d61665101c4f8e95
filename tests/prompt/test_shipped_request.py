"""The first request as shipped (every tool a default session registers, the system prompt with the built-in
skills index, task 你好) stays within 3,400 prompt tokens, counted as the loopback server counts usage; the
same figure `python -m evals.bench_startup` prints from a `paicli -p` run. A tool added later has to fit. The
budget was 3,300 until the reference's three browser tools (issue 48, 201 tokens) came; dropping `minimum` from
every schema (bounds are checked on arrival) paid for 66 of them."""

from __future__ import annotations

from pathlib import Path

from paicli.agent.events import AgentEvent
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.compose import build_components
from paicli.config.env import EnvLookup
from paicli.config.parsed import ParsedConfig
from paicli.config.settings import load_settings
from paicli.testing.openai_server import FakeOpenAIServer, count_tokens, prompt_text
from paicli.tools.approval import AutoApprover

BUDGET = 3400


def test_the_first_request_as_shipped_fits_the_budget(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    events: list[AgentEvent] = []
    with FakeOpenAIServer(default_reply="好的，完成。") as server:
        env = EnvLookup(
            environ={
                "HOME": str(home),
                "PAICLI_HOME": str(home / ".paicli"),
                "PAICLI_BASE_URL": server.base_url,
                "PAICLI_MODEL": "fake-model",
                "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
            },
            cwd=project,
        )
        backend = AppBackend(
            build_components(
                load_settings(env, cwd=project), ParsedConfig.read(env), AutoApprover(), yes=True
            )
        )
        try:
            backend.run("你好", "react", events.append, CancelToken())
        finally:
            backend.close()
        first = server.requests[0]
    names = {tool["function"]["name"] for tool in first["tools"]}
    assert {"read_file", "save_memory", "load_skill", "recall", "revert_turn"} <= names  # the shipped set
    assert "## 可用 Skills" in first["messages"][0]["content"]  # with the built-in skills index
    assert count_tokens(prompt_text(first)) <= BUDGET
