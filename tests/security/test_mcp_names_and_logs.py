"""Issue 39 (low items): two MCP servers whose names sanitise alike both stay reachable (a deliberate look-alike
is refused with a notice, never silently swapped in), and a server's stderr reaches its log file redacted."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import pytest

from paicli.cancel import CancelToken
from paicli.mcp.naming import MAX_NAME, distinct_part, server_file_name, tool_name
from paicli.mcp.session import McpSession
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from tests.mcp.conftest import stdio_entry, write_config

CONFIGURED_KEY = "mcp-log-configured-key-5f4e3d2c1b"
SERVER_TOKEN = "svc-own-token-a1b2c3d4e5f6"
READY = "chatty server ready"


class Registry:
    def __init__(self) -> None:
        self.tools: dict[str, Any] = {}

    def register(self, tool: Any) -> None:
        self.tools[tool.spec.name] = tool


@pytest.mark.parametrize(
    ("first", "second"),
    [
        (("ops.tools", "get.item"), ("ops_tools", "get_item")),
        (("a__b", "c"), ("a", "b__c")),
        (("a_", "_b"), ("a", "__b")),
        (("kb", "search docs"), ("kb", "search_docs")),
    ],
)
def test_pairs_that_sanitise_alike_get_distinct_names(
    first: tuple[str, str], second: tuple[str, str]
) -> None:
    one, two = tool_name(*first), tool_name(*second)
    assert one != two and len(one) <= MAX_NAME and len(two) <= MAX_NAME
    assert tool_name(*first) == one  # deterministic: the prefix cache and a resumed history keep the name


def test_clean_names_keep_their_plain_form() -> None:
    assert tool_name("github", "create_issue") == "mcp__github__create_issue"
    assert tool_name("my-srv", "list-items") == "mcp__my-srv__list-items"
    assert server_file_name("ops.tools") != server_file_name("ops_tools")


def _session(home: Path, notes: list[str]) -> tuple[McpSession, Registry]:
    registry = Registry()
    session = McpSession.from_files(
        home, home, {}, registry, notes.append, trusted=False, secrets=[CONFIGURED_KEY]
    )
    session.start()
    session.wait_cold(60)
    session.turn_boundary()
    return session, registry


def _ctx(root: Path) -> ToolContext:
    return ToolContext(root, PathGuard(root), CancelToken(), None, 60.0, None)


@pytest.mark.e2e  # MCP server processes
def test_two_servers_that_sanitise_alike_are_both_reachable(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, {"ops.tools": stdio_entry(), "ops_tools": stdio_entry()})
    session, registry = _session(home, [])
    try:
        echoes = sorted(name for name in registry.tools if name.endswith("__echo"))
        assert len(echoes) == 2 and "mcp__ops_tools__echo" in echoes
        for name in echoes:
            output = registry.tools[name].handler({"text": name}, _ctx(tmp_path))
            assert output.content == f"echo: {name}"
        assert session.tools.count("ops.tools") == session.tools.count("ops_tools") == 4
    finally:
        session.close()


@pytest.mark.e2e  # MCP server processes
def test_a_look_alike_server_is_refused_loudly(tmp_path: Path) -> None:
    home = tmp_path / "home"
    look_alike = distinct_part("ops.tools", server=True)  # the name "ops.tools" sanitises to, spelled out
    write_config(home, {"ops.tools": stdio_entry(), look_alike: stdio_entry()})
    notes: list[str] = []
    session, registry = _session(home, notes)
    try:
        assert session.tools.count("ops.tools") == 4 and session.tools.count(look_alike) == 0
        assert registry.tools["mcp__" + look_alike + "__echo"].spec.server == "ops.tools"
        refusals = [note for note in notes if "同名" in note]
        assert len(refusals) == 4 and all(look_alike in note for note in refusals)
        session.turn_boundary()
        assert len([note for note in notes if "同名" in note]) == 4  # said once, not at every turn
    finally:
        session.close()


def _wait_for(path: Path, text: str, timeout: float = 60) -> str:
    """The log once `text` reached it (the reader thread writes it after the lines before it)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = path.read_text(encoding="utf-8") if path.exists() else ""
        if text in found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"{text!r} never reached {path}")


@pytest.mark.e2e  # MCP server processes
def test_a_servers_stderr_is_redacted_before_it_reaches_the_log(tmp_path: Path) -> None:
    home = tmp_path / "home"
    pem = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIMcpServerKeyBody0123\n-----END EC PRIVATE KEY-----"
    lines = [
        f"config loaded, upstream key {CONFIGURED_KEY}",
        "auth header Authorization: Bearer mcpBearerValue.123456",
        pem,
        "registry login dckr_pat_McpLogDockerToken0123456789",
        READY,
    ]
    entry = {
        "command": sys.executable,
        "args": [*stdio_entry()["args"], "--stderr-env", "SERVICE_TOKEN"]  # type: ignore[list-item]
        + [arg for line in lines for arg in ("--stderr-line", line)],
        "env": {"SERVICE_TOKEN": SERVER_TOKEN},
    }
    write_config(home, {"chatty": entry})
    session, _ = _session(home, [])
    try:
        stored = _wait_for(home / "mcp" / "logs" / f"{server_file_name('chatty')}.log", READY)
        shown = session.command("logs chatty")
    finally:
        session.close()
    for text in (stored, shown):
        assert "config loaded" in text and "SERVICE_TOKEN=" in text
        for secret in (
            CONFIGURED_KEY,
            SERVER_TOKEN,
            "mcpBearerValue",
            "McpServerKeyBody",
            "McpLogDockerToken",
        ):
            assert secret not in text, secret
    assert (home / "mcp" / "logs").stat().st_mode & 0o777 == 0o700
