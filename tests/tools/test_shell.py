"""execute_command: capture (spec 2.2), exit codes, timeout and cancel kill the whole process group."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest

from paicli.agent.events import AgentEvent, ToolFinished, ToolStarted
from paicli.cancel import CancelToken
from paicli.tools.base import ToolResult
from paicli.tools.shell import OVERFLOW_NOTE, TRUNCATED_NOTE

from .helpers import FakeOffloader, make_runner, run, run_one, unwrap


def command(cmd: str) -> str:
    return json.dumps({"command": cmd})


def test_output_is_merged_and_the_exit_code_reported(project: Path) -> None:
    result, text = run_one(make_runner(project), "execute_command", command("echo out; echo err >&2; exit 3"))
    assert not result.success
    assert "out" in text and "err" in text
    assert text.endswith("退出码: 3")
    assert result.metadata["exit_code"] == 3


def test_runs_in_the_project_root(project: Path) -> None:
    result, text = run_one(make_runner(project), "execute_command", command("pwd"))
    assert result.success and text.splitlines()[0] == os.path.realpath(project)


def test_binary_output_is_decoded_with_replacement(project: Path) -> None:
    result, text = run_one(make_runner(project), "execute_command", command(r"printf 'a\xff\xfeb\000c\n'"))
    assert result.success and "a\ufffd\ufffdbc" in text


def test_terminal_escape_sequences_are_dropped(project: Path) -> None:
    result, text = run_one(
        make_runner(project), "execute_command", command(r"printf '\033[1;31mred\033[0m plain\n'")
    )
    assert result.success and text.splitlines()[0] == "red plain"


def test_small_output_is_not_offloaded(project: Path) -> None:
    offloader = FakeOffloader()
    run_one(make_runner(project, offloader=offloader), "execute_command", command("seq 1 100"))
    assert offloader.offloaded == []
    assert offloader.checked == [("execute_command", command("seq 1 100"))]  # the general L1 check still runs


def test_large_output_goes_to_the_offloader_with_an_8000_head(project: Path) -> None:
    offloader = FakeOffloader()
    result, text = run_one(
        make_runner(project, offloader=offloader), "execute_command", command("seq 1 20000")
    )
    assert result.success
    [(tool, saved, head)] = offloader.offloaded
    assert (tool, head) == ("execute_command", 8000)
    assert saved.splitlines() == [str(i) for i in range(1, 20001)]
    assert text.startswith("[offloaded execute_command")
    assert TRUNCATED_NOTE not in text
    assert offloader.checked == []  # an offload notice is never offloaded again


def test_capture_overflow_is_noted_in_the_saved_text(project: Path) -> None:
    offloader = FakeOffloader()
    run_one(
        make_runner(project, offloader=offloader),
        "execute_command",
        command("head -c 2100000 /dev/zero | tr '\\0' a"),
    )
    [(_, saved, _)] = offloader.offloaded
    assert saved.endswith(OVERFLOW_NOTE)
    assert len(saved) == 2_000_000 + len(OVERFLOW_NOTE)


@pytest.mark.parametrize("offloader", [None, FakeOffloader(enabled=False)])
def test_without_offload_output_is_cut_at_8000(project: Path, offloader: FakeOffloader | None) -> None:
    result, text = run_one(
        make_runner(project, offloader=offloader), "execute_command", command("seq 1 20000")
    )
    assert result.success
    body = text.rsplit("\n退出码", 1)[0]
    assert body.endswith(TRUNCATED_NOTE)
    assert len(body) == 8000 + len(TRUNCATED_NOTE)


def test_large_command_output_is_recoverable_instead_of_truncated(project: Path) -> None:
    """Port of ToolResultOffloaderTest.largeCommandOutputIsRecoverableInsteadOfTruncated with the real offloader."""
    offload = pytest.importorskip("paicli.context.offload")

    offloader = offload.ToolResultOffloader(project)
    runner = make_runner(project, offloader=offloader)
    result, text = run_one(runner, "execute_command", command("seq 1 20000"))
    assert result.success
    assert "[工具输出过大，完整内容已卸载到会话文件]" in text
    assert "输出已截断" not in text
    saved = next((project / ".paicli" / "tool-outputs").glob("session-*/*-execute_command.txt"))
    assert saved.read_text(encoding="utf-8").splitlines()[:20000] == [str(i) for i in range(1, 20001)]
    relative = saved.relative_to(project).as_posix()
    _, back = run_one(runner, "read_file", json.dumps({"path": relative, "offset": 15000, "limit": 2}))
    assert "15000 | 15000" in back and "15001 | 15001" in back


@pytest.mark.e2e  # waits out a real command limit
def test_timeout_kills_the_process_group(project: Path) -> None:
    runner = make_runner(project, values={"PAICLI_COMMAND_TIMEOUT_SECONDS": "1"})
    result, text = run_one(runner, "execute_command", command("echo $$ > pid.txt; echo started; sleep 30"))
    assert result.timed_out and not result.success
    assert text.startswith("⏱️ 命令执行超时（1 秒）") and "started" in text
    assert_group_gone(int((project / "pid.txt").read_text().strip()))


def assert_group_gone(pgid: int) -> None:
    for _ in range(200):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.01)
    pytest.fail(f"process group {pgid} is still alive")


def test_cancel_mid_command_kills_the_group_and_leaves_a_result(project: Path) -> None:
    runner = make_runner(project)
    cancel = CancelToken()
    events: list[AgentEvent] = []
    results: list[ToolResult] = []
    cmd = command("echo $$ > pid.txt; sleep 30 & sleep 30")
    worker = threading.Thread(
        target=lambda: results.extend(
            run(
                runner, ("execute_command", cmd), ("list_dir", "{}"), text="run", cancel=cancel, events=events
            )
        )
    )
    worker.start()
    pid_file = project / "pid.txt"
    for _ in range(500):
        if pid_file.exists() and pid_file.read_text().strip():
            break
        time.sleep(0.01)
    pgid = int(pid_file.read_text().strip())
    cancel.cancel()
    worker.join(timeout=10)
    assert not worker.is_alive()
    assert_group_gone(pgid)
    assert [r.call_id for r in results] == ["call-1", "call-2"]
    assert all(r.blocked and unwrap(r).startswith("用户取消了") for r in results)
    assert [type(e) for e in events] == [ToolStarted, ToolFinished, ToolStarted, ToolFinished]
