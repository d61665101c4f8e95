"""Issue 44 item 9 on a real terminal (a pty at 120 and 60 columns): text typed while a task runs is shown as
it is typed and once more when Enter queues it; the exit line's `paicli --resume <id>` sits on a row of its
own, so a long session id never wraps it at 120 columns."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.cli.pty_terminal import PtyTerminal

pty = pytest.importorskip("pty")
pytestmark = pytest.mark.timeout(60)

LONG_ID = "session-1733350000000-0f8fad5b-d9cb-469f-a165-70867728950e"
CHILD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from paicli.agent.events import RunFinished
    from paicli.cli.repl import run_repl
    from paicli.testing.fake_backend import FakeBackend, recording_table
    from paicli.tools.base import ToolStarted

    def slow(text, mode, emit, cancel):
        emit(ToolStarted("c1", "execute_command", '{"command": "make build"}'))
        cancelled = cancel.wait(30)
        return RunFinished("cancelled" if cancelled else "error", "", None if cancelled else "not cancelled")

    def answer(text, mode, emit, cancel):
        return RunFinished("done", "ANSWER " + text)

    backend = FakeBackend(scripts=[slow, answer], conversation=True, session_id=sys.argv[3])
    code = run_repl(backend, interactive=True, history_file=Path(sys.argv[2]), table=recording_table())
    print("RC", code, flush=True)
    """
)


def _terminal(tmp_path: Path, columns: int) -> PtyTerminal:
    root = Path(__file__).resolve().parents[2]
    argv = ["-c", CHILD, str(root), str(tmp_path / "h"), LONG_ID]
    return PtyTerminal(argv, os.environ, tmp_path, columns=columns)


@pytest.mark.parametrize("columns", [120, 60])
def test_type_ahead_is_visible_and_the_exit_line_keeps_the_command_whole(
    tmp_path: Path, columns: int
) -> None:
    term = _terminal(tmp_path, columns)
    try:
        term.expect("›")
        term.send("慢任务\r")
        term.expect("运行 execute_command")
        term.send("下一个")
        term.expect("⌨️ 已输入: 下一个")  # under the spinner while the task still runs
        term.send("问题\r")
        term.expect("⌨️ 已记下，任务结束后发送: 下一个问题")
        term.send("\x1b")
        term.expect("任务已取消")
        term.expect("ANSWER 下一个问题")  # the queued line was sent once the task was over
        term.send("\x04")
        shown = term.expect("RC 0")
    finally:
        status = term.close()
    assert os.waitstatus_to_exitcode(status) == 0
    rows = shown.replace("\r", "").split("\n")
    [command] = [row for row in rows if "paicli --resume" in row]
    assert command.strip() == f"paicli --resume {LONG_ID}"  # whole, on its own row
    if columns == 120:
        assert cell_len(command) < columns
        before = rows[rows.index(command) - 1]
        assert "会话已保存" in before and cell_len(before) < columns


TEAM_CHILD = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path
    sys.path.insert(0, sys.argv[1])
    from paicli.agent.events import RunFinished
    from paicli.agent.task_events import TaskFinished, TaskStarted, TaskToolCall
    from paicli.cli.repl import run_repl
    from paicli.testing.fake_backend import FakeBackend, recording_table
    from paicli.tools.base import ToolResult, ToolStarted

    def write(step, worker, name, line):
        diff = f"--- /dev/null\\n+++ b/{name}\\n@@ -0,0 +1 @@\\n+{line}\\n"
        arguments = json.dumps({"path": name, "content": line + "\\n"}, ensure_ascii=False)
        started = ToolStarted("c-" + name, "write_file", arguments)
        return TaskToolCall(step, worker, started, ToolResult("c-" + name, "write_file", "已写入 " + name, display=diff))

    def run(text, mode, emit, cancel):
        emit(TaskStarted("s1", "写甲", True, "worker-1"))
        emit(TaskStarted("s2", "写乙", True, "worker-2"))
        emit(write("s1", "worker-1", "a.txt", "甲的内容"))
        emit(write("s2", "worker-2", "b.txt", "乙的内容"))
        emit(TaskFinished("s1", True, "写好了"))
        emit(TaskFinished("s2", True, "写好了"))
        return RunFinished("done", "TEAM DONE")

    backend = FakeBackend(scripts=[run])
    code = run_repl(backend, interactive=True, history_file=Path(sys.argv[2]), table=recording_table())
    print("RC", code, flush=True)
    """
)


@pytest.mark.parametrize("columns", [120, 60])
def test_parallel_team_writes_show_each_call_and_diff_on_a_terminal(tmp_path: Path, columns: int) -> None:
    """Issue 44 item 1: each parallel write shows its `⏺ write_file(…)` line and diff under its worker."""
    root = Path(__file__).resolve().parents[2]
    term = PtyTerminal(
        ["-c", TEAM_CHILD, str(root), str(tmp_path / "h")], os.environ, tmp_path, columns=columns
    )
    try:
        term.expect("›")
        term.send("/team 写两个文件\r")
        term.expect("TEAM DONE")
        term.send("\x04")
        shown = term.expect("RC 0")
    finally:
        status = term.close()
    assert os.waitstatus_to_exitcode(status) == 0
    rows = [row.rstrip() for row in shown.replace("\r", "").split("\n")]
    first, second = rows.index("🛠️ worker-1 [s1]"), rows.index("🛠️ worker-2 [s2]")
    assert rows[first + 1 : first + 7] == [
        "⏺ write_file(a.txt)",
        "  ⎿ 已写入 a.txt",
        "    --- /dev/null",
        "    +++ b/a.txt",
        "    @@ -0,0 +1 @@",
        "    +甲的内容",
    ]
    assert rows[second + 1] == "⏺ write_file(b.txt)" and "    +乙的内容" in rows[second:]
    assert first < second < rows.index(next(row for row in rows if "TEAM DONE" in row))
