"""The process edge: bad or empty input gives clear usage errors, undecodable bytes never poison a session,
and signals or a closed stdout end a run cleanly (no traceback, no orphaned command)."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from paicli.cli.launch_input import scrub_text
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.testing.proc import paicli_env, run_paicli


def run_with_bytes(
    args: list[str], env: dict[str, str], cwd: Path, data: bytes
) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "paicli", *args], env=env, cwd=cwd, input=data, capture_output=True, timeout=60
    )


def test_scrub_text_replaces_lone_surrogates_and_keeps_good_text() -> None:
    assert scrub_text("你好 ok") == "你好 ok"
    assert scrub_text("a\udcffb") == "a\ufffdb"
    assert scrub_text("x\ud800y") == "x?y"
    assert scrub_text("a\udcffb").encode("utf-8")


def test_empty_task_without_stdin_is_a_usage_error(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        proc = run_paicli(["-p", "  "], paicli_env(isolated_home, server.base_url), project)
        assert proc.returncode == 2
        assert proc.stderr.startswith("paicli: -p 需要一个任务描述") and proc.stderr.count("\n") == 1
        assert server.requests == []
    assert not (isolated_home / ".paicli" / "history" / "raw").exists()


def test_empty_task_takes_the_piped_stdin_as_the_task(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("好的")
        proc = run_paicli(
            ["-p", ""], paicli_env(isolated_home, server.base_url), project, stdin="解释一下这个项目\n"
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.strip() == "好的"
        user = server.requests[0]["messages"][-1]["content"]
        assert user.endswith("解释一下这个项目") and "标准输入" not in user
        assert server.violations == []


def test_undecodable_piped_bytes_become_replacement_characters(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("收到")
        proc = run_with_bytes(
            ["-p", "总结"], paicli_env(isolated_home, server.base_url), project, b"abc \xff\xfe def\n"
        )
        assert proc.returncode == 0, proc.stderr.decode()
        user = server.requests[0]["messages"][-1]["content"]
        assert "abc \ufffd\ufffd def" in user
        assert server.violations == []


def test_undecodable_argv_task_is_scrubbed(project: Path, isolated_home: Path) -> None:
    with FakeOpenAIServer() as server:
        server.push("收到")
        proc = subprocess.run(
            [sys.executable, "-m", "paicli", "-p", b"fix \xff it"],  # type: ignore[list-item]
            env=paicli_env(isolated_home, server.base_url),
            cwd=project,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr.decode()
        assert server.requests[0]["messages"][-1]["content"].endswith("fix \ufffd it")


def test_a_bad_line_in_a_piped_session_does_not_break_the_next_task(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        server.push("第一条收到", "第二条收到")
        proc = run_with_bytes(
            [], paicli_env(isolated_home, server.base_url), project, b"hello \xff\xfe there\nsecond task\n"
        )
        assert proc.returncode == 0, proc.stderr.decode()
        out = proc.stdout.decode()
        assert "第一条收到" in out and "第二条收到" in out
        assert "\ufffd" in server.requests[1]["messages"][1]["content"]
        assert server.violations == []


def test_ctrl_c_while_a_piped_session_waits_for_input_exits_130_without_traceback(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        proc = subprocess.Popen(
            [sys.executable, "-m", "paicli"],
            env=paicli_env(isolated_home, server.base_url),
            cwd=project,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write("/help\n")
        proc.stdin.flush()
        assert proc.stdout.readline()  # the session is up
        # A Ctrl+C that lands while /help is still printing only interrupts that command; the next one
        # finds the session waiting for input, which is the case under test.
        for _ in range(60):
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=0.5)
                break
            except subprocess.TimeoutExpired:
                continue
        _, err = proc.communicate(timeout=30)
        assert proc.returncode == 130
        assert "Traceback" not in err and "KeyboardInterrupt" not in err


def test_a_reader_that_stops_early_ends_the_run_without_a_traceback(
    project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        server.push("一个会被分成好几段流式输出的回答")
        proc = subprocess.Popen(
            [sys.executable, "-m", "paicli", "-p", "你好", "--output-format", "stream-json"],
            env=paicli_env(isolated_home, server.base_url),
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert proc.stdout is not None and proc.stderr is not None
        assert proc.stdout.readline().startswith(b"{")
        proc.stdout.close()  # like `| head -1`
        err = proc.stderr.read().decode()
        proc.wait(timeout=30)
        assert proc.returncode == 1
        assert "Traceback" not in err and "BrokenPipeError" not in err
