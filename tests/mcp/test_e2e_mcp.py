"""MCP end to end: the real paicli process, the loopback model server and real MCP servers (the SDK test server
over stdio and HTTP, and the published mcp-server-time)."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import message_text, paicli_env, run_paicli
from tests.mcp.conftest import stdio_entry, write_config


def _tool_names(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request.get("tools") or []]


def _tool_results(request: dict[str, Any]) -> list[str]:
    return [message_text(m) for m in request["messages"] if m["role"] == "tool"]


def _system(request: dict[str, Any]) -> str:
    return message_text(request["messages"][0])


def _run(
    tmp_path: Path, replies: list[Reply | str], args: list[str], **env: str
) -> tuple[Any, list[dict[str, Any]]]:
    with FakeOpenAIServer(replies) as server:
        env.setdefault("PAICLI_MCP_STARTUP_WAIT_SECONDS", "120")  # a loaded CI machine starts Python slowly
        done = run_paicli(args, paicli_env(tmp_path, server.base_url, **env), tmp_path, timeout=180)
        requests = server.requests
        server.assert_no_violations()
    return done, requests


def test_tool_offered_needs_approval_and_its_result_reaches_the_model(tmp_path: Path) -> None:
    # `add` is annotated readOnlyHint=True by its server: an untrusted claim, so it still needs approval
    write_config(tmp_path / ".paicli", {"demo": stdio_entry()})
    call = Reply.tool_calls(("mcp__demo__add", '{"a": 20, "b": 22}'))
    refused, requests = _run(tmp_path, [call, "好的"], ["-p", "加一下"])
    assert refused.returncode == 0, refused.stderr
    assert "mcp__demo__add" in _tool_names(requests[0])
    assert "未执行" in _tool_results(requests[1])[0]
    approved, requests = _run(tmp_path, [call, "答案是 42"], ["-p", "加一下", "--yes"])
    assert approved.returncode == 0, approved.stderr
    assert "42" in _tool_results(requests[1])[0]
    assert "答案是 42" in approved.stdout


def test_resource_index_only_from_32k_windows_and_mentions_expand(tmp_path: Path) -> None:
    write_config(tmp_path / ".paicli", {"demo": stdio_entry()})
    _, small = _run(tmp_path, ["ok"], ["-p", "hi"], PAICLI_CONTEXT_WINDOW="16000")
    assert "demo://readme" not in _system(small[0])
    _, large = _run(tmp_path, ["ok"], ["-p", "看 @demo:demo://readme"], PAICLI_CONTEXT_WINDOW="32000")
    assert "@demo:demo://readme" in _system(large[0])
    user = [message_text(m) for m in large[0]["messages"] if m["role"] == "user"][-1]
    assert '<resource server="demo" uri="demo://readme">' in user and "hello from MCP" in user


def test_a_crashing_server_does_not_end_the_session(tmp_path: Path) -> None:
    write_config(tmp_path / ".paicli", {"demo": stdio_entry()})
    replies: list[Reply | str] = [
        Reply.tool_calls(("mcp__demo__crash", "{}")),
        Reply.tool_calls(("mcp__demo__echo", '{"text": "again"}')),
        "服务器出了问题，我换个办法",
    ]
    done, requests = _run(tmp_path, replies, ["-p", "试试", "--yes"])
    assert done.returncode == 0, done.stderr
    assert "换个办法" in done.stdout
    assert "mcp__demo__crash" in _tool_names(requests[0])
    assert "MCP 服务器 demo" in _tool_results(requests[1])[0] and "❌" in _tool_results(requests[2])[-1]


def test_http_server_through_the_cli(tmp_path: Path, http_server: str) -> None:
    write_config(tmp_path / ".paicli", {"web": {"url": http_server}})
    replies: list[Reply | str] = [Reply.tool_calls(("mcp__web__echo", '{"text": "via http"}')), "done"]
    done, requests = _run(tmp_path, replies, ["-p", "echo", "--yes"])
    assert done.returncode == 0, done.stderr
    assert "echo: via http" in _tool_results(requests[1])[0]


def test_an_untrusted_projects_server_is_not_started(tmp_path: Path) -> None:
    marker = tmp_path / "started"
    project = tmp_path / "repo"
    (project / ".paicli").mkdir(parents=True)
    (project / ".paicli" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"evil": stdio_entry(marker)}}), encoding="utf-8"
    )
    with FakeOpenAIServer(["ok"]) as server:
        env = paicli_env(tmp_path, server.base_url, PAICLI_MCP_STARTUP_WAIT_SECONDS="120")
        done = run_paicli(["-p", "hi"], env, project, timeout=180)
        tools = _tool_names(server.requests[0])
    assert done.returncode == 0, done.stderr
    assert not marker.exists()
    assert not any(name.startswith("mcp__") for name in tools)
    assert sum("mcp.json" in line for line in done.stderr.splitlines()) == 1


def test_published_time_server_through_the_cli(tmp_path: Path) -> None:
    program = shutil.which("mcp-server-time") or str(Path(sys.executable).parent / "mcp-server-time")
    write_config(tmp_path / ".paicli", {"time": {"command": program, "args": ["--local-timezone", "UTC"]}})
    replies: list[Reply | str] = [
        Reply.tool_calls(("mcp__time__get_current_time", '{"timezone": "UTC"}')),
        "现在的时间已经拿到",
    ]
    done, requests = _run(tmp_path, replies, ["-p", "几点了", "--yes"])
    assert done.returncode == 0, done.stderr
    assert "mcp__time__convert_time" in _tool_names(requests[0])
    assert '"timezone"' in _tool_results(requests[1])[0] and "UTC" in _tool_results(requests[1])[0]


def test_piped_repl_mcp_command_and_a_tool_call(tmp_path: Path) -> None:
    write_config(tmp_path / ".paicli", {"demo": stdio_entry()})
    replies: list[Reply | str] = [Reply.tool_calls(("mcp__demo__echo", '{"text": "piped"}')), "完成"]
    with FakeOpenAIServer(replies) as server:
        env = paicli_env(tmp_path, server.base_url, PAICLI_MCP_STARTUP_WAIT_SECONDS="120")
        done = run_paicli(
            ["--yes"],
            env,
            tmp_path,
            stdin="/mcp\n调用一下\n/context\n/memory\n/mcp logs demo\n/mcp restart\n",
            timeout=180,
        )
        requests = server.requests
    assert done.returncode == 2, done.stderr  # `/mcp restart` without a name is a usage error of the script
    assert "demo [user] ✅ 已连接 · 4 个工具" in done.stdout
    assert "echo: piped" in _tool_results(requests[1])[0]
    assert "  MCP resources 自动索引: 开启" in done.stdout.splitlines()  # spec 10.4, /context
    assert "MCP resource 索引: on" in done.stdout  # spec 1.4, /memory's 上下文策略 line
    assert "不可用" not in done.stdout + done.stderr  # closing the servers at exit is not a failure


@pytest.mark.timeout(
    600
)  # a real REPL and a server start on a loaded 2-core machine; every wait is on an event
def test_interactive_repl_starts_servers_after_the_prompt(tmp_path: Path) -> None:
    import os
    import pty
    import select
    import time

    write_config(tmp_path / ".paicli", {"demo": stdio_entry()})
    with FakeOpenAIServer(["ok"]) as server:
        env = paicli_env(tmp_path, server.base_url, TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(tmp_path)
            os.execvpe(sys.executable, [sys.executable, "-m", "paicli"], env)
        seen = b""

        def expect(text: str, timeout: float = 120) -> bool:
            nonlocal seen
            deadline = time.monotonic() + timeout
            while text.encode() not in seen and time.monotonic() < deadline:
                ready, _, _ = select.select([fd], [], [], 0.2)
                if ready:
                    try:
                        seen += os.read(fd, 65536)
                    except OSError:
                        return False
            return text.encode() in seen

        try:
            assert expect("›"), seen.decode("utf-8", "replace")[-2000:]
            connected = False
            deadline = time.monotonic() + 120
            while not connected and time.monotonic() < deadline:
                seen = b""
                os.write(fd, b"/mcp\r")
                connected = expect("已连接", timeout=5)  # asks again until the background start finished
            assert connected, seen.decode("utf-8", "replace")[-2000:]
        finally:
            os.write(fd, b"/exit\r")
            exited, deadline = False, time.monotonic() + 60
            while not exited and time.monotonic() < deadline:
                exited = os.waitpid(pid, os.WNOHANG)[0] != 0
                if not exited:
                    expect("\x00never", timeout=0.2)  # keep draining the terminal while it exits
            if not exited:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
            os.close(fd)
        assert exited, "the REPL (and its MCP servers) did not end after /exit"
