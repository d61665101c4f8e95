"""What the user said in the messages a fold or a summary takes out of the view. Pure.

The user's statements are the typed words of every real user message (user_words.typed_text), plus what an
earlier note or summary already carried for them: a note's list of statements (with the counts of those it
left out), a summary's list of the words it carried beside itself, and the requirements-and-decisions section
of either. Folding keeps that order (oldest first), so a list never nests and its counts carry on.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from paicli.context import statements
from paicli.context.internal import is_real_user_turn
from paicli.context.markers import (
    COUNTS_START,
    DECISIONS_HEADING,
    DECISIONS_LINE,
    NOTE_PREFIX,
    REQUESTS_LINE,
    SUMMARY_PREFIX,
    SUMMARY_WORDS_LINE,
)
from paicli.context.statements import Entry
from paicli.context.user_words import typed_text
from paicli.llm.messages import Message

WORDS_LINES = (REQUESTS_LINE, SUMMARY_WORDS_LINE)
# Notes written before the counts were carried: how many earlier requests they left out.
_OLD_LEFT_OUT = ("（更早的 ", " 条用户请求因篇幅所限没有列出）")


@dataclass(frozen=True)
class Said:
    entries: tuple[Entry, ...]  # the user's statements, oldest first, with left-out runs as gaps
    decisions: str  # the latest requirements-and-decisions text an earlier note or summary carried
    summary: str  # an earlier summary's text (without the words carried beside it)


def collect(messages: Sequence[Message]) -> Said:
    entries: list[Entry] = []
    decisions = summary = ""
    for message in messages:
        content = message.content or ""
        if message.role == "user" and content.startswith(NOTE_PREFIX):
            entries += words_section(content)
            decisions = note_decisions(content) or decisions
        elif message.role == "user" and content.startswith(SUMMARY_PREFIX):
            entries += words_section(content)
            summary = without_words_section(content[len(SUMMARY_PREFIX) :].strip())
            decisions = decisions_of(summary) or decisions
        elif is_real_user_turn(message):
            entries.append(Entry(typed_text(content)))
    return Said(tuple(entries), decisions, summary)


def words_section(text: str) -> list[Entry]:
    """The statements listed after a words line of a note or a summary (with their gap counts)."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line in WORDS_LINES:
            body: list[str] = []
            for rest in lines[index + 1 :]:
                if not rest.startswith((statements.ITEM, statements.INDENT)):
                    left_out = _old_left_out(rest)
                    parsed = statements.parse(body)
                    return [Entry(gap=left_out), *parsed] if left_out else parsed
                body.append(rest)
            return statements.parse(body)
    return []


def _old_left_out(line: str) -> int:
    head, tail = _OLD_LEFT_OUT
    middle = line[len(head) : -len(tail)] if line.startswith(head) and line.endswith(tail) else ""
    return int(middle) if middle.isdigit() else 0


def without_words_section(summary: str) -> str:
    """A summary without the user's words carried beside it (they are listed on their own)."""
    lines = summary.splitlines()
    if SUMMARY_WORDS_LINE not in lines:
        return summary
    start = lines.index(SUMMARY_WORDS_LINE)
    end = start + 1
    while end < len(lines) and lines[end].startswith((statements.ITEM, statements.INDENT)):
        end += 1
    return "\n".join([*lines[:start], *lines[end:]]).strip()


def note_decisions(note: str) -> str:
    """The decisions an earlier note carried."""
    lines = note.splitlines()
    if DECISIONS_LINE not in lines:
        return ""
    body: list[str] = []
    for line in lines[lines.index(DECISIONS_LINE) + 1 :]:
        if line.startswith(COUNTS_START):
            break
        body.append(line)
    return "\n".join(body).strip()


def decisions_of(summary: str) -> str:
    """The requirements-and-decisions section of a structured summary ('' when it has none)."""
    lines = summary.splitlines()
    for index, line in enumerate(lines):
        if line.strip() == DECISIONS_HEADING:
            body: list[str] = []
            for rest in lines[index + 1 :]:
                if rest.startswith("## ") or rest in WORDS_LINES:
                    break
                body.append(rest)
            return "\n".join(body).strip()
    return ""
