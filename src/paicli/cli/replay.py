"""What a resumed conversation looked like, replayed as plain lines (pure): user inputs, answers and one line
per tool call; a long session shows its last turns and how many earlier ones were left out."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from paicli.cli.summaries import shorten, tool_call_line
from paicli.context.internal import is_real_user_turn
from paicli.llm.messages import Message

LAST_TURNS = 6
ANSWER_LINES = 8
_MEMORY_HEADER = "## 相关长期记忆"
_STDIN_MARKER = "\n\n以下是通过标准输入传入的内容："
_SUMMARY_MARKERS = ("已压缩的历史对话摘要", "[PAICLI_")


@dataclass
class Turn:
    user: str
    lines: list[str] = field(default_factory=list)


def typed_text(content: str) -> str:
    """The input as typed: without a long-term-memory block before it or piped stdin after it."""
    if content.startswith(_MEMORY_HEADER) and "\n\n" in content:
        content = content.rsplit("\n\n", 1)[1]
    return content.split(_STDIN_MARKER, 1)[0].strip()


def _answer_lines(content: str) -> list[str]:
    lines = [line.rstrip() for line in content.strip().splitlines() if line.strip()]
    shown = [f"  {shorten(line, 160)}" for line in lines[:ANSWER_LINES]]
    if len(lines) > ANSWER_LINES:
        shown.append(f"  …（还有 {len(lines) - ANSWER_LINES} 行）")
    return shown


def turns_of(messages: Sequence[Message]) -> list[Turn]:
    turns: list[Turn] = []
    for message in messages:
        if message.role == "system":
            continue
        if message.role == "user" and is_real_user_turn(message):
            text = typed_text(message.content or "")
            if any(marker in text[:200] for marker in _SUMMARY_MARKERS):
                turns.append(Turn("（更早的对话已压缩成摘要）"))
            else:
                turns.append(Turn(text))
            continue
        if not turns:
            turns.append(Turn(""))
        if message.role == "assistant":
            turns[-1].lines.extend(
                f"  {tool_call_line(call.name, call.arguments)}" for call in message.tool_calls
            )
            if (message.content or "").strip() and not message.tool_calls:
                turns[-1].lines.extend(_answer_lines(message.content or ""))
    return turns


def replay_lines(messages: Sequence[Message], last_turns: int = LAST_TURNS) -> list[str]:
    turns = turns_of(messages)
    if not turns:
        return []
    lines = ["── 之前的对话 ──"]
    hidden = max(0, len(turns) - last_turns)
    if hidden:
        lines.append(f"（更早的 {hidden} 轮未显示）")
    for turn in turns[hidden:]:
        if turn.user:
            first, *rest = turn.user.splitlines() or [""]
            more = f"（共 {len(rest) + 1} 行）" if rest else ""
            lines.append(f"› {shorten(first, 160)}{more}")
        lines.extend(turn.lines)
    lines.append("── 以上是恢复的对话，可以接着说 ──")
    return lines
