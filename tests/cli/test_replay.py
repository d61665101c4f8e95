"""Resume replays the conversation: inputs, answers, one line per tool call; long sessions show the tail."""

from __future__ import annotations

import json

from paicli.cli.replay import COMPACTED_NOTE, call_outcome, is_compacted, replay_lines, transcript_lines
from paicli.llm.messages import Message, ToolCall
from paicli.session.resume import INTERRUPTED_RESULT
from paicli.session.transcript import ShownTurn, Transcript


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


def shown_turn(typed: str, calls: list[tuple[str, str]], answer: str) -> ShownTurn:
    """One turn: each (command, its result) as a call and a tool message, then the answer."""
    messages: list[Message] = []
    for n, (command, result) in enumerate(calls):
        call = ToolCall(f"{typed}-{n}", "execute_command", json.dumps({"command": command}))
        messages.append(Message("assistant", "", tool_calls=(call,)))
        messages.append(
            Message.tool(
                call.id,
                f'<tool_result tool="execute_command" trust="untrusted-data">\n{result}\n</tool_result>',
            )
        )
    messages.append(Message.assistant(answer))
    return ShownTurn(typed, tuple(messages))


def test_a_denied_or_failed_call_is_replayed_as_such_not_as_a_command_that_ran() -> None:
    turn = shown_turn(
        "发布一下",
        [
            ("npm test", "ok\n退出码: 0"),
            ("npm publish", "[HITL] 用户没有批准这次操作，未执行: 执行命令: npm publish。"),
            ("npm run lint", "error\n退出码: 2"),
            ("rm -rf /", "🛡️ 策略拒绝: 命令命中安全黑名单（rm-root），已阻止执行: rm -rf /"),
            ("sleep 99", "⏱️ 命令执行超时（60 秒），已终止整个进程组。\n命令: sleep 99"),
            ("make", "用户取消了命令执行，已终止整个进程组。\n命令: make"),
        ],
        "没有发布。",
    )
    lines = transcript_lines(Transcript((turn,), earlier_turns=0))
    assert lines[1:-1] == [
        "› 发布一下",
        "  ⏺ execute_command(npm test)",
        "  ⏺ execute_command(npm publish)",
        "    ⎿ 🚫 已拒绝，未执行",
        "  ⏺ execute_command(npm run lint)",
        "    ⎿ ❌ 失败（退出码 2）",
        "  ⏺ execute_command(rm -rf /)",
        "    ⎿ ⛔ 🛡️ 策略拒绝: 命令命中安全黑名单（rm-root），已阻止执行: rm -rf /",
        "  ⏺ execute_command(sleep 99)",
        "    ⎿ ⏱️ 命令执行超时（60 秒），已终止整个进程组。",
        "  ⏺ execute_command(make)",
        "    ⎿ ⏹️ 已取消，未执行",
        "  没有发布。",
    ]


def test_the_transcript_counts_the_turns_not_shown_and_says_when_the_model_sees_a_summary() -> None:
    turns = tuple(shown_turn(f"问题 {n}", [], f"回答 {n}") for n in (14, 15))
    lines = transcript_lines(Transcript(turns, earlier_turns=13), compacted=True)
    assert lines[:2] == ["── 之前的对话 ──", "（更早的 13 轮未显示，共 15 轮）"]
    assert [line for line in lines if line.startswith("› ")] == ["› 问题 14", "› 问题 15"]
    assert lines[-2] == COMPACTED_NOTE and lines[-1] == "── 以上是恢复的对话，可以接着说 ──"
    assert transcript_lines(Transcript((), earlier_turns=0)) == []


def test_an_interrupted_call_says_its_result_is_unknown() -> None:
    assert call_outcome(INTERRUPTED_RESULT) == "⚠️ 已中断，结果未知"
    assert call_outcome("a\n退出码: 0") is None and call_outcome("") is None


def test_a_compacted_view_is_recognised() -> None:
    assert is_compacted([Message.user("[已压缩的历史对话摘要]\n## 当前目标"), Message.assistant("好")])
    assert not is_compacted(conversation(2))
    skill = Message.user("[PAICLI_SKILL_INJECTION] file=a\n## 已加载 Skill：pdf")
    assert not is_compacted([Message.user("问"), skill])  # a loaded skill is no summary


def test_replayed_answer_lines_keep_their_own_indent() -> None:
    """Issue 44 item 9: a nested list or a code block in an answer is replayed with its indentation."""
    answer = "步骤：\n- 第一项\n    - 子项\n```\ndef f():\n    return  1\n```"
    lines = replay_lines([Message.user("怎么做"), Message("assistant", answer)])
    assert lines[1:-1] == [
        "› 怎么做",
        "  步骤：",
        "  - 第一项",
        "      - 子项",
        "  ```",
        "  def f():",
        "      return  1",
        "  ```",
    ]
