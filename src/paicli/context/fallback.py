"""The deterministic fallback when a summary cannot be had: drop the oldest rounds into a note.

No model call, no judgement. What the user said is what matters most, so the note keeps the dropped user
requests verbatim (those that state a decision first, then the newest, as many as the budget allows, shown
in time order), and an earlier summary's list of requirements and decisions; tool calls and answers are only counted. A dropped earlier note
is folded in (its requests join the list, never nested), so repeated fallbacks keep the note bounded. The
ledger keeps every dropped message. Pure over a history.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paicli.context import prompts, rounds
from paicli.context.internal import is_internal, is_real_user_turn
from paicli.context.summary import ACKNOWLEDGEMENT, SUMMARY_PREFIX
from paicli.llm.messages import Message

NOTE_PREFIX = "[已省略的早期对话]"
MAX_CARRIED_CHARS = 3_000
DECISIONS_HEADING = "## 用户要求与已确认决定"
MEMORY_HEADER = "## 相关长期记忆"  # memory.recall_block.HEADER: a block the loop puts before the user's words
REQUEST_MARK = "- "  # an item of the request list; its continuation lines are indented by INDENT
INDENT = "  "
REQUESTS_LINE = "用户说过的话（原文，按时间先后）："
DECISIONS_LINE = "此前记录的用户要求与已确认决定："
COUNTS_START = "移出的"  # the line after the lists (dropped-counts in dropped.md)

# Words with which a user fixes a requirement or a decision (the memory extractor's trigger words, and more).
DECISION_CUES = (
    "记住",
    "约定",
    "决定",
    "必须",
    "务必",
    "不要",
    "不能",
    "禁止",
    "统一",
    "固定",
    "始终",
    "总是",
    "每次",
    "以后",
    "一律",
    "只用",
    "要求",
)

TextSize = Callable[[str], int]


@dataclass(frozen=True)
class NoteBudget:
    """Tokens the note's request list may take, and characters for an earlier summary's other sections."""

    requests_tokens: int
    carried_chars: int = MAX_CARRIED_CHARS


def user_words(content: str) -> str:
    """The user's own text of a user message: without the memory block the loop may have put before it."""
    if content.startswith(MEMORY_HEADER):
        parts = content.split("\n\n", 3)  # header, lead, memory lines, the user's text
        if len(parts) == 4:
            return parts[3].lstrip("\n")
    return content


def _note_parts(note: str) -> tuple[list[str], str]:
    """The requests and the decisions an earlier note carried (the inverse of rendering them)."""
    requests: list[str] = []
    decisions: list[str] = []
    section = ""
    for line in note.splitlines():
        if line in (REQUESTS_LINE, DECISIONS_LINE):
            section = line
        elif section == REQUESTS_LINE and line.startswith(REQUEST_MARK):
            requests.append(line[len(REQUEST_MARK) :])
        elif section == REQUESTS_LINE and line.startswith(INDENT) and requests:
            requests[-1] += "\n" + line[len(INDENT) :]
        elif section == DECISIONS_LINE and not line.startswith(COUNTS_START):
            decisions.append(line)
        else:
            section = ""
    return requests, "\n".join(decisions).strip()


def decisions_of(summary: str) -> str:
    """The requirements-and-decisions section of a structured summary ('' when it has none)."""
    lines = summary.splitlines()
    for index, line in enumerate(lines):
        if line.strip() == DECISIONS_HEADING:
            body: list[str] = []
            for rest in lines[index + 1 :]:
                if rest.startswith("## "):
                    break
                body.append(rest)
            return "\n".join(body).strip()
    return ""


def states_a_decision(text: str) -> bool:
    """A request in which the user fixes something for later (a requirement, a rule, a name, a number)."""
    return any(cue in text for cue in DECISION_CUES)


def _render_requests(requests: Sequence[str], budget: int, size: TextSize) -> tuple[str, int]:
    """Requests within `budget` tokens, in time order; and how many were left out. What the user decided
    (see states_a_decision) is kept before anything else, then the newest of the rest."""
    items = [REQUEST_MARK + text.replace("\n", "\n" + INDENT) for text in requests]
    order = sorted(range(len(items)), key=lambda i: (not states_a_decision(requests[i]), -i))
    kept: set[int] = set()
    used = 0
    for index in order:
        cost = size(items[index]) + 1
        if used + cost > budget:
            continue
        kept.add(index)
        used += cost
    return "\n".join(items[i] for i in sorted(kept)), len(items) - len(kept)


def mechanical_note(
    dropped: Sequence[Message], budget: NoteBudget | None = None, size: TextSize | None = None
) -> str:
    budget = budget or NoteBudget(2_000)
    measure: TextSize = size or (lambda text: len(text))
    requests: list[str] = []
    decisions = ""
    summary = ""
    for message in dropped:
        content = message.content or ""
        if message.role == "user" and content.startswith(NOTE_PREFIX):
            earlier, carried = _note_parts(content)
            requests += earlier
            decisions = carried or decisions
        elif message.role == "user" and content.startswith(SUMMARY_PREFIX):
            summary = content[len(SUMMARY_PREFIX) :].strip()
            decisions = decisions_of(summary) or decisions
        elif is_real_user_turn(message):
            requests.append(user_words(content))
    listed, left_out = _render_requests(requests, budget.requests_tokens, measure)
    calls = Counter(call.name for m in dropped if m.role == "assistant" for call in m.tool_calls)
    answers = sum(
        1 for m in dropped if m.role == "assistant" and not m.tool_calls and m.content != ACKNOWLEDGEMENT
    )
    call_list = "、".join(f"{name}×{count}" for name, count in sorted(calls.items())) or "无"
    return prompts.render(
        "dropped.md",
        requests=f"{REQUESTS_LINE}\n{listed}\n" if listed else "",
        left_out=prompts.render("dropped-left-out.md", count=str(left_out)) if left_out else "",
        decisions=f"{DECISIONS_LINE}\n{decisions}\n" if decisions else "",
        calls=str(sum(calls.values())),
        call_list=call_list,
        answers=str(answers),
        earlier=_carried(summary, decisions, budget.carried_chars),
    ).strip()


def _carried(summary: str, decisions: str, max_chars: int) -> str:
    """The rest of an earlier summary (its decisions are already listed), as far as `max_chars` allows."""
    if not summary or max_chars <= 0:
        return ""
    rest = summary.replace(decisions, "").strip() if decisions else summary
    if not rest:
        return ""
    body = rest if len(rest) <= max_chars else rest[:max_chars] + "…"
    return prompts.render("dropped-carried.md", summary=body)


def drop_rounds(
    history: Sequence[Message], cut: int, budget: NoteBudget | None = None, size: TextSize | None = None
) -> list[Message]:
    """The view with everything before `cut` (but the latest user message) folded into the note pair."""
    dropped = [m for m in rounds.removed(history, cut) if not is_internal(m)]
    head = [Message.user(mechanical_note(dropped, budget, size)), Message.assistant(ACKNOWLEDGEMENT)]
    return rounds.rebuild(history, cut, head)
