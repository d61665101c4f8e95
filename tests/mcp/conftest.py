from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

SERVER = Path(__file__).resolve().parents[1] / "fakes" / "mcp_server.py"


def stdio_entry(marker: Path | None = None) -> dict[str, object]:
    args = [str(SERVER)] + (["--marker", str(marker)] if marker else [])
    return {"command": sys.executable, "args": args}


def write_config(home: Path, servers: dict[str, object]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / "mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def http_server() -> Iterator[str]:
    """The test server over streamable HTTP on a loopback port; yields its /mcp URL once it accepts."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(SERVER), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            assert proc.poll() is None, "the HTTP MCP server exited"
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.05)  # polling the port the server opens: the event itself
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
