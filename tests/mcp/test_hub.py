"""The MCP hub against real servers written with the SDK: stdio and streamable HTTP, failures, cache."""

from __future__ import annotations

import os
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from paicli.cancel import Cancelled, CancelToken
from paicli.mcp.session import McpSession
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from tests.mcp.conftest import stdio_entry, write_config


class Registry:
    def __init__(self) -> None:
        self.tools: dict[str, Any] = {}

    def register(self, tool: Any) -> None:
        self.tools[tool.spec.name] = tool


def _ctx(tmp_path: Path, cancel: CancelToken | None = None) -> ToolContext:
    return ToolContext(tmp_path, PathGuard(tmp_path), cancel or CancelToken(), None, 60.0, None)


def _session(home: Path, registry: Registry, notes: list[str], timeout: float = 60.0) -> McpSession:
    session = McpSession.from_files(home, home, {}, registry, notes.append, trusted=False, timeout=timeout)
    session.start()
    session.wait_cold(60)
    return session


def _call(registry: Registry, name: str, args: dict[str, Any], ctx: ToolContext) -> Any:
    return registry.tools[name].handler(args, ctx)


def test_stdio_server_tools_resources_and_a_cached_second_start(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, {"demo": stdio_entry()})
    registry, notes = Registry(), []
    session = _session(home, registry, notes)
    try:
        assert sorted(registry.tools) == [
            "mcp__demo__add",
            "mcp__demo__crash",
            "mcp__demo__echo",
            "mcp__demo__slow",
        ]
        assert _call(registry, "mcp__demo__add", {"a": 2, "b": 40}, _ctx(tmp_path)).content == "42"
        assert "@demo:demo://readme" in session.index_text()
        expanded = session.expand("look at @demo:demo://readme")
        assert '<resource server="demo" uri="demo://readme">' in expanded
        assert "resource body: hello from MCP" in expanded
        assert "greet" in session.command("prompts demo")
        definitions = [registry.tools[name].spec.definition() for name in sorted(registry.tools)]
    finally:
        session.close()
    # a new session offers the same tools from the cache before the server answers: byte-identical
    again, later_notes = Registry(), []
    McpSession.from_files(home, home, {}, again, later_notes.append, trusted=False)
    assert [again.tools[name].spec.definition() for name in sorted(again.tools)] == definitions
    # the servers' annotations survive the listing and the cache, and are kept as untrusted hints
    add, crash = again.tools["mcp__demo__add"].spec, again.tools["mcp__demo__crash"].spec
    assert add.mcp_hints is not None and add.mcp_hints.read_only is True and add.mcp_hints.open_world is False
    assert not add.read_only and add.external and add.origin == "mcp"
    assert crash.destructive and not again.tools["mcp__demo__echo"].spec.destructive
    assert (home / "mcp" / "cache" / "demo.json").stat().st_mode & 0o777 == 0o600


def test_http_server_with_headers(tmp_path: Path, http_server: str) -> None:
    home = tmp_path / "home"
    write_config(home, {"web": {"url": http_server, "headers": {"X-Test": "${HEADER_VALUE}"}}})
    registry, notes = Registry(), []
    session = McpSession.from_files(home, home, {"HEADER_VALUE": "v"}, registry, notes.append, trusted=False)
    session.start()
    session.wait_cold(60)
    try:
        assert _call(registry, "mcp__web__echo", {"text": "hi"}, _ctx(tmp_path)).content == "echo: hi"
        assert "✅ 已连接" in session.report()
    finally:
        session.close()


def test_a_server_that_cannot_start_is_reported_and_the_others_work(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, {"demo": stdio_entry(), "missing": {"command": str(tmp_path / "no-such-program")}})
    registry, notes = Registry(), []
    session = _session(home, registry, notes)
    try:
        assert any("missing" in note and "不可用" in note for note in notes)
        assert "❌ 失败" in session.report()
        assert _call(registry, "mcp__demo__echo", {"text": "x"}, _ctx(tmp_path)).success
    finally:
        session.close()


def test_crash_gives_an_error_result_and_restart_recovers(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, {"demo": stdio_entry()})
    registry, notes = Registry(), []
    session = _session(home, registry, notes)
    try:
        crashed = _call(registry, "mcp__demo__crash", {}, _ctx(tmp_path))
        assert not crashed.success and "MCP" in crashed.content
        after = _call(registry, "mcp__demo__echo", {"text": "x"}, _ctx(tmp_path))
        assert not after.success
        session.command("restart demo")
        session.hub.wait_settled(["demo"], 60)
        assert _call(registry, "mcp__demo__echo", {"text": "back"}, _ctx(tmp_path)).content == "echo: back"
    finally:
        session.close()


def test_a_hanging_call_times_out_and_a_cancelled_one_stops(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, {"demo": stdio_entry()})
    registry, notes = Registry(), []
    session = _session(home, registry, notes, timeout=1.0)
    try:
        slow = _call(registry, "mcp__demo__slow", {"seconds": 600}, _ctx(tmp_path))
        assert not slow.success and "超时" in slow.content
    finally:
        session.close()
    registry, notes = Registry(), []
    session = _session(home, registry, notes, timeout=600.0)  # only the cancel can end the next call
    try:
        cancel = CancelToken()
        threading.Timer(0.2, cancel.cancel).start()
        with pytest.raises(Cancelled):  # the runner turns it into the standard cancelled result
            _call(registry, "mcp__demo__slow", {"seconds": 600}, _ctx(tmp_path, cancel))
        echo = _call(registry, "mcp__demo__echo", {"text": "还在"}, _ctx(tmp_path))
        assert echo.success  # a cancelled call does not break the server
    finally:
        session.close()


def test_disable_is_persisted_and_close_ends_the_server_process(tmp_path: Path) -> None:
    home = tmp_path / "home"
    marker = tmp_path / "pid"
    write_config(home, {"demo": stdio_entry(marker)})
    registry, notes = Registry(), []
    session = _session(home, registry, notes)
    pid = int(marker.read_text())
    session.command("disable demo")
    assert "mcp__demo__echo" not in registry.tools
    session.close()
    again = McpSession.from_files(home, home, {}, Registry(), [].append, trusted=False)
    assert "已停用" in again.report()
    with pytest.raises(ProcessLookupError):
        for _ in range(600):  # the process may take a moment to be reaped by the SDK's transport
            os.kill(pid, 0)
            threading.Event().wait(0.05)


@pytest.mark.skipif(sys.platform != "linux", reason="the published server is run as a subprocess on Linux")
def test_published_time_server(tmp_path: Path) -> None:
    import shutil

    program = shutil.which("mcp-server-time") or str(Path(sys.executable).parent / "mcp-server-time")
    home = tmp_path / "home"
    write_config(home, {"time": {"command": program, "args": ["--local-timezone", "UTC"]}})
    registry, notes = Registry(), []
    session = _session(home, registry, notes)
    try:
        assert "mcp__time__get_current_time" in registry.tools, notes
        result = _call(registry, "mcp__time__get_current_time", {"timezone": "UTC"}, _ctx(tmp_path))
        assert result.success and "UTC" in result.content
    finally:
        session.close()


def test_a_server_that_never_answers_fails_at_the_connect_deadline(tmp_path: Path) -> None:
    from paicli.mcp.config import load_config
    from paicli.mcp.hub import McpHub

    home = tmp_path / "home"
    write_config(home, {"mute": {"command": sys.executable, "args": ["-c", "import time; time.sleep(600)"]}})
    notes: list[str] = []
    hub = McpHub(
        load_config(home, home, {}, trusted=False).servers, home, notify=notes.append, connect_timeout=1
    )
    hub.start()
    try:
        hub.wait_settled(["mute"], 120)
        assert hub.states["mute"].status == "failed" and "超时" in hub.states["mute"].error
        assert len(notes) == 1
    finally:
        hub.close()


def test_mcp_counts_a_first_connects_tools_and_says_from_when_the_model_has_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    write_config(home, {"demo": stdio_entry()})
    registry, notes = Registry(), []
    session = McpSession.from_files(home, home, {}, registry, notes.append, trusted=False)
    try:
        session.start()
        session.hub.wait_settled(["demo"], 60)  # connected, no cache: nothing registered yet
        assert not registry.tools
        assert "demo [user] ✅ 已连接 · 4 个工具（下一轮起可用）" in session.report()
        assert session.summary() == "MCP 1/1 已连接 · 4 个工具（下一轮起可用）"
        session.turn_boundary()  # the next turn starts: the model has them now
        assert len(registry.tools) == 4
        assert "demo [user] ✅ 已连接 · 4 个工具 · " in session.report()
        assert session.summary() == "MCP 1/1 已连接 · 4 个工具"
    finally:
        session.close()
