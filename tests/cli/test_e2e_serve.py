"""`paicli serve --http` as a real process: its start lines, the key rule, a run, and a session it wrote that
`paicli --resume` continues (the wiring is the point; tests/cli/test_runtime_api.py covers the API itself)."""

from __future__ import annotations

import json
import re
import signal
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from paicli.cli.serve import is_loopback
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import message_text, paicli_env, run_paicli, start_paicli

KEY = "e2e-runtime-key"


def post(port: int, path: str, body: dict[str, Any], key: str | None) -> tuple[int, dict[str, Any]]:
    headers = {"Content-Type": "application/json"}
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}{path}", json.dumps(body).encode(), headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_serve_without_a_key_refuses_to_start(project: Path, isolated_home: Path) -> None:
    proc = run_paicli(
        ["serve", "--http", "--port", "0"], paicli_env(isolated_home, "http://127.0.0.1:9/v1"), project
    )
    assert proc.returncode == 2 and "PAICLI_RUNTIME_API_KEY" in proc.stderr
    assert proc.stdout == ""


def test_serve_runs_a_prompt_in_a_session_that_resume_continues(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer(["记住了：暗号是蓝鲸", "暗号是蓝鲸"]) as model:
        env = paicli_env(isolated_home, model.base_url, PAICLI_RUNTIME_API_KEY=KEY)
        server = start_paicli(["serve", "--http", "--port", "0"], env, project)
        try:
            assert server.stdout is not None
            first = server.stdout.readline()
            found = re.fullmatch(r"✅ PaiCLI Runtime API 已启动: http://127\.0\.0\.1:(\d+)\n", first)
            assert found, first
            assert server.stdout.readline() == "   认证: Authorization: Bearer <PAICLI_RUNTIME_API_KEY>\n"
            port = int(found.group(1))
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/health", timeout=60) as health:
                assert json.loads(health.read())["status"] == "ok"
            assert post(port, "/v1/runs", {"prompt": "暗号是蓝鲸"}, None)[0] == 401
            status, run = post(port, "/v1/runs", {"prompt": "暗号是蓝鲸"}, KEY)
            assert status == 200 and run["status"] == "done" and run["result"] == "记住了：暗号是蓝鲸"
        finally:
            server.send_signal(signal.SIGTERM)
            _, err = server.communicate(timeout=60)
        assert server.returncode == 0, err
        again = run_paicli(
            ["-p", "暗号是什么", "--resume", run["session_id"], "--output-format", "json"], env, project
        )
        assert again.returncode == 0, again.stderr
        assert json.loads(again.stdout.splitlines()[-1])["session_id"] == run["session_id"]
        said = [message_text(m) for m in model.requests[-1]["messages"]]
        assert "暗号是蓝鲸" in said and "记住了：暗号是蓝鲸" in said


@pytest.mark.parametrize(
    ("host", "loopback"),
    [("127.0.0.1", True), ("::1", True), ("localhost", True), ("0.0.0.0", False), ("192.168.1.5", False)],
)
def test_only_loopback_addresses_go_without_the_warning(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_serve_needs_a_way_to_serve(project: Path, isolated_home: Path) -> None:
    proc = run_paicli(["serve"], paicli_env(isolated_home, "http://127.0.0.1:9/v1"), project)
    assert proc.returncode == 2 and "--http" in proc.stderr
