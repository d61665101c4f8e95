"""paicli -p as a subprocess against the loopback OpenAI-compatible server (issue 2 acceptance)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli


def tool_texts(request: dict[str, object]) -> list[str]:
    messages = request["messages"]
    assert isinstance(messages, list)
    return [str(m.get("content")) for m in messages if m.get("role") == "tool"]


def test_json_task_writes_reads_and_answers(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(
            Reply.tool_calls(("write_file", '{"path": "notes/hello.txt", "content": "你好, paicli\\n"}')),
            Reply.tool_calls(("read_file", '{"path": "notes/hello.txt"}')),
            "文件已写好，内容是：你好, paicli",
        )
        proc = run_paicli(
            ["-p", "写一个文件再读出来", "--yes", "--output-format", "json"],
            paicli_env(isolated_home, server.base_url),
            project,
        )
        assert proc.returncode == 0, proc.stderr
        result = json.loads(proc.stdout.strip().splitlines()[-1])
        assert result["type"] == "result" and result["is_error"] is False
        assert result["result"] == "文件已写好，内容是：你好, paicli"
        assert result["num_turns"] == 3 and result["session_id"].startswith("session-")
        assert result["usage"]["input_tokens"] > 0
        assert (project / "notes" / "hello.txt").read_text(encoding="utf-8") == "你好, paicli\n"
        assert "你好, paicli" in tool_texts(server.requests[2])[-1]
        assert len(server.requests) == 3
        assert server.violations == []


def test_two_server_errors_are_retried(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(Reply.error(500, "upstream down"), Reply.error(503, "still down"), "好了")
        proc = run_paicli(["-p", "在吗"], paicli_env(isolated_home, server.base_url), project)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "好了"
        assert len(server.requests) == 3


def test_unauthorised_key_exits_1_with_a_clear_message(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer(api_key="right-key") as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_API_KEY="wrong-key")
        proc = run_paicli(["-p", "在吗"], env, project)
        assert proc.returncode == 1
        assert "401" in proc.stderr and "Traceback" not in proc.stderr
        assert "wrong-key" not in proc.stderr
        assert "PAICLI_API_KEY（环境变量）" in proc.stderr and "paicli --setup" in proc.stderr
        assert len(server.requests) == 1  # never retried


def test_missing_key_is_a_configuration_error(project: Path, isolated_home: Path) -> None:
    proc = run_paicli(["-p", "在吗"], paicli_env(isolated_home, None), project)
    assert proc.returncode == 2
    lines = (
        proc.stderr.strip().splitlines()
    )  # what to do first; the full list lives in --help (test_e2e_setup)
    assert len(lines) == 2 and "DEEPSEEK_API_KEY" in lines[0] and "PAICLI_BASE_URL" in lines[1]


def test_bad_setting_is_a_configuration_error(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_CONTEXT_WINDOW="12")
        proc = run_paicli(["-p", "在吗"], env, project)
        assert proc.returncode == 2 and "PAICLI_CONTEXT_WINDOW" in proc.stderr
        assert server.requests == []


def test_bad_tool_calls_get_clear_refusals_and_the_run_finishes(project: Path, isolated_home: Path) -> None:
    outside = project.parent / "secret.txt"
    outside.write_text("top secret", encoding="utf-8")
    (project / "link").symlink_to(outside)
    with FakeOpenAIServer() as server:
        server.push(
            Reply.tool_calls(
                ("read_file", '{"path": "README.md"'),  # malformed JSON
                ("launch_rocket", '{"target": "moon"}'),  # unknown tool
                ("read_file", '{"path": "../secret.txt"}'),
                ("read_file", '{"path": "link"}'),
                ("read_file", '{"offset": "one"}'),  # missing path, wrong type
            ),
            "这些调用都被拒绝了",
        )
        proc = run_paicli(
            ["-p", "试试这些工具", "--output-format", "json"],
            paicli_env(isolated_home, server.base_url),
            project,
        )
        assert proc.returncode == 0, proc.stderr
        results = tool_texts(server.requests[1])
        assert len(results) == 5
        assert all("top secret" not in text for text in results)
        assert "launch_rocket" in results[1]
        assert "🛡️" in results[2] and "🛡️" in results[3]
        assert server.violations == []


def test_stream_json_emits_events_then_the_result(project: Path, isolated_home: Path) -> None:
    (project / "a.txt").write_text("alpha\n", encoding="utf-8")
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(("read_file", '{"path": "a.txt"}')), "读到了 alpha")
        proc = run_paicli(
            ["-p", "读 a.txt", "--output-format", "stream-json"],
            paicli_env(isolated_home, server.base_url),
            project,
        )
        assert proc.returncode == 0, proc.stderr
        events = [json.loads(line) for line in proc.stdout.splitlines()]
        types = [e["type"] for e in events]
        assert types[-1] == "result" and events[-1]["result"] == "读到了 alpha"
        assert "tool_start" in types and "tool_end" in types and "text_delta" in types
        assert types.index("tool_start") < types.index("tool_end")


def test_piped_stdin_is_appended_as_context(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("共有 3 行")
        proc = run_paicli(
            ["-p", "数一数行数"],
            paicli_env(isolated_home, server.base_url),
            project,
            stdin="line one\nline two\nline three\n",
        )
        assert proc.returncode == 0, proc.stderr
        user = server.requests[0]["messages"][-1]["content"]
        assert user.startswith("数一数行数") and "line three" in user


def test_max_turns_finalises_with_a_partial_result(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(
            Reply.tool_calls(("list_dir", '{"path": "."}')),
            "已列出目录，其余未完成",
        )
        proc = run_paicli(
            ["-p", "整理项目", "--max-turns", "1"], paicli_env(isolated_home, server.base_url), project
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith("⚠️ 部分完成")
        assert "tools" not in server.requests[1] or not server.requests[1]["tools"]


def test_a_call_needing_approval_is_refused_without_a_human(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push(
            Reply.tool_calls(("execute_command", '{"command": "touch made-by-agent"}')), "没有权限执行"
        )
        proc = run_paicli(["-p", "建个文件"], paicli_env(isolated_home, server.base_url), project)
        assert proc.returncode == 0, proc.stderr
        assert not (project / "made-by-agent").exists()
        assert "[HITL]" in tool_texts(server.requests[1])[0]


def _sleepers(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if marker in cmdline and "paicli" not in cmdline:
                found.append(int(entry.name))
    return found


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_mid_command_kills_the_process_group_and_exits_130(
    project: Path, isolated_home: Path, signum: signal.Signals
) -> None:
    # Unique per run: another run of this suite on the same machine must not be mistaken for ours.
    marker = f"sleep 37.{uuid.uuid4().int % 10**9:09d}"
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(("execute_command", json.dumps({"command": marker}))), "不会用到")
        proc = subprocess.Popen(
            [sys.executable, "-m", "paicli", "-p", "等一会", "--yes"],
            env=paicli_env(isolated_home, server.base_url),
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = (
                time.monotonic() + 90
            )  # a bound for a stuck start, not a speed (2 cores shared by many)
            while not _sleepers(marker) and time.monotonic() < deadline and proc.poll() is None:
                time.sleep(0.05)
            assert _sleepers(marker), "the command never started"
            proc.send_signal(signum)
            _out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
        assert proc.returncode == 130, err
        deadline = (
            time.monotonic() + 60
        )  # the group was signalled; on a loaded machine it can take a while to go
        while _sleepers(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _sleepers(marker) == []
        assert len(server.requests) == 1 and server.violations == []


def test_version_and_help(project: Path, isolated_home: Path) -> None:
    env = paicli_env(isolated_home, None)
    version = run_paicli(["--version"], env, project)
    assert version.returncode == 0 and version.stdout.startswith("paicli ")
    helptext = run_paicli(["--help"], env, project)
    assert helptext.returncode == 0
    for flag in (
        "--print",
        "--output-format",
        "--yes",
        "--max-turns",
        "--model",
        "--continue",
        "--resume",
        "--plan",
        "--team",
        "--version",
    ):
        assert flag in helptext.stdout
    bad = run_paicli(["--output-format", "xml", "-p", "x"], env, project)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_model_flag_selects_the_model_for_the_run(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("好")
        proc = run_paicli(
            ["-p", "在吗", "--model", "other-model"], paicli_env(isolated_home, server.base_url), project
        )
        assert proc.returncode == 0, proc.stderr
        assert server.requests[0]["model"] == "other-model"


def test_an_invalid_memory_knob_is_a_configuration_error(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url, PAICLI_MEMORY_STALE_DAYS="thirty")
        proc = run_paicli(["-p", "在吗"], env, project)
        assert proc.returncode == 2
        assert len(proc.stderr.strip().splitlines()) == 1 and "PAICLI_MEMORY_STALE_DAYS" in proc.stderr
        assert server.requests == []
