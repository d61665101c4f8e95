"""Issue 43 in a real terminal (tmux) against the loopback server: `/rewind` as a picker — search, the question
of what to take back, the files and the conversation back, the message on the input line to edit and send —
and `/rewind N` with conversation-only and files-only answers; then a command cancelled while it ran, replayed
by `-c` with how long it ran.

Every wait polls the screen until the expected text appears (tests.cli.test_tmux_e2e.Pane); no fixed sleeps.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import message_text
from tests.cli.test_tmux_truth import EXITED, terminal, turn

pytestmark = [
    pytest.mark.timeout(300),
    pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed"),
]


def write(path: str, content: str) -> Reply:
    return Reply.tool_calls(
        ("write_file", json.dumps({"path": path, "content": content}, ensure_ascii=False))
    )


def last_user(server: FakeOpenAIServer) -> str:
    return next(message_text(m) for m in reversed(server.requests[-1]["messages"]) if m["role"] == "user")


def test_the_rewind_picker_puts_files_conversation_and_the_message_back(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        server.push(write("甲.txt", "甲"), "甲写好了", write("乙.txt", "乙"), "乙写好了", "重写的回答")
        with terminal(tmp_path, project, isolated_home, server, [""]) as pane:
            pane.wait_for("fake-model · ctx")
            turn(pane, "写甲文件", "甲写好了")
            turn(pane, "写乙文件", "乙写好了")
            assert (project / "甲.txt").exists() and (project / "乙.txt").exists()
            pane.keys("/rewind", "Enter")
            pane.wait_for("可以回退到这些消息之前")
            pane.wait_for("输入编号（1 = 最近一条）或搜索词")
            pane.keys("甲", "Enter")  # a search with one match picks it
            pane.wait_for("回退到第 1 轮之前（对话和文件）：写甲文件")
            pane.wait_for("c：只回退对话")
            pane.keys("Enter")  # the default: the conversation and the files
            pane.wait_for("这条消息已放回输入行")
            assert not (project / "甲.txt").exists() and not (project / "乙.txt").exists()
            pane.wait_for("› 写甲文件")  # on the input line, to edit
            pane.keys("（重写）", "Enter")
            pane.wait_for("重写的回答")
            assert last_user(server) == "写甲文件（重写）"
            users = [m for m in server.requests[-1]["messages"] if m["role"] == "user"]
            assert len(users) == 1  # both earlier turns were taken back
        server.assert_no_violations()


def test_rewind_n_asks_what_to_take_back_conversation_or_files(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    with FakeOpenAIServer() as server:
        server.push(
            write("甲.txt", "甲"), "甲写好了", write("乙.txt", "乙"), "乙写好了", "看到了", "又看到了"
        )
        with terminal(tmp_path, project, isolated_home, server, [""]) as pane:
            pane.wait_for("fake-model · ctx")
            turn(pane, "写甲文件", "甲写好了")
            turn(pane, "写乙文件", "乙写好了")
            pane.keys("/rewind 1", "Enter")
            pane.wait_for("c：只回退对话")
            pane.keys("f", "Enter")  # files only: the conversation stays
            pane.wait_for("已恢复到快照")
            pane.wait_prompt("已恢复到快照")
            assert (project / "甲.txt").exists() and not (project / "乙.txt").exists()
            pane.keys("C-u")  # files only puts no message back; clear the line anyway
            turn(pane, "现在如何", "看到了")
            sent = [message_text(m) for m in server.requests[-1]["messages"] if m["role"] == "user"]
            assert "写乙文件" in sent and any("乙.txt（已删除）" in text for text in sent)
            pane.keys("/rewind 3", "Enter")
            pane.wait_for("c：只回退对话", count=2)
            pane.keys("c", "Enter")  # the conversation only: the files stay as they are
            pane.wait_for("对话已回到第 1 轮之前")
            pane.wait_for("› 写甲文件")  # the message is back on the input line
            assert (project / "甲.txt").exists()
            pane.keys("C-u")
            turn(pane, "从头来", "又看到了")
            sent = [message_text(m) for m in server.requests[-1]["messages"] if m["role"] == "user"]
            assert sent[-1] == "从头来" and not any(text in sent for text in ("写甲文件", "写乙文件"))
            assert any(text.startswith("[PAICLI_WORKSPACE_NOTE]") and "甲.txt" in text for text in sent)
        server.assert_no_violations()


def test_a_command_cancelled_while_it_ran_is_replayed_with_how_long_it_ran(
    tmp_path: Path, project: Path, isolated_home: Path
) -> None:
    command = "echo started-now && sleep 120"
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(("execute_command", json.dumps({"command": command}))))
        with terminal(tmp_path, project, isolated_home, server, ["", "-c"]) as pane:
            pane.wait_for("fake-model · ctx")
            pane.keys("跑个慢命令", "Enter")
            pane.wait_for("[Esc] 拒绝：")
            pane.keys("y")
            pane.wait_for("started-now")  # it runs and prints
            pane.keys("Escape")
            pane.wait_for("已取消")
            pane.wait_prompt("已取消")
            pane.keys("/exit", "Enter")
            pane.wait_for(EXITED)
            pane.keys("Enter")  # the second run: -c replays the conversation
            shown = pane.wait_for("以上是恢复的对话")
            replay = shown[shown.rfind("之前的对话") :]
            assert "⏹️ 已取消（运行 " in replay and "秒后被终止，可能已经改动了文件）" in replay
            assert "已取消，未执行" not in replay
            pane.keys("/exit", "Enter")
            pane.wait_for(EXITED, count=2)
        server.assert_no_violations()
