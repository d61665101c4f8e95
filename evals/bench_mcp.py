"""MCP cost: prefix reuse with three MCP servers configured, and REPL start-to-prompt with and without them.

1. Prefix reuse: bench_prefix's mixed session (tool calls, a short turn, a headline, an offline request,
   `/mode plan`, memories saved mid-session) plus MCP tool calls, with three stdio servers (the SDK test server)
   configured and their listings cached by an earlier session. Per request: cached / previous request's prompt;
   the minimum over requests that follow a plain append, and how many requests changed tools or system prompt.
2. REPL start to prompt: a real `paicli` in a pseudo-terminal, from exec to the prompt mark `›`, interleaved
   pairs without and with the three servers (the servers start in the background and never hold the prompt).

Run from the repository root: python -m evals.bench_mcp [--runs 7]
Targets: minimum reuse >= 0.95; start-to-prompt with servers <= 1.1x without.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import select
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from evals.bench_prefix import MIXED_TURNS, TOPICS, _mixed_responder, drive
from paicli.cli.app_backend import AppBackend
from paicli.cli.compose import build_components
from paicli.config.env import EnvLookup
from paicli.config.parsed import ParsedConfig
from paicli.config.settings import load_settings
from paicli.memory.entry import new_fact
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.tools.approval import AutoApprover

SERVER = Path(__file__).resolve().parents[1] / "tests" / "fakes" / "mcp_server.py"
SERVERS = ("docs", "tracker", "calc")
MCP_TURNS = ["用 MCP 算一下 20 加 22", *MIXED_TURNS[:6], "再用 MCP 算一下 1 加 2", *MIXED_TURNS[6:]]


def _write_servers(home: Path) -> None:
    servers = {name: {"command": sys.executable, "args": [str(SERVER)]} for name in SERVERS}
    (home / ".paicli").mkdir(parents=True, exist_ok=True)
    (home / ".paicli" / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def _responder(body: dict[str, Any]) -> Reply | str:
    last = body["messages"][-1]
    if last["role"] == "user" and "MCP" in str(last["content"]):
        return Reply.tool_calls(("mcp__calc__add", json.dumps({"a": 20, "b": 22})))
    return _mixed_responder(body)


def _environ(home: Path, base_url: str) -> dict[str, str]:
    return {
        "HOME": str(home),
        "PAICLI_HOME": str(home / ".paicli"),
        "PAICLI_BASE_URL": base_url,
        "PAICLI_MODEL": "fake-model",
        "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
        "PAICLI_PROMPT_RUNTIME_DATE": "2026-11-30",
        "PAICLI_PROMPT_RUNTIME_ZONE": "UTC",
        "PAICLI_LOCAL_PORTS": "off",
    }


def _session(home: Path, project: Path, base_url: str, turns: list[str]) -> None:
    env = EnvLookup(environ=_environ(home, base_url), cwd=project)
    parts = build_components(
        load_settings(env, cwd=project), ParsedConfig.read(env), AutoApprover(), yes=True
    )
    for _, facts in TOPICS:
        for fact in facts:
            parts.memory.store.store(
                new_fact(fact, {"source": "fact", "scope": "global"}, parts.memory.clock)
            )
    if parts.mcp is not None:
        parts.mcp.wait_cold(60)
    drive(AppBackend(parts), turns)


def prefix_reuse(root: Path) -> tuple[float, int, int]:
    home, project = root / "home-mcp", root / "project-mcp"
    project.mkdir(parents=True)
    (project / "README.md").write_text("# calc\n" + "一个命令行计算器。\n" * 20, encoding="utf-8")
    _write_servers(home)
    with FakeOpenAIServer(responder=_responder, cache_emulation=True) as warm:
        _session(home, project, warm.base_url, ["你好"])  # an earlier session: the listings are now cached
    with FakeOpenAIServer(responder=_responder, cache_emulation=True) as server:
        _session(home, project, server.base_url, MCP_TURNS)
        bodies, usages = list(server.requests), server.usages
    ratios: list[float] = []
    changed = 0
    for i, body in enumerate(bodies):
        if body.get("tools") != bodies[0].get("tools") or body["messages"][0] != bodies[0]["messages"][0]:
            changed += 1
        if i == 0:
            continue
        previous = bodies[i - 1]
        append = body.get("tools") == previous.get("tools") and (
            body["messages"][: len(previous["messages"])] == previous["messages"]
        )
        cached = (usages[i].get("prompt_tokens_details") or {}).get("cached_tokens", 0)
        if append:
            ratios.append(cached / usages[i - 1]["prompt_tokens"])
    mcp_tools = sum(
        1 for tool in bodies[0].get("tools") or [] if tool["function"]["name"].startswith("mcp__")
    )
    print(
        f"prefix reuse with {len(SERVERS)} MCP servers ({mcp_tools} MCP tools, {len(bodies)} requests): "
        f"after a plain append median {statistics.median(ratios):.3f} min {min(ratios):.3f}; "
        f"requests whose tools or system prompt changed: {changed}"
    )
    return min(ratios), changed, mcp_tools


def _to_prompt(home: Path, project: Path, base_url: str) -> float:
    import pty

    env = dict(os.environ, **_environ(home, base_url), TERM="xterm-256color", PROMPT_TOOLKIT_NO_CPR="1")
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(project)
        os.execvpe(sys.executable, [sys.executable, "-m", "paicli"], env)
    seen = b""
    elapsed = float("nan")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                seen += os.read(fd, 65536)
            except OSError:
                break
            if "›".encode() in seen:
                elapsed = time.perf_counter() - start
                break
    os.write(fd, b"/exit\r")
    end = time.monotonic() + 60
    while time.monotonic() < end:
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            with contextlib.suppress(OSError):
                os.read(fd, 65536)
    os.close(fd)
    return elapsed


def start_to_prompt(root: Path, runs: int) -> float:
    plain_home, mcp_home, project = root / "home-plain", root / "home-servers", root / "project-repl"
    project.mkdir(parents=True)
    _write_servers(mcp_home)
    with FakeOpenAIServer(responder=_responder) as server:
        _session(mcp_home, project, server.base_url, ["你好"])  # warm listing cache, as after a first run
        _to_prompt(plain_home, project, server.base_url)  # warm bytecode
        plain, with_servers = [], []
        for _ in range(runs):
            plain.append(_to_prompt(plain_home, project, server.base_url))
            with_servers.append(_to_prompt(mcp_home, project, server.base_url))
    ratio = statistics.median(with_servers) / statistics.median(plain)
    print(
        f"REPL start to prompt, median of {runs} interleaved pairs: without MCP "
        f"{statistics.median(plain) * 1000:.0f} ms, with {len(SERVERS)} servers "
        f"{statistics.median(with_servers) * 1000:.0f} ms ({ratio:.2f}x)"
    )
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        minimum, changed, _ = prefix_reuse(Path(tmp))
        ratio = start_to_prompt(Path(tmp), args.runs)
    print(f"target: minimum reuse >= 0.95 -> {'met' if minimum >= 0.95 and changed == 0 else 'NOT met'}")
    print(f"target: start to prompt <= 1.1x without servers -> {'met' if ratio <= 1.1 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
