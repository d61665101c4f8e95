"""Resume replays the conversation: inputs, answers, one line per tool call; long sessions show the tail."""

from __future__ import annotations

from paicli.cli.replay import replay_lines
from paicli.llm.messages import Message, ToolCall


def conversation(turns: int) -> list[Message]:
    messages = [Message("system", "你是 paicli。")]
    for n in range(1, turns + 1):
        messages.append(Message.user(f"## 相关长期记忆\n- 用中文\n\n第 {n} 个问题"))
        messages.append(
            Message(
                "assistant", "", tool_calls=(ToolCall(f"c{n}", "execute_command", '{"command":"npm test"}'),)
            )
        )
        messages.append(Message("tool", "ok", tool_call_id=f"c{n}"))
        messages.append(Message("assistant", f"第 {n} 个回答\n- 第一项\n- 第二项"))
    return messages


def test_replay_shows_inputs_tool_lines_and_answers_in_order() -> None:
    lines = replay_lines(conversation(2))
    assert lines[0] == "── 之前的对话 ──" and lines[-1].startswith("── 以上是恢复的对话")
    body = lines[1:-1]
    assert body == [
        "› 第 1 个问题",
        "  ⏺ execute_command(npm test)",
        "  第 1 个回答",
        "  - 第一项",
        "  - 第二项",
        "› 第 2 个问题",
        "  ⏺ execute_command(npm test)",
        "  第 2 个回答",
        "  - 第一项",
        "  - 第二项",
    ]  # the memory block the loop put before the input is not part of what the user typed


def test_a_long_session_shows_the_last_turns_and_counts_the_rest() -> None:
    lines = replay_lines(conversation(10), last_turns=3)
    assert lines[1] == "（更早的 7 轮未显示）"
    inputs = [line for line in lines if line.startswith("› ")]
    assert inputs == ["› 第 8 个问题", "› 第 9 个问题", "› 第 10 个问题"]


def test_nothing_to_replay_for_an_empty_view() -> None:
    assert replay_lines([Message("system", "x")]) == []
