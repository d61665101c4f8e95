"""Issue 32, what the screen shows (real REPL in tmux, loopback server): a spinner with its elapsed time while
a summary is written (automatic compaction and /compact), whole option labels in a 60-column approval, a
timed-out command's last lines with its limit, and mixed Chinese/English text wrapped between CJK characters.

Every wait polls the screen for the text it checks; a slow summary waits on an Event the test releases.
"""

from __future__ import annotations

import json
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
from rich.cells import cell_len

from paicli.testing.openai_server import FakeOpenAIServer, Reply, is_summary_request
from paicli.testing.proc import paicli_env
from tests.cli.test_tmux_e2e import WAIT_SECONDS, Pane

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
    env = paicli_env(
        home, server.base_url, **{"TERM": "xterm-256color", "PAICLI_APPROVAL_MODE": "auto", **extra}
    )
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


MIXED = "".join(
    f" {n} 这是第 {n} 行的内容，mixed English words here 和中文混排的句子继续写下去直到很长很长"
    for n in range(20, 26)
)
OPTION_LABELS = ("[y] 允许", "[n] 拒绝", "[t] 拒绝并告诉它怎么做", "[Esc] 拒绝：")
LOOP = "for i in $(seq 1 12); do echo line-$i; done; sleep 30"


def test_sixty_columns_whole_labels_cjk_wrapping_and_a_timed_out_commands_lines(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        server.push(
            Reply.tool_calls(
                ("write_file", json.dumps({"path": "docs/notes/meeting_summary.txt", "content": "x"}))
            ),
            MIXED,
            Reply.tool_calls(("execute_command", json.dumps({"command": LOOP}))),
            "命令超时了。",
        )
        with repl_pane(
            tmp_path,
            project,
            isolated_home,
            server,
            60,
            PAICLI_APPROVAL_MODE="ask",
            PAICLI_COMMAND_TIMEOUT_SECONDS="2",
        ) as pane:
            pane.wait_for("fake-model · ctx")
            pane.keys("写一个文件", "Enter")
            pane.wait_for("[Esc] 拒绝：")
            drawn = rows(pane)
            first = max(i for i, row in enumerate(drawn) if "⚠️ 需要确认" in row)
            asked = drawn[first : next(i for i in range(first, len(drawn)) if "[Esc] 拒绝：" in drawn[i]) + 1]
            always = [row for row in asked if "[a] 本会话始终允许" in row]
            assert always, (
                asked
            )  # this write may be allowed for the session: that label is long at 60 columns
            for whole in (*OPTION_LABELS, "write_file", "edit_file", "docs/notes/meeting_summary.txt"):
                assert any(whole in row for row in asked), (whole, asked)  # never split between rows
            pane.keys("y")
            pane.wait_for("这是第 25 行的内容")
            pane.wait_prompt("这是第 25 行的内容")

            drawn = rows(pane)
            start = next(i for i, row in enumerate(drawn) if "20 这是第 20" in row)
            end = next(i for i in range(start, len(drawn)) if not drawn[i].strip())
            answer = [row.rstrip() for row in drawn[start:end]]
            assert_wrapped_by_the_policy(answer)

            pane.keys("跑一个循环", "Enter")
            pane.wait_for("[Esc] 拒绝：", count=2)
            drawn = rows(pane)
            asked = [row for row in drawn[max(i for i, r in enumerate(drawn) if "⚠️ 需要确认" in r) :]]
            assert any("line-$i;" in row for row in asked), asked  # the command is not cut inside a word
            pane.keys("y")
            shown = pane.wait_for("命令超时了。")
        assert server.violations == []
    after = shown[shown.index("⏱️ 超时（2 秒上限") :]
    kept = [row.strip() for row in after.splitlines()[:7]]
    assert kept[0] == "⏱️ 超时（2 秒上限）已终止，共 12 行，最后 5 行：", after
    assert kept[1:6] == [f"line-{n}" for n in range(8, 13)], after
    assert "PAICLI_COMMAND_TIMEOUT_SECONDS" in kept[6]


def assert_wrapped_by_the_policy(answer: list[str]) -> None:
    """Every row of the answer full but the last (a row breaks between CJK characters, not at the last space),
    and no Latin word cut in two."""
    from tests.cli.test_wrapping import assert_no_word_split

    assert len(answer) >= 4, answer
    assert all(cell_len(row) >= 50 for row in answer[:-1]), "\n".join(answer)
    assert_no_word_split(answer, MIXED)
