"""A real terminal: the REPL runs in a pseudo-terminal subprocess, so raw mode and Esc are the real thing."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from tests.cli.pty_terminal import PtyTerminal

pty = pytest.importorskip("pty")
pytestmark = pytest.mark.timeout(60)

CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from paicli.agent.events import Notice, RunFinished
    from paicli.cli.repl import run_repl
    from paicli.testing.fake_backend import FakeBackend, recording_table

    def run(text, mode, emit, cancel):
        emit(Notice("RUNNING " + text))
        cancelled = cancel.wait(30)
        return RunFinished("cancelled" if cancelled else "error", "", None if cancelled else "not cancelled")

    backend = FakeBackend(scripts=[run])
    code = run_repl(backend, interactive=True, history_file=Path(sys.argv[2]), table=recording_table())
    print("RC", code, backend.names(), flush=True)
    """
)


class Terminal(PtyTerminal):
    def __init__(self, tmp_path: Path, child: str = CHILD) -> None:
        root = Path(__file__).resolve().parents[2]
        super().__init__(["-c", child, str(root), str(tmp_path / "h")], os.environ, tmp_path)

    def expect(self, pattern: str, timeout: float = 20.0) -> str:
        shown = super().expect(pattern, timeout)
        assert pattern in shown
        return shown


def test_esc_cancels_a_task_in_a_real_terminal(tmp_path: Path) -> None:
    term = Terminal(tmp_path)
    try:
        term.expect("paicli v9.9.9")
        term.expect("›")  # like a person, type once the prompt is there
        term.send("慢任务\r")
        term.expect("RUNNING 慢任务")
        term.send("\x1b")
        term.expect("正在停止当前任务")
        term.expect("任务已取消")
        term.send("/clear\r")  # typed right away: the run's key watcher keeps Enter intact
        term.expect("已记录 /clear")
        term.send("\x04")
        term.expect("RC 0 ['run', 'clear']")
    finally:
        status = term.close()
    assert os.waitstatus_to_exitcode(status) == 0


TEAM_CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from paicli.agent.events import Notice, RunFinished
    from paicli.agent.task_events import TaskActivity, TaskStarted
    from paicli.cli.repl import run_repl
    from paicli.testing.fake_backend import FakeBackend, recording_table

    def run(text, mode, emit, cancel):
        emit(Notice("MODE " + mode))
        emit(TaskStarted("s1", "统计甲模块", True, "worker-1"))
        emit(TaskStarted("s2", "统计乙模块", True, "worker-2"))
        emit(TaskActivity("s1", "⏺ read_file"))
        cancelled = cancel.wait(30)
        return RunFinished("cancelled" if cancelled else "error", "", None if cancelled else "not cancelled")

    backend = FakeBackend(scripts=[run])
    code = run_repl(backend, interactive=True, history_file=Path(sys.argv[2]), table=recording_table())
    print("RC", code, backend.names(), flush=True)
    """
)


def test_team_workers_show_a_live_line_each_and_esc_cancels_them(tmp_path: Path) -> None:
    term = Terminal(tmp_path, TEAM_CHILD)
    try:
        term.expect("›")
        term.send("/team 统计两个模块\r")
        term.expect("MODE team")
        term.expect("🛠️ worker-2 执行步骤 [s2]: 统计乙模块")
        term.expect("worker-1 [s1] ⏺ read_file")  # the live line: each running worker with its step
        term.expect("worker-2 [s2] 启动中")
        term.send("\x1b")
        term.expect("任务已取消")
        term.send("\x04")
        term.expect("RC 0 ['run']")
    finally:
        status = term.close()
    assert os.waitstatus_to_exitcode(status) == 0
