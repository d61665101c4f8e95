"""What a summary is made of, as pure functions: the transcript a summary request quotes (in chunks that fit
the window), the structure a summary must have, and the history rebuilt around it (spec 2.4, 2.5)."""

from __future__ import annotations

from collections.abc import Sequence

from paicli.context import rounds
from paicli.context.estimate import utf16_len
from paicli.context.internal import is_real_user_turn, skill_names
from paicli.context.markers import ACKNOWLEDGEMENT
from paicli.llm.messages import Message

MAX_SUMMARY_INPUT_CHARS = 60_000
SUMMARY_PROMPT_ROOM_TOKENS = 2_000  # the summary prompt's own text and the reply's headroom
REQUIRED_HEADINGS = (
    "## 当前目标与成功条件",
    "## 用户要求与已确认决定",
    "## 已完成工作及证据",
    "## 未解决问题与下一步",
)


def system_end(history: Sequence[Message]) -> int:
    return 1 if history and history[0].role == "system" else 0


def render_message(message: Message) -> str:
    parts = [message.role.upper()]
    if message.tool_call_id:
        parts.append(f"[{message.tool_call_id}]")
    parts.append(": ")
    if message.content:
        parts.append(message.content)
    for call in message.tool_calls:
        parts.append(f"\n  TOOL_CALL[{call.id}] {call.name}: {call.arguments}")
    parts.append("\n\n")
    return "".join(parts)


def split_utf16(text: str, size: int) -> list[str]:
    """Consecutive chunks of `size` UTF-16 units (an astral char is never split, so a chunk may be one short)."""
    if not text:
        return []
    if utf16_len(text) == len(text):
        return [text[i : i + size] for i in range(0, len(text), size)]
    chunks: list[str] = []
    start, units = 0, 0
    for index, ch in enumerate(text):
        width = 2 if ord(ch) > 0xFFFF else 1
        if units + width > size:
            chunks.append(text[start:index])
            start, units = index, 0
        units += width
    chunks.append(text[start:])
    return chunks


def render_summary_chunks(messages: Sequence[Message], size: int = MAX_SUMMARY_INPUT_CHARS) -> list[str]:
    return split_utf16("".join(render_message(m) for m in messages), size)


def input_chars_for_window(window: int, reserve: int) -> int:
    """Beyond the reference: a summary request must fit the window too. A character is at most about one
    token (CJK), so a chunk of (window - response reserve - prompt room) characters always fits."""
    return max(2_000, min(MAX_SUMMARY_INPUT_CHARS, window - reserve - SUMMARY_PROMPT_ROOM_TOKENS))


def has_required_structure(summary: str | None) -> bool:
    if not summary:
        return False
    wanted = 0
    for line in summary.splitlines():
        if wanted < len(REQUIRED_HEADINGS) and line.strip() == REQUIRED_HEADINGS[wanted]:
            wanted += 1
    return wanted == len(REQUIRED_HEADINGS)


def removed_skills_note(names: Sequence[str]) -> str:
    joined = "、".join(names)
    return (
        f"\n\n[Skill 正文已随压缩移出上下文：{joined}。还需要按这些 Skill 操作时，重新调用 load_skill 加载。]"
    )


def rebuild_with_summary(history: Sequence[Message], split_idx: int, summary_message: str) -> list[Message]:
    """Everything before `split_idx` but the latest user message becomes the summary pair (rounds.rebuild)."""
    removed: list[str] = []
    for message in rounds.removed(history, split_idx):
        for name in skill_names(message):
            if name not in removed:
                removed.append(name)
    text = summary_message + (removed_skills_note(removed) if removed else "")
    return rounds.rebuild(history, split_idx, [Message.user(text), Message.assistant(ACKNOWLEDGEMENT)])


def real_user_indices(history: Sequence[Message], start: int) -> list[int]:
    return [i for i in range(start, len(history)) if is_real_user_turn(history[i])]
