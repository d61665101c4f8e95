"""A running command's live output: last lines under the REPL spinner, throttled lines on `-p` stderr."""

from __future__ import annotations

import io
import json
import queue
import subprocess
import sys
import threading
from pathlib import Path

from rich.console import Console

from paicli.agent.events import ToolFinished, ToolProgress, ToolStarted
from paicli.cli.live_output import PREFIX, OutputTail, ThrottledLines, display_line
from paicli.cli.oneshot import _emitter
from paicli.cli.render import EventRenderer, WaitSpinner
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env
from paicli.tools.base import ToolResult

WAIT = 60.0


class FakeClock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_display_line_keeps_the_last_carriage_return_state_drops_controls_and_clips() -> None:
    assert display_line("10%\r50%\r100%", 40) == "100%"
    assert display_line("a\tb\x07c\r", 40) == "a   bc"
    assert display_line("x" * 50, 20) == "x" * 19 + "…"
    assert display_line("宽" * 30, 20) == "宽" * 9 + "…"


def test_the_tail_keeps_the_last_lines_of_the_latest_call() -> None:
    tail = OutputTail(size=3)
    for n in range(5):
        tail.add("c1", f"l{n}")
    assert tail.lines() == ("l2", "l3", "l4")
    tail.add("c2", "other")
    assert tail.lines() == ("other",)


def test_lines_are_written_at_most_once_per_interval_showing_the_last_few() -> None:
    written: list[str] = []
    clock = FakeClock()
    lock = threading.Lock()
    live = ThrottledLines(written.append, lambda: 30, lock, interval=1000.0, keep=2, clock=clock)
    with lock:
        live.add("first")  # nothing shown yet: goes out at once
        assert written == [f"{PREFIX}first\n"]
        for n in range(5):
            live.add(f"n{n}")  # within the interval: held back
        assert len(written) == 1
        live.flush()  # e.g. before the tool's end line
    assert written[1:] == [f"{PREFIX}…\n", f"{PREFIX}n3\n{PREFIX}n4\n"]


def test_held_back_lines_go_out_on_their_own_when_nothing_else_comes() -> None:
    written: queue.Queue[str] = queue.Queue()
    clock = FakeClock()
    lock = threading.Lock()
    live = ThrottledLines(written.put, lambda: 80, lock, interval=0.05, clock=clock)
    with lock:
        live.add("a")
        live.add("b")  # clock did not move: held back, a timer sends it
    assert written.get(timeout=WAIT) == f"{PREFIX}a\n"
    assert written.get(timeout=WAIT) == f"{PREFIX}b\n"


def test_text_mode_puts_live_lines_on_stderr_before_the_tool_end_line() -> None:
    out, err = io.StringIO(), io.StringIO()
    emit = _emitter("text", out, err)
    emit(ToolStarted("c1", "execute_command", '{"command": "make"}'))
    emit(ToolProgress("c1", "execute_command", "building"))
    emit(ToolFinished(ToolResult("c1", "execute_command", "building\n退出码: 0")))
    lines = err.getvalue().splitlines()
    assert lines[1] == f"{PREFIX}building"
    assert lines[2].startswith("  ✓")
    assert out.getvalue() == ""


def test_stream_json_and_json_get_no_live_output() -> None:
    for mode in ("stream-json", "json"):
        out, err = io.StringIO(), io.StringIO()
        emit = _emitter(mode, out, err)
        emit(ToolProgress("c1", "execute_command", "building"))
        assert out.getvalue() == "" and err.getvalue() == ""


def test_the_spinner_shows_the_tail_clipped_under_its_line() -> None:
    spinner = WaitSpinner(Console(file=io.StringIO(), force_terminal=True, width=40), FakeClock())
    spinner.start("运行 execute_command")
    try:
        spinner.show_tail(("short", "y" * 100))
        frame = io.StringIO()
        Console(file=frame, width=40).print(spinner)
    finally:
        spinner.stop()
    rows = frame.getvalue().splitlines()
    assert "运行 execute_command" in rows[0] and "Esc 取消" in rows[0]
    assert rows[1] == f"{PREFIX}short"
    assert rows[2].startswith(f"{PREFIX}yyy") and rows[2].endswith("…") and len(rows[2]) < 40


def test_the_renderer_feeds_progress_lines_to_the_spinner_and_prints_none() -> None:
    out_text, err_text = io.StringIO(), io.StringIO()
    renderer = EventRenderer(Console(file=out_text, width=100), Console(file=err_text, width=100))
    renderer(ToolStarted("c1", "execute_command", '{"command": "make"}'))
    for n in range(10):
        renderer(ToolProgress("c1", "execute_command", f"step {n}"))
    renderer(ToolFinished(ToolResult("c1", "execute_command", "done\n退出码: 0")))
    assert "step" not in err_text.getvalue() + out_text.getvalue()  # a pipe gets no spinner and no tail


def _reader(stream: io.TextIOBase | None, lines: queue.Queue[str]) -> threading.Thread:
    def pump() -> None:
        assert stream is not None
        for line in stream:
            lines.put(line)

    thread = threading.Thread(target=pump, daemon=True)
    thread.start()
    return thread


def test_p_shows_a_commands_output_on_stderr_while_it_runs(project: Path, isolated_home: Path) -> None:
    marker = "LIVE-42-MARKER"  # the command computes it, so its arguments (on the ⏺ line) do not contain it
    script = "echo LIVE-$((6 * 7))-MARKER; until [ -f go.flag ]; do sleep 0.05; done; echo finished"
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(("execute_command", json.dumps({"command": script}))), "命令跑完了")
        proc = subprocess.Popen(
            [sys.executable, "-m", "paicli", "-p", "跑一下", "--yes"],
            env=paicli_env(isolated_home, server.base_url),
            cwd=project,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        lines: queue.Queue[str] = queue.Queue()
        reader = _reader(proc.stderr, lines)  # type: ignore[arg-type]
        seen: list[str] = []
        try:
            while f"{PREFIX}{marker}\n" not in seen:
                seen.append(lines.get(timeout=WAIT))  # the command cannot end before go.flag exists
            (project / "go.flag").write_text("")
            out, _ = proc.communicate(timeout=WAIT)
        finally:
            (project / "go.flag").write_text("")
            if proc.poll() is None:
                proc.kill()
        reader.join(WAIT)
        while not lines.empty():
            seen.append(lines.get())
        assert proc.returncode == 0, "".join(seen)
        assert out.strip() == "命令跑完了"
        assert f"{PREFIX}{marker}\n" in seen
        tool_messages = [m for m in server.requests[1]["messages"] if m.get("role") == "tool"]
        content = str(tool_messages[-1]["content"])
        assert (
            f"{marker}\nfinished\n退出码: 0" in content and PREFIX not in content
        )  # the model's view is unchanged
        assert server.violations == []


def _terminal_renderer() -> tuple[EventRenderer, io.StringIO]:
    err_text = io.StringIO()
    console = Console(file=err_text, force_terminal=True, width=60)
    return EventRenderer(Console(file=io.StringIO(), width=60), console, clock=FakeClock()), err_text


def test_the_spinner_comes_back_after_an_approval_question() -> None:
    renderer, err_text = _terminal_renderer()
    renderer(ToolStarted("c1", "execute_command", '{"command": "sleep 20"}'))
    renderer.pause()  # the approval question
    asked = len(err_text.getvalue())
    renderer.resume()  # approved: the command runs now
    renderer.stop_spinner()  # the spinner's final frame stays in the captured stream
    after = err_text.getvalue()[asked:]
    assert "运行 execute_command" in after and "Esc 取消" in after


def test_output_after_a_pause_shows_under_a_fresh_spinner() -> None:
    renderer, err_text = _terminal_renderer()
    renderer(ToolStarted("c1", "execute_command", '{"command": "make"}'))
    renderer.pause()
    paused = len(err_text.getvalue())
    renderer(ToolProgress("c1", "execute_command", "compiling app.c"))
    renderer.stop_spinner()
    after = err_text.getvalue()[paused:]
    assert "运行 execute_command" in after and f"{PREFIX}compiling app.c" in after
    renderer(ToolProgress("other", "execute_command", "stray"))  # not an open call: ignored
    assert "stray" not in err_text.getvalue()
