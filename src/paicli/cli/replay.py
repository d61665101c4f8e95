"""What a resumed conversation looked like, replayed as plain lines (pure): user inputs, answers and one line
per tool call, a call that was denied, refused, cancelled or failed marked as such; a long session shows its
last turns and how many earlier ones were left out.

The turns come from the ledger (session.transcript) where it can be read: what the user saw, not the
compacted view the model continues from. `replay_lines` renders a view instead (no ledger to read)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from paicli.cli.summaries import blocked_headline, preview_line, shorten, strip_boundary, tool_call_line
from paicli.context.fallback import NOTE_PREFIX
from paicli.context.internal import is_real_user_turn
from paicli.context.session_memory import SESSION_MEMORY_PREFIX
from paicli.context.summary import SUMMARY_PREFIX
from paicli.llm.messages import Message
from paicli.session.resume import INTERRUPTED_RESULT
from paicli.session.transcript import ShownTurn, Transcript, typed_text
from paicli.termsafe import show_controls
from paicli.tools.approval import HITL_PREFIX
from paicli.tools.base import CANCELLED_PREFIX

LAST_TURNS = 6
ANSWER_LINES = 8
_SUMMARY_MARKERS = ("已压缩的历史对话摘要", "[PAICLI_")
_EXIT_CODE = re.compile(r"^退出码: (-?\d+)")
_INTERRUPTED_HEAD = INTERRUPTED_RESULT.split("]", 1)[0] + "]"
HEADER = "── 之前的对话 ──"
FOOTER = "── 以上是恢复的对话，可以接着说 ──"
COMPACTED_NOTE = (
    "（较早的对话在模型的上下文里已经压缩；上面是原始对话，模型接着看到的是压缩后的内容加最近的消息）"
)
# what a compacted view starts with: a summary, a session-memory summary, or the note of a fallback that dropped turns
_COMPACTED_PREFIXES = (SUMMARY_PREFIX, SESSION_MEMORY_PREFIX, NOTE_PREFIX)


@dataclass
class Turn:
    user: str
    lines: list[str] = field(default_factory=list)


def call_outcome(content: str, recorded: str | None = None) -> str | None:
    """The mark for a call that did not simply run (denied, refused, cancelled, interrupted, failed);
    None for one that ran and succeeded. `recorded`: the outcome the ledger kept with the result, which
    decides; a ledger written before outcomes were recorded is read by the result's first words. Control
    characters in the result are shown, not obeyed."""
    body = show_controls(strip_boundary(content)).strip()
    first = body.splitlines()[0] if body else ""
    if recorded is not None:
        return _recorded_mark(recorded, first, body)
    if first.startswith(HITL_PREFIX):
        return "🚫 已拒绝，未执行"
    if first.startswith(CANCELLED_PREFIX):
        return "⏹️ 已取消，未执行"
    if first.startswith(_INTERRUPTED_HEAD):
        return "⚠️ 已中断，结果未知"
    if first.startswith(("🛡️", "[AUTO]")):
        return blocked_headline(first, 100)
    if first.startswith("⏱️"):
        return shorten(first, 100)
    if first.startswith("❌"):
        return shorten(first, 100)
    last = body.splitlines()[-1] if body else ""
    code = _EXIT_CODE.match(last)
    if code and int(code.group(1)) != 0:
        return f"❌ 失败（退出码 {code.group(1)}）"
    return None


def _recorded_mark(outcome: str, first: str, body: str) -> str | None:
    if outcome == "denied":
        return "🚫 已拒绝，未执行"
    if outcome == "cancelled":
        return "⏹️ 已取消，未执行"
    if outcome == "refused":
        return blocked_headline(first, 100)
    if outcome == "timed_out":
        return shorten(first, 100)
    if outcome == "failed":
        last = body.splitlines()[-1] if body else ""
        code = _EXIT_CODE.match(last)
        return f"❌ 失败（退出码 {code.group(1)}）" if code else shorten(first, 100)
    return None


def _answer_lines(content: str) -> list[str]:
    lines = [line.rstrip() for line in content.strip().splitlines() if line.strip()]
    shown = [
        f"  {preview_line(line, 160)}" for line in lines[:ANSWER_LINES]
    ]  # nested lists, code keep indent
    if len(lines) > ANSWER_LINES:
        shown.append(f"  …（还有 {len(lines) - ANSWER_LINES} 行）")
    return shown


def _message_lines(messages: Sequence[Message], outcomes: Mapping[str, str] | None = None) -> list[str]:
    """Tool lines (each with its outcome when it did not simply run) and final answers, in order."""
    results = {m.tool_call_id: m.content or "" for m in messages if m.role == "tool"}
    lines: list[str] = []
    for message in messages:
        if message.role != "assistant":
            continue
        for call in message.tool_calls:
            lines.append(f"  {tool_call_line(call.name, call.arguments)}")
            outcome = call_outcome(results.get(call.id, ""), (outcomes or {}).get(call.id))
            if outcome:
                lines.append(f"    ⎿ {outcome}")
        if (message.content or "").strip() and not message.tool_calls:
            lines.extend(_answer_lines(message.content or ""))
    return lines


def _input_lines(typed: str) -> list[str]:
    first, *rest = typed.splitlines() or [""]
    more = f"（共 {len(rest) + 1} 行）" if rest else ""
    return [f"› {shorten(first, 160)}{more}"]


def transcript_lines(transcript: Transcript, compacted: bool = False) -> list[str]:
    """The last turns read from the ledger, with the count of the earlier ones."""
    if not transcript.turns:
        return []
    lines = [HEADER]
    if transcript.earlier_turns:
        lines.append(f"（更早的 {transcript.earlier_turns} 轮未显示，共 {transcript.total_turns} 轮）")
    for turn in transcript.turns:
        lines.extend(_turn_lines(turn))
    if compacted:
        lines.append(COMPACTED_NOTE)
    lines.append(FOOTER)
    return lines


def _turn_lines(turn: ShownTurn) -> list[str]:
    return _input_lines(turn.typed) + _message_lines(turn.messages, turn.outcomes)


def is_compacted(view: Sequence[Message]) -> bool:
    """The view the model continues from holds a summary (or a note) in place of what came before."""
    return any(m.role == "user" and (m.content or "").startswith(_COMPACTED_PREFIXES) for m in view)


# ---- a view without a ledger to read ------------------------------------------------------------------


def turns_of(messages: Sequence[Message]) -> list[Turn]:
    turns: list[Turn] = []
    pending: list[Message] = []

    def flush() -> None:
        if pending:
            if not turns:
                turns.append(Turn(""))
            turns[-1].lines.extend(_message_lines(pending))
            pending.clear()

    for message in messages:
        if message.role == "system":
            continue
        if message.role == "user" and is_real_user_turn(message):
            flush()
            text = typed_text(message.content or "")
            if any(marker in text[:200] for marker in _SUMMARY_MARKERS):
                turns.append(Turn("（更早的对话已压缩成摘要）"))
            else:
                turns.append(Turn(text))
            continue
        pending.append(message)
    flush()
    return turns


def replay_lines(messages: Sequence[Message], last_turns: int = LAST_TURNS) -> list[str]:
    turns = turns_of(messages)
    if not turns:
        return []
    lines = [HEADER]
    hidden = max(0, len(turns) - last_turns)
    if hidden:
        lines.append(f"（更早的 {hidden} 轮未显示）")
    for turn in turns[hidden:]:
        if turn.user:
            lines.extend(_input_lines(turn.user))
        lines.extend(turn.lines)
    lines.append(FOOTER)
    return lines
