"""The deterministic fallback when a summary cannot be had: drop the oldest rounds into a mechanical note.

No model call, no judgement: the note lists what left the view (user requests by their opening words, tool
calls by name, how many answers) and carries forward an earlier summary or note, so nothing the model was
told about is silently forgotten. The ledger keeps every dropped message. Pure over a history.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from paicli.context import prompts, rounds
from paicli.context.internal import is_internal, is_real_user_turn
from paicli.context.summary import ACKNOWLEDGEMENT, SUMMARY_PREFIX
from paicli.llm.messages import Message

NOTE_PREFIX = "[已省略的早期对话]"
MAX_LISTED_REQUESTS = 8
REQUEST_PREVIEW_CHARS = 40
MAX_CARRIED_CHARS = 3_000


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= REQUEST_PREVIEW_CHARS else flat[:REQUEST_PREVIEW_CHARS] + "…"


def _carried(dropped: Sequence[Message], max_chars: int) -> str:
    """The newest earlier summary among the dropped messages (bounded), and a line if an earlier note was
    dropped too. Notes are never nested, so repeated fallbacks keep the note the same size."""
    text = ""
    for message in reversed(dropped):
        content = message.content or ""
        if message.role == "user" and content.startswith(SUMMARY_PREFIX) and max_chars > 0:
            body = content if len(content) <= max_chars else content[:max_chars] + "…"
            text = prompts.render("dropped-carried.md", summary=body)
            break
    if any(m.role == "user" and (m.content or "").startswith(NOTE_PREFIX) for m in dropped):
        text = prompts.load_prompt("dropped-folded.md") + text
    return text


def mechanical_note(dropped: Sequence[Message], max_carried: int = MAX_CARRIED_CHARS) -> str:
    requests = [
        m.content or ""
        for m in dropped
        if is_real_user_turn(m) and not (m.content or "").startswith((SUMMARY_PREFIX, NOTE_PREFIX))
    ]
    calls = Counter(call.name for m in dropped if m.role == "assistant" for call in m.tool_calls)
    answers = sum(
        1 for m in dropped if m.role == "assistant" and not m.tool_calls and m.content != ACKNOWLEDGEMENT
    )
    listed = "；".join(f"「{_preview(text)}」" for text in requests[-MAX_LISTED_REQUESTS:]) or "无"
    if len(requests) > MAX_LISTED_REQUESTS:
        listed = f"（只列出最近 {MAX_LISTED_REQUESTS} 条）" + listed
    call_list = "、".join(f"{name}×{count}" for name, count in sorted(calls.items())) or "无"
    return prompts.render(
        "dropped.md",
        requests=str(len(requests)),
        request_list=listed,
        calls=str(sum(calls.values())),
        call_list=call_list,
        answers=str(answers),
        earlier=_carried(dropped, max_carried),
    ).strip()


def drop_rounds(history: Sequence[Message], cut: int, max_carried: int = MAX_CARRIED_CHARS) -> list[Message]:
    """The view with everything before `cut` (but the latest user message) folded into the note pair;
    `max_carried` bounds the earlier summary carried into the note (in characters, about tokens for CJK)."""
    dropped = [m for m in rounds.removed(history, cut) if not is_internal(m)]
    head = [Message.user(mechanical_note(dropped, max_carried)), Message.assistant(ACKNOWLEDGEMENT)]
    return rounds.rebuild(history, cut, head)
