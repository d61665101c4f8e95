"""Issue 32, what the screen shows (real REPL in tmux, loopback server): a spinner with its elapsed time while
a summary is written (automatic compaction and /compact), whole option labels in a 60-column approval, a
timed-out command's last lines with its limit, and mixed Chinese/English text wrapped between CJK characters.

Every wait polls the screen for the text it checks; a slow summary waits on an Event the test releases.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.cli.paicli_proc import paicli_env
from tests.cli.test_tmux_e2e import WAIT_SECONDS, Pane
from tests.fakes.openai_server import FakeOpenAIServer, Reply, is_summary_request

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]
RELEASE_SECONDS = 120.0
SUMMARY = (
    "## 当前目标与成功条件\n回答用户的问题\n## 用户要求与已确认决定\n无\n"
    "## 已完成工作及证据\n已经回答了前几轮\n## 未解决问题与下一步\n继续回答"
)


@contextmanager
def repl_pane(
    tmp_path: Path, project: Path, home: Path, server: FakeOpenAIServer, columns: int, **extra: str
) -> Iterator[Pane]:
    env = paicli_env(home, server.base_url, TERM="xterm-256color", PAICLI_APPROVAL_MODE="auto", **extra)
    script = tmp_path / "run.sh"
    exports = "\n".join(f"export {key}={shlex.quote(value)}" for key, value in env.items())
    script.write_text(
        f"{exports}\ncd {shlex.quote(str(project))}\n{shlex.quote(sys.executable)} -m paicli\n"
        "echo '[paicli exited]'\nread _\n",
        encoding="utf-8",
    )
    socket = f"paicli-visual-{uuid.uuid4().hex[:8]}"
    size = ["-x", str(columns), "-y", "30"]
    subprocess.run(
        ["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "t", *size, f"bash {script}"],
        check=True,
        timeout=30,
    )
    try:
        terminal = Pane(socket, "t")
        terminal.tmux("set-option", "-t", "t", "history-limit", "20000")
        yield terminal
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=30)


def wait_until(terminal: Pane, check: Callable[[str], bool], what: str) -> str:
    """Poll the screen until `check(screen)` holds (generous timeout)."""
    deadline = time.monotonic() + WAIT_SECONDS
    shown = ""
    while time.monotonic() < deadline:
        shown = terminal.screen()
        if check(shown):
            return shown
        threading.Event().wait(0.2)  # poll interval, not an assertion on timing
    raise AssertionError(f"{what} never appeared on the screen:\n{shown}")


def rows(terminal: Pane) -> list[str]:
    """The screen as drawn, one terminal row each (wrapped rows not joined)."""
    return terminal.tmux("capture-pane", "-p", "-S", "-", "-t", terminal.target).splitlines()


class SlowSummaries:
    """Answers every summary request only once the test releases it; other requests come from the queue."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.asked = threading.Event()

    def __call__(self, body: dict[str, Any]) -> Reply | str | None:
        if not is_summary_request(body):
            return None
        self.asked.set()
        if not self.gate.wait(RELEASE_SECONDS):
            return Reply.error(500, "the test never released the summary")
        return SUMMARY

    def release(self) -> None:
        self.gate.set()

    def hold(self) -> None:
        self.asked.clear()
        self.gate.clear()


def test_a_slow_summary_shows_a_spinner_with_its_elapsed_time(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    summaries = SlowSummaries()
    long_answer = "这一轮的回答内容很长，用来把上下文撑到压缩阈值之上。" * 140
    spinner = re.compile(r"正在压缩上下文（等待模型写出历史摘要） · (\d+)s · Esc 取消")

    def spinner_past_one_second(screen: str) -> bool:  # drawn, and its clock goes on
        return any(int(seconds) >= 1 for seconds in spinner.findall(screen))

    def ask(pane: Pane, turn: int) -> None:  # one turn; returns early once it asks for a summary
        pane.keys(f"第{turn}个问题", "Enter")
        wait_until(pane, lambda s: summaries.asked.is_set() or f"第{turn}轮：" in s, "an answer")
        if not summaries.asked.is_set():
            pane.wait_prompt(f"第{turn}轮：")

    with FakeOpenAIServer(responder=summaries) as server:
        server.push(*[f"第{n}轮：{long_answer}" for n in range(1, 12)])
        with repl_pane(tmp_path, project, isolated_home, server, 100, PAICLI_CONTEXT_WINDOW="16000") as pane:
            pane.wait_for("fake-model · ctx")
            for turn in (1, 2):
                ask(pane, turn)
            assert not summaries.asked.is_set()
            pane.keys("/compact", "Enter")  # 1. by hand
            shown = wait_until(pane, spinner_past_one_second, "the /compact spinner")
            assert "📦 上下文已压缩" not in shown
            summaries.release()
            pane.wait_for("📦 上下文已压缩")
            pane.wait_prompt("📦 上下文已压缩")

            summaries.hold()  # 2. automatic, before a model call
            turn = 2
            while not summaries.asked.is_set():
                turn += 1
                assert turn <= 11, "no automatic summary was asked for"
                ask(pane, turn)
            shown = wait_until(pane, spinner_past_one_second, "the compaction spinner")
            assert "📦 已压缩历史上下文" not in shown
            summaries.release()
            pane.wait_for("📦 已压缩历史上下文")
            pane.wait_for(f"第{turn}轮：")
        assert server.violations == []
