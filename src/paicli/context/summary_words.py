"""Beyond the reference: a summary is checked against the user's words it replaces. Pure.

The values the user stated (user_words.values_of: identifiers, numbers, paths, hosts, quoted values, names)
must still be in the summary. When some are not, the summariser gets one repair request that names them; what
is still missing after that is carried verbatim beside the summary: the statements that state it, listed after
SUMMARY_WORDS_LINE within a budget (statements.render). A summary that keeps none of several values is hollow
and is not used at all (the caller falls back to the note, which lists the statements themselves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paicli.context import prompts, statements
from paicli.context.markers import SUMMARY_WORDS_LINE
from paicli.context.said import collect
from paicli.context.statements import Entry, Listing
from paicli.context.user_words import missing_values, values_of
from paicli.llm.messages import Message

HOLLOW_MIN_VALUES = 3  # with fewer values, keeping none of them is a miss to carry, not a hollow summary
MAX_LISTED_VALUES = 40  # a repair request names at most this many missing values

TextSize = Callable[[str], int]


@dataclass(frozen=True)
class WordsCheck:
    values: tuple[str, ...]  # every value the replaced statements state
    missing: tuple[str, ...]  # those the summary does not carry

    @property
    def hollow(self) -> bool:
        return len(self.values) >= HOLLOW_MIN_VALUES and len(self.missing) == len(self.values)


def replaced_statements(old: Sequence[Message]) -> list[Entry]:
    """The user's statements in the messages a summary replaces: typed words, what an earlier note or summary
    carried for them, and the lines of its requirements-and-decisions section."""
    said = collect(old)
    decisions = [Entry(line.strip()) for line in said.decisions.splitlines() if line.strip()]
    return [*said.entries, *decisions]


def check(entries: Sequence[Entry], summary: str) -> WordsCheck:
    values, missing = missing_values([e.text for e in entries if not e.gap], summary)
    return WordsCheck(tuple(values), tuple(missing))


def holding(entries: Sequence[Entry], missing: Sequence[str]) -> list[Entry]:
    """The statements that state one of the `missing` values, oldest first."""
    wanted = set(missing)
    return [e for e in entries if not e.gap and any(v in wanted for v in values_of(e.text))]


def repair_prompt(summary: str, entries: Sequence[Entry], missing: Sequence[str]) -> str:
    said = holding(entries, missing)
    return prompts.render(
        "words-repair.md",
        values="、".join(missing[:MAX_LISTED_VALUES]),
        statements="\n".join(statements.ITEM + e.text.replace("\n", " ") for e in said),
        summary=summary,
    )


def carry(
    summary: str, entries: Sequence[Entry], missing: Sequence[str], budget: int, size: TextSize
) -> tuple[str, Listing]:
    """The summary with the statements stating a `missing` value listed verbatim after it (within `budget`)."""
    listing = statements.render(holding(entries, missing), budget, size)
    if not listing.text:
        return summary, listing
    return f"{summary.rstrip()}\n\n{SUMMARY_WORDS_LINE}\n{listing.text}", listing


@dataclass(frozen=True)
class Kept:
    """A checked summary: its text (with any carried statements), or None when it is hollow."""

    text: str | None
    check: WordsCheck


def keep_words(
    draft: str,
    old: Sequence[Message],
    repair: Callable[[str], str],
    structured: Callable[[str], bool],
    budget: int,
    size: TextSize,
    kept_elsewhere: str = "",
) -> Kept:
    """`draft` checked against the user's words in `old`; `repair(prompt)` asks the summariser once ('' when
    that fails), and its answer is used when it is `structured` and misses fewer values. A value in
    `kept_elsewhere` (the pins, verbatim in the system prompt) is not missing from any summary."""
    entries = replaced_statements(old)
    result = check(entries, f"{draft}\n{kept_elsewhere}")
    if not result.missing:
        return Kept(draft, result)
    repaired = repair(repair_prompt(draft, entries, result.missing))
    if repaired.strip() and structured(repaired):
        again = check(entries, f"{repaired}\n{kept_elsewhere}")
        if len(again.missing) < len(result.missing):
            draft, result = repaired.strip(), again
    if not result.missing:
        return Kept(draft, result)
    if result.hollow:
        return Kept(None, result)
    text, _ = carry(draft, entries, result.missing, budget, size)
    return Kept(text, result)
