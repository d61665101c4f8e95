"""The user's statements as a fallback note or a summary carries them: verbatim within a token budget. Pure.

What is kept does not depend on wording, only on position, size, repetition and shape:
1. everything verbatim when it fits;
2. else repeats go first: a clause the user already said in an older listed statement is shown once (the older
   one keeps it; later ones show `…`), which loses nothing;
3. then routine requests are shortened to their opening: those that state no value (user_words.values_of: no
   identifier, number, path, host, quoted value or name), middle of the list first;
4. then any long statement is shortened the same way;
5. then statements are left out, middle first, so the oldest statements and the newest requests stay longest.
A run of left-out statements is one line that says how many; folding a list into the next one carries those
counts (and the shortened texts) instead of restarting them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paicli.context.user_words import values_of

ITEM = "- "  # an item of the list; its continuation lines are indented by INDENT
INDENT = "  "
ELIDED = "…"
CLIPPED = "…（已截短）"
CLIP_CHARS = 160  # a shortened statement keeps this many characters of its opening
ROUTINE_CHARS = 40  # ... and a routine one (stating no value) this many
MIN_REPEAT_CHARS = 6  # shorter clauses are not worth replacing by `…`
_GAP = "…（这里还有 {count} 条用户请求未列出，原文在会话记录里）"
_GAP_LINE = re.compile(r"^…（这里还有 (\d+) 条用户请求未列出")
# A clause ends at Chinese punctuation, a line end, or ASCII punctuation followed by a space (never inside a
# path, a host or a version).
_CLAUSE_END = re.compile(r"(?<=[。！？；，：\n])|(?<=[.;:,!?])(?=\s)")

TextSize = Callable[[str], int]


@dataclass(frozen=True)
class Entry:
    """A statement (`text`) or a run of `gap` statements left out (in this fold or an earlier one)."""

    text: str = ""
    gap: int = 0


@dataclass(frozen=True)
class Listing:
    text: str  # the rendered items ('' when there is nothing to list)
    listed: int  # statements shown (whole or shortened)
    shortened: int  # of those, shown only by their opening
    left_out: int  # statements not shown (counted in gap lines), this fold's and earlier ones'

    @property
    def complete(self) -> bool:
        """Every statement the user made is there in full (repeats shown once count as there)."""
        return self.shortened == 0 and self.left_out == 0


FULL, BRIEF, CLIP, DROP = range(4)


def render(entries: Sequence[Entry], budget: int, size: TextSize) -> Listing:
    """The list within `budget` tokens (`size` measures one item line), by the steps in the module note."""
    statements = [i for i, entry in enumerate(entries) if not entry.gap]
    cost_of: dict[str, int] = {}

    def fits(levels: list[int], limits: list[int]) -> bool:
        total = 0
        for line in _lines(entries, levels, limits):
            if line not in cost_of:
                cost_of[line] = size(line) + 1
            total += cost_of[line]
        return total <= budget

    levels, limits = [FULL] * len(entries), [CLIP_CHARS] * len(entries)
    if fits(levels, limits):
        return _listing(entries, levels, limits)
    for i in statements:
        levels[i] = BRIEF
    order = _middle_first(statements)
    routine = [i for i in order if not values_of(entries[i].text)]
    steps = [(i, CLIP, ROUTINE_CHARS) for i in routine] + [(i, CLIP, CLIP_CHARS) for i in order]
    steps += [(i, DROP, CLIP_CHARS) for i in order]
    for i, level, limit in steps:
        if fits(levels, limits):
            break
        if level == DROP or len(entries[i].text) > limit + len(CLIPPED):
            levels[i], limits[i] = max(levels[i], level), min(limits[i], limit)
    return _listing(entries, levels, limits)


def _middle_first(indices: list[int]) -> list[int]:
    """Positions ordered by how far they are from both ends of the list; the newer of two equals first."""
    n = len(indices)
    ranked = sorted(range(n), key=lambda k: (-min(k, n - 1 - k), -k))
    return [indices[k] for k in ranked]


def _clipped(text: str, limit: int) -> str | None:
    return text[:limit].rstrip() + CLIPPED if len(text) > limit + len(CLIPPED) else None


def _lines(entries: Sequence[Entry], levels: Sequence[int], limits: Sequence[int]) -> list[str]:
    lines: list[str] = []
    said: set[str] = set()  # clauses an older listed statement shows
    gap = 0
    for entry, level, limit in zip(entries, levels, limits, strict=True):
        if entry.gap or level == DROP:
            gap += entry.gap or 1
            continue
        if gap:
            lines.append(_item(_GAP.format(count=gap)))
            gap = 0
        text = _brief(entry.text, said) if level >= BRIEF else entry.text
        said.update(c.strip() for c in clauses(entry.text) if len(c.strip()) >= MIN_REPEAT_CHARS)
        if level >= CLIP:
            text = _clipped(text, limit) or text
        lines.append(_item(text))
    if gap:
        lines.append(_item(_GAP.format(count=gap)))
    return lines


def clauses(text: str) -> list[str]:
    return [part for part in _CLAUSE_END.split(text) if part]


def _brief(text: str, said: set[str]) -> str:
    """`text` with every clause an older statement already shows replaced by `…` (runs merged)."""
    parts: list[str] = []
    for clause in clauses(text):
        if clause.strip() in said and len(clause.strip()) >= MIN_REPEAT_CHARS:
            if not parts or parts[-1] != ELIDED:
                parts.append(ELIDED)
        else:
            parts.append(clause)
    return "".join(parts).strip() or ELIDED


def _item(text: str) -> str:
    return ITEM + text.replace("\n", "\n" + INDENT)


def _listing(entries: Sequence[Entry], levels: Sequence[int], limits: Sequence[int]) -> Listing:
    listed = shortened = left_out = 0
    for entry, level, limit in zip(entries, levels, limits, strict=True):
        if entry.gap:
            left_out += entry.gap
        elif level == DROP:
            left_out += 1
        else:
            listed += 1
            clipped = level >= CLIP and _clipped(entry.text, limit) is not None
            shortened += clipped or entry.text.endswith(CLIPPED)
    return Listing("\n".join(_lines(entries, levels, limits)), listed, shortened, left_out)


def parse(lines: Sequence[str]) -> list[Entry]:
    """The entries of a rendered list (the inverse of render for what it shows)."""
    texts: list[str] = []
    for line in lines:
        if line.startswith(ITEM):
            texts.append(line[len(ITEM) :])
        elif line.startswith(INDENT) and texts:
            texts[-1] += "\n" + line[len(INDENT) :]
        elif texts and not line:
            texts[-1] += "\n"
    entries: list[Entry] = []
    for text in texts:
        found = _GAP_LINE.match(text)
        entries.append(Entry(gap=int(found.group(1))) if found else Entry(text.rstrip("\n")))
    return entries
