"""Plan and Team runs as turns of the conversation, in the real REPL under tmux against the loopback server
(issue 32): after a reviewed `/plan` the status bar counts the context it added, Ctrl+O shows every task's
whole result, and the follow-up question reaches the model with the plan's goal and summary before it.

Every wait polls the screen until the expected text appears (generous timeout); nothing sleeps a fixed time.
"""

from __future__ import annotations

import re
from pathlib import Path

from paicli.testing.openai_server import FakeOpenAIServer
from tests.cli.test_e2e_plan_turns import (
    FOLLOW_UP,
    GOAL,
    assert_plan_turn,
    conversation_of,
    plan_then_chat,
    react_requests,
    team_then_chat,
)
from tests.cli.test_tmux_e2e import (  # noqa: F401 (the terminal fixture and the marks: tmux present, timeout)
    Pane,
    pane,
    pytestmark,
)

_CTX = re.compile(r" · ctx ~?([0-9.]+)(k?)/128k")


def context_figures(screen: str) -> list[float]:
    """Every context figure the status bar has shown so far, in order."""
    return [float(number) * (1000 if k else 1) for number, k in _CTX.findall(screen)]


def test_a_reviewed_plan_joins_the_conversation(
    pane: tuple[Pane, FakeOpenAIServer],  # noqa: F811 (the imported fixture)
    project: Path,
) -> None:
    terminal, server = pane
    server.responder = plan_then_chat
    shown = terminal.wait_for("fake-model · ctx")
    assert context_figures(shown)[-1] == 0  # nothing in the conversation yet

    terminal.keys(f"/plan {GOAL}", "Enter")
    terminal.wait_for("写出周报文件")
    terminal.wait_for("回车：按当前计划执行")  # the review waits for its key
    terminal.keys("Enter")
    terminal.wait_for(
        "每个任务的完整结果：Ctrl+O 展开"
    )  # auto mode: edits inside the project need no approval
    terminal.wait_prompt("每个任务的完整结果：Ctrl+O 展开")
    assert (project / "weekly.md").exists()
    shown = terminal.screen()
    after = shown[shown.rindex("每个任务的完整结果") :]
    assert context_figures(after) and context_figures(after)[-1] > 0, after  # the status bar counts the plan

    terminal.keys("C-o")
    shown = terminal.wait_for("输出结束")
    block = shown[shown.rindex("── 计划 的完整输出") : shown.rindex("── 输出结束")]
    assert (
        "[t1] ✅ 完成：写出周报文件" in block and "周报已写好" in block and "写入的文件：weekly.md" in block
    )
    terminal.wait_prompt("输出结束")

    sent_before = len(server.requests)
    terminal.keys(FOLLOW_UP, "Enter")
    terminal.wait_for("计划改了 weekly.md。")
    follow = react_requests(server.requests[sent_before:])
    assert len(follow) == 1
    messages = conversation_of(follow[0])
    assert_plan_turn(messages)
    assert messages[-1] == ("user", FOLLOW_UP)
    server.assert_no_violations()


def test_a_team_run_joins_the_conversation(
    pane: tuple[Pane, FakeOpenAIServer],  # noqa: F811 (the imported fixture)
) -> None:
    terminal, server = pane
    server.responder = team_then_chat
    terminal.wait_for("fake-model · ctx")
    terminal.keys(f"/team {GOAL}", "Enter")
    terminal.wait_for("每个任务的完整结果：Ctrl+O 展开")
    terminal.wait_prompt("每个任务的完整结果：Ctrl+O 展开")
    shown = terminal.screen()
    assert context_figures(shown[shown.rindex("每个任务的完整结果") :])[-1] > 0
    terminal.keys(FOLLOW_UP, "Enter")
    terminal.wait_for("团队写了 weekly.md。")
    last = conversation_of(server.requests[-1])
    assert last[0] == ("user", GOAL) and last[1][1].startswith("[团队任务执行记录] 结果：已完成")
    server.assert_no_violations()
