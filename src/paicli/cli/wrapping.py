"""East-Asian-aware line breaking for the terminal. Pure, except `install`.

rich breaks a line only at spaces, so a run of Chinese after the last space moves whole to the next line and
leaves the first one half empty. Here a line may also break between two wide (CJK) characters and between a
wide character and a Latin word, but never inside a run of non-wide characters (a word, a path, an option
like `--dry-run`), never before closing punctuation nor after opening punctuation. Cell widths come from
rich.cells (wcwidth-style tables); nothing here measures by hand.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from rich.cells import cell_len, chop_cells, get_character_cell_size

# A line never starts with these (they close what came before) ...
NO_BREAK_BEFORE = frozenset("，。、；：？！）」』】》〉〕］｝”’…‥·～—%,.;:?!)]}'\"")
# ... and never ends with these (they open what follows).
NO_BREAK_AFTER = frozenset("（「『【《〈〔［｛“‘([{")


def _wide(char: str) -> bool:
    return get_character_cell_size(char) == 2


def can_break_before(text: str, index: int) -> bool:
    """Whether a line may start at `text[index]` (0 < index < len(text))."""
    before, after = text[index - 1], text[index]
    if after.isspace():
        return False
    if before.isspace():
        return True
    if after in NO_BREAK_BEFORE or before in NO_BREAK_AFTER:
        return False
    return _wide(before) or _wide(after)


def units(text: str) -> list[tuple[int, str]]:
    """The pieces a line is filled with, as (start, piece): a piece ends where a break is allowed and keeps
    the spaces that follow it."""
    pieces: list[tuple[int, str]] = []
    start = 0
    for index in range(1, len(text)):
        if can_break_before(text, index):
            pieces.append((start, text[start:index]))
            start = index
    if text:
        pieces.append((start, text[start:]))
    return pieces


def breakable(text: str, width: int) -> bool:
    """Whether every line of `text` can be wrapped to `width` without cutting a piece (a word or path wider
    than a whole row is better left to the terminal, which keeps it in one piece for copying)."""
    return all(cell_len(piece.rstrip()) <= width for line in text.split("\n") for _, piece in units(line))


def divide_line(text: str, width: int, fold: bool = True) -> list[int]:
    """rich's `divide_line` contract: the offsets at which `text` is cut into lines of at most `width` cells.
    A piece wider than a whole line is folded by cells when `fold`, else left to overflow (rich crops it)."""
    breaks: list[int] = []
    used = 0
    for start, piece in units(text):
        length = cell_len(piece.rstrip())
        if used + length <= width:
            used += cell_len(piece)
            continue
        if length > width and fold:
            if start and used:
                breaks.append(start)
            *full, last = chop_cells(piece, width)
            for chunk in full:
                start += len(chunk)
                breaks.append(start)
            used = cell_len(last)
        else:
            if start and used:
                breaks.append(start)
            used = cell_len(piece)
    return breaks


def wrap(text: str, width: int) -> list[str]:
    """`text` (one line) as terminal rows of at most `width` cells, trailing spaces dropped."""
    cuts = [0, *divide_line(text, max(1, width)), len(text)]
    return [text[a:b].rstrip() for a, b in itertools.pairwise(cuts) if a < b] or [""]


def hanging_indent(line: str) -> int:
    """The cells a wrapped line's continuation rows are indented by: the line's own indent, and after it a
    short marker that is not a word (`›`, `⎿`, `⏺`, `-`, `1.`, an emoji) with its space, so the text of a
    replayed turn, a tool line or a nested list item stays in its column."""
    body = line.lstrip(" ")
    indent = len(line) - len(body)
    marker, space, _ = body.partition(" ")
    if space and marker and (_is_symbol(marker) or _is_number(marker)):
        return indent + cell_len(marker) + 1
    return indent


def _is_symbol(token: str) -> bool:
    return cell_len(token) <= 2 and not any(char.isalnum() for char in token)


def _is_number(token: str) -> bool:
    return len(token) <= 4 and token[:-1].isdigit() and token[-1] in ".)"


def hang(line: str, width: int) -> list[str]:
    """`line` (one line) as rows of at most `width` cells whose continuation rows start under its text
    (`hanging_indent`); without room for that (an indent over half the row, or a piece wider than what is
    left) the rows start at column 0 as `wrap` cuts them."""
    indent = hanging_indent(line)
    rows = wrap(line, width)
    if len(rows) == 1 or not 0 < indent <= width // 2:
        return rows
    room = width - indent
    cut = divide_line(line, width)[0]
    rest = line[cut:].lstrip(" ")
    if any(cell_len(piece.rstrip()) > room for _, piece in units(rest)):
        return rows
    return [line[:cut].rstrip(), *(" " * indent + row for row in wrap(rest, room))]


def pack(labels: Sequence[str], width: int, gap: str = "  ") -> list[str]:
    """Whole labels (approval options) packed into rows of at most `width` cells; a label is only ever cut
    (by `wrap`) when it is wider than a row on its own."""
    out: list[str] = []
    row = ""
    for label in labels:
        joined = f"{row}{gap}{label}" if row else label
        if cell_len(joined) <= width:
            row = joined
            continue
        if row:
            out.append(row)
        pieces = wrap(label, width)
        if len(pieces) == 1:
            row = pieces[0]
            continue
        out.extend(pieces)  # a label that takes several rows has them to itself
        row = ""
    if row:
        out.append(row)
    return out


def install() -> None:
    """Make rich's word wrap (every Text, Markdown paragraph, table cell) use `divide_line`.

    rich looks the function up as a global of rich.text on every wrap, and offers no setting for it; this is
    the one place it is swapped. tests/cli/test_wrapping.py renders through rich to prove it took effect and
    names the rich versions the hook was checked against (a new major fails there until it is checked)."""
    import rich.text

    rich.text.divide_line = divide_line  # type: ignore[attr-defined]
