"""The real REPL in a real terminal (tmux) against the loopback server: a single-key approval, a 200-line
paste, Ctrl+O on a folded output, and the screen checked for what must be there, once, with nothing lost; `y⏎`
typed at one approval then a second approval; `/model` with a name the provider does not list.

Every wait polls `capture-pane` until the expected text appears (generous timeout); nothing sleeps a fixed time.
"""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env

pytestmark = [
    pytest.mark.timeout(240),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]
WAIT_SECONDS = 60.0


class Pane:
    def __init__(self, socket: str, target: str) -> None:
        self.socket = socket
        self.target = target

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=30)
        return done.stdout

    def screen(self) -> str:
        """Everything the terminal shows and scrolled away, wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", self.target)

    def wait_for(self, text: str, count: int = 1) -> str:
        deadline = time.monotonic() + WAIT_SECONDS
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            if shown.count(text) >= count:
                return shown
            threading.Event().wait(0.2)  # poll interval, not an assertion on timing
        raise AssertionError(f"{text!r} (x{count}) never appeared on the screen:\n{shown}")

    def wait_prompt(self, after: str) -> None:
        """Until the input prompt is back below `after` (keys sent earlier would be type-ahead, and a paste
        between two prompts is not bracketed)."""
        deadline = time.monotonic() + WAIT_SECONDS
        shown = ""
        while time.monotonic() < deadline:
            shown = self.screen()
            tail = shown[shown.rfind(after) :] if after in shown else ""
            rows = [row.rstrip() for row in tail.splitlines()]
            if "›" in rows and any(" · ctx " in row for row in rows):
                return
            threading.Event().wait(0.2)
        raise AssertionError(f"the prompt never came back after {after!r}:\n{shown}")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.target, *keys)

    def paste(self, text: str, tmp: Path) -> None:
        source = tmp / "paste.txt"
        source.write_text(text, encoding="utf-8")
        self.tmux("load-buffer", "-b", "p", str(source))
        self.tmux(
            "paste-buffer", "-p", "-d", "-b", "p", "-t", self.target
        )  # -p: bracketed, as a terminal does


@pytest.fixture
def pane(tmp_path: Path, project: Path, isolated_home: Path) -> Iterator[tuple[Pane, FakeOpenAIServer]]:
    with FakeOpenAIServer() as server:
        env = paicli_env(isolated_home, server.base_url, TERM="xterm-256color", PAICLI_APPROVAL_MODE="auto")
        script = tmp_path / "run.sh"
        exports = "\n".join(f"export {key}={shlex.quote(value)}" for key, value in env.items())
        script.write_text(
            f"{exports}\ncd {shlex.quote(str(project))}\n{shlex.quote(sys.executable)} -m paicli\n"
            "echo '[paicli exited]'\nread _\n",
            encoding="utf-8",
        )
        socket = f"paicli-test-{uuid.uuid4().hex[:8]}"
        subprocess.run(
            [
                "tmux",
                "-L",
                socket,
                "-f",
                "/dev/null",
                "new-session",
                "-d",
                "-s",
                "t",
                "-x",
                "120",
                "-y",
                "40",
                f"bash {shlex.quote(str(script))}",
            ],
            check=True,
            timeout=30,
        )
        try:
            terminal = Pane(socket, "t")
            terminal.tmux("set-option", "-t", "t", "history-limit", "20000")
            yield terminal, server
        finally:
            subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=30)


def test_the_repl_in_a_real_terminal(
    pane: tuple[Pane, FakeOpenAIServer], tmp_path: Path, project: Path
) -> None:
    terminal, server = pane
    server.push(
        Reply.tool_calls(("execute_command", json.dumps({"command": "touch made.txt"}))),
        "文件已经建好了。",
        "收到，一共 200 行。",
        Reply.tool_calls(("execute_command", json.dumps({"command": "seq 1 40"}))),
        "数字列好了。",
    )
    terminal.wait_for("fake-model · ctx")

    # 1. a command that needs approval, answered with one key (no Enter)
    terminal.keys("建一个文件", "Enter")
    terminal.wait_for("[Esc] 拒绝：")
    terminal.keys("y")
    shown = terminal.wait_for("文件已经建好了。")
    terminal.wait_prompt("文件已经建好了。")
    assert (project / "made.txt").exists()
    assert (
        shown.count("需要确认: 执行命令: touch made.txt") == 1
    )  # the command is shown once, not three times

    # 2. a 200-line paste collapses to a placeholder; the model gets every line
    lines = [f"paste-line-{n:03d}" for n in range(1, 201)]
    terminal.paste("\n".join(lines), tmp_path)
    terminal.wait_for("[已粘贴 200 行]")
    terminal.keys("Enter")
    shown = terminal.wait_for("收到，一共 200 行。")
    terminal.wait_prompt("收到，一共 200 行。")
    sent = next(
        str(m.get("content")) for m in reversed(server.requests[2]["messages"]) if m["role"] == "user"
    )
    assert all(line in sent for line in lines)
    assert (
        "paste-line-001" not in shown and "paste-line-200" not in shown
    )  # no 200 lines thrown at the screen

    # 3. a folded output, then Ctrl+O on a half-typed line: shown in full, the line is not submitted
    terminal.keys("列出数字", "Enter")
    terminal.wait_for("[Esc] 拒绝：", count=2)
    terminal.keys("a")
    terminal.wait_for("数字列好了。")
    terminal.wait_for("Ctrl+O 展开")
    terminal.wait_prompt("数字列好了。")
    terminal.keys("还没写完")
    terminal.wait_for("还没写完")
    terminal.keys("C-o")
    shown = terminal.wait_for("输出结束")
    block = shown[shown.index("── execute_command 的完整输出（") : shown.index("── 输出结束")]
    numbers = [line.strip() for line in block.splitlines()[1:] if line.strip().isdigit()]
    assert numbers == [str(n) for n in range(1, 41)]  # every line once, in order: none lost or doubled
    assert len(server.requests) == 5  # Ctrl+O sent nothing to the model

    # 4. the screen as a whole: each answer once, and the way back printed on exit
    terminal.keys("C-u", "C-d")
    shown = terminal.wait_for("[paicli exited]")
    for answer in ("文件已经建好了。", "收到，一共 200 行。", "数字列好了。"):
        assert shown.count(answer) == 1, answer
    assert shown.count("[已粘贴 200 行]") >= 1 and "paicli --resume session-" in shown


def test_y_enter_typed_at_one_approval_leaves_the_next_one_asked(
    pane: tuple[Pane, FakeOpenAIServer], project: Path
) -> None:
    terminal, server = pane
    server.push(
        Reply.tool_calls(("execute_command", json.dumps({"command": "touch one.txt"}))),
        Reply.tool_calls(("execute_command", json.dumps({"command": "touch two.txt"}))),
        "两个文件都建好了。",
        "好的，收尾。",
    )
    terminal.wait_for("fake-model · ctx")
    terminal.keys("建两个文件", "Enter")
    terminal.wait_for("需要确认: 执行命令: touch one.txt")
    terminal.wait_for("[Esc] 拒绝：")
    terminal.keys("y", "Enter")  # out of habit: the Enter must not answer the next question
    shown = terminal.wait_for("需要确认: 执行命令: touch two.txt")
    assert "🚫 已拒绝" not in shown
    terminal.wait_for("[Esc] 拒绝：", count=2)
    terminal.keys("y", "e", "s", "Enter")  # the whole word: "es" must not become a turn
    terminal.wait_for("两个文件都建好了。")
    terminal.wait_prompt("两个文件都建好了。")
    terminal.keys("收尾", "Enter")
    shown = terminal.wait_for("好的，收尾。")
    assert (project / "one.txt").exists() and (project / "two.txt").exists()
    assert "🚫 已拒绝" not in shown and shown.count("✅ 已允许这一次") == 2
    users = [
        str(m.get("content"))
        for request in server.requests
        for m in request["messages"]
        if m["role"] == "user"
    ]
    assert len(server.requests) == 4 and users[-1] == "收尾" and "es" not in users


def test_model_with_a_name_the_provider_does_not_list_asks_first(pane: tuple[Pane, FakeOpenAIServer]) -> None:
    terminal, server = pane
    server.push("用 gpt-5 回答。")
    terminal.wait_for("fake-model · ctx")
    terminal.keys("/model gpt-6", "Enter")
    terminal.wait_for("⚠️ paicli 的模型列表里没有 gpt-6（它列出的: fake-model）")
    terminal.wait_for("仍要切换到不在列表里的 gpt-6 吗？")
    terminal.keys("Enter")  # the question's default: no switch
    terminal.wait_for("↩️ 没有切换模型")
    terminal.wait_prompt("↩️ 没有切换模型")
    terminal.keys("/model gpt-5", "Enter")
    terminal.wait_for("仍要切换到不在列表里的 gpt-5 吗？")
    terminal.keys("y", "Enter")
    terminal.wait_for("✅ 已切换到 gpt-5 (paicli)")
    terminal.wait_prompt("✅ 已切换到 gpt-5 (paicli)")
    terminal.keys("你好", "Enter")
    shown = terminal.wait_for("用 gpt-5 回答。")
    assert "已切换到 gpt-6" not in shown
    assert [request["model"] for request in server.requests] == ["gpt-5"]
