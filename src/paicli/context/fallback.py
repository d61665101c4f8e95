"""The deterministic fallback when a summary cannot be had: drop the oldest rounds into a note.

No model call, no judgement. What the user said is what matters most, so the note lists every dropped user
statement (its typed words; attachments named, not copied) within a budget, by position, size, repetition and
shape, never by wording (statements.render: repeats and routine requests are shortened first, the oldest and the
newest stay longest),
and an earlier summary's list of requirements and decisions; tool calls and answers are only counted. A dropped
earlier note or summary is folded in: its statements (with the counts of those it had to leave out) join the
list, never nested, so repeated fallbacks keep the note bounded and the counts right. The ledger keeps every
dropped message. Pure over a history.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paicli.context import prompts, rounds, statements
from paicli.context.internal import is_internal
from paicli.context.markers import ACKNOWLEDGEMENT, DECISIONS_LINE, REQUESTS_LINE
from paicli.context.markers import NOTE_PREFIX as NOTE_PREFIX
from paicli.context.said import collect
from paicli.context.statements import Listing
from paicli.llm.messages import Message

MAX_CARRIED_CHARS = 3_000

TextSize = Callable[[str], int]


@dataclass(frozen=True)
class NoteBudget:
    """Tokens the note's request list may take, and characters for an earlier summary's other sections."""

    requests_tokens: int
    carried_chars: int = MAX_CARRIED_CHARS


def note_with_listing(
    dropped: Sequence[Message], budget: NoteBudget | None = None, size: TextSize | None = None
) -> tuple[str, Listing]:
    budget = budget or NoteBudget(2_000)
    measure: TextSize = size or (lambda text: len(text))
    parts = collect(dropped)
    listing = statements.render(parts.entries, budget.requests_tokens, measure)
    calls = Counter(call.name for m in dropped if m.role == "assistant" for call in m.tool_calls)
    answers = sum(
        1 for m in dropped if m.role == "assistant" and not m.tool_calls and m.content != ACKNOWLEDGEMENT
    )
    call_list = "、".join(f"{name}×{count}" for name, count in sorted(calls.items())) or "无"
    note = prompts.render(
        "dropped.md",
        requests=f"{REQUESTS_LINE}\n{listing.text}\n" if listing.text else "",
        decisions=f"{DECISIONS_LINE}\n{parts.decisions}\n" if parts.decisions else "",
        calls=str(sum(calls.values())),
        call_list=call_list,
        answers=str(answers),
        earlier=_carried(parts.summary, parts.decisions, budget.carried_chars),
    ).strip()
    return note, listing


def _carried(summary: str, decisions: str, max_chars: int) -> str:
    """The rest of an earlier summary (its decisions are already listed), as far as `max_chars` allows."""
    if not summary or max_chars <= 0:
        return ""
    rest = summary.replace(decisions, "").strip() if decisions else summary
    if not rest:
        return ""
    body = rest if len(rest) <= max_chars else rest[:max_chars] + "…"
    return prompts.render("dropped-carried.md", summary=body)


def fold_rounds(
    history: Sequence[Message], cut: int, budget: NoteBudget | None = None, size: TextSize | None = None
) -> tuple[list[Message], Listing]:
    """The view with everything before `cut` (but the latest user message) folded into the note pair, and
    what the note's list of the user's statements kept."""
    dropped = [m for m in rounds.removed(history, cut) if not is_internal(m)]
    note, listing = note_with_listing(dropped, budget, size)
    head = [Message.user(note), Message.assistant(ACKNOWLEDGEMENT)]
    return rounds.rebuild(history, cut, head), listing
