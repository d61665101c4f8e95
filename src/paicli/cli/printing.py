"""Text on a rich console: literal lines (`say`), and Markdown streamed block by block with the model's
line breaks kept."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from paicli.cli import wrapping
from paicli.config.env import process_environ
from paicli.termsafe import has_controls, show_controls, strip_terminal

_FENCE = ("```", "~~~")
_BLOCK_START = re.compile(r"^(?:[-*+]\s|\d+[.)]\s|>|#|\||```|~~~|[-*_]{3,}\s*$|=+\s*$)")


class SafeConsole(Console):
    """A rich Console whose text segments can never carry a control character to the terminal.

    Every renderable (Text, Markdown, Table, Tree, a spinner's live lines) ends up as segments through
    `render`; rich's own cursor and style codes travel as control segments or are added after this point,
    so only the content is touched. A control that got this far is shown escaped, not interpreted.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        wrapping.install()  # CJK-aware word wrap for everything this console wraps
        if kwargs.get("force_terminal") and kwargs.get("width") is None and _terminal_has_size():
            # rich pins its width to an exported COLUMNS (LINES) seen at start-up; a terminal that reports its
            # size is followed instead (a resize, or a stale value inherited from a parent such as tmux).
            kwargs.setdefault(
                "_environ", {k: v for k, v in process_environ().items() if k not in ("COLUMNS", "LINES")}
            )
        super().__init__(*args, **kwargs)

    def render(self, renderable: RenderableType, options: ConsoleOptions | None = None) -> Iterable[Segment]:
        for segment in super().render(renderable, options):
            if segment.control or not has_controls(segment.text):
                yield segment
            else:
                yield Segment(show_controls(segment.text), segment.style)


def _terminal_has_size() -> bool:
    for fd in (0, 1, 2):
        try:
            if os.get_terminal_size(fd).columns > 0:
                return True
        except OSError:
            continue
    return False


def say(console: Console, text: str, style: str | None = None, *, whole: bool = False) -> None:
    """Print literal text: no markup, no emoji codes; escape sequences and control characters are removed
    (callers show a command's with `show_controls` first). A terminal gets it wrapped between words or CJK
    characters (cli/wrapping.py), never inside a word or path, each continuation row under its line's text
    (`wrapping.hang`); a pipe, or a line with a word too long for any row (a long command), gets the text as
    is, and so does `whole` text (a command to copy)."""
    text = strip_terminal(text)
    if whole or not console.is_terminal or not wrapping.breakable(text, console.width):
        console.print(Text(text, style=style or ""), soft_wrap=True)
        return
    # Wrapped here, not by rich: a continuation row keeps the column of its line's text (a hanging indent).
    rows = [row for line in text.split("\n") for row in wrapping.hang(line, console.width)]
    console.print(Text("\n".join(rows), style=style or ""), soft_wrap=True)


def print_markdown(console: Console, text: str) -> None:
    from rich.markdown import Markdown

    console.print(Markdown(keep_line_breaks(strip_terminal(text))))


def tail_lines(text: str, width: int, count: int) -> tuple[str, ...]:
    """The last `count` lines of `text`, each cut to its last `width` cells (a line still being written is
    shown by its newest end, after a `…`)."""
    width = max(8, width)
    shown: list[str] = []
    for line in strip_terminal(text).split("\n")[-count:]:
        line = line.expandtabs(4)
        if cell_len(line) > width:
            kept = ""
            for char in reversed(line):
                if cell_len(kept) + cell_len(char) > width - 1:
                    break
                kept = char + kept
            line = "…" + kept
        shown.append(line)
    return tuple(shown)


def keep_line_breaks(text: str) -> str:
    """A single newline the model wrote stays a line break (Markdown would join the lines into one paragraph):
    outside code fences, a line followed by another non-blank line ends with a hard break."""
    lines = text.split("\n")
    out: list[str] = []
    in_fence = False
    for index, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith(_FENCE):
            in_fence = not in_fence
            out.append(line)
            continue
        following = lines[index + 1].strip() if index + 1 < len(lines) else ""
        joins = (
            not in_fence
            and stripped
            and following
            and not stripped.startswith(("|", "#"))
            and not _BLOCK_START.match(following)
            and not line.endswith("\\")
        )
        out.append(line.rstrip() + "\\" if joins else line)
    return "\n".join(out)


class MarkdownBlocks:
    """Cuts streamed text into finished Markdown blocks: a blank line outside a code fence ends one.

    Work is linear in the streamed text: each delta only looks at itself and the unfinished line.
    """

    def __init__(self) -> None:
        self._lines: list[str] = []  # finished lines of the current block
        self._partial = ""  # the line still being streamed
        self._in_fence = False
        self._has_content = False

    def feed(self, text: str) -> list[str]:
        blocks: list[str] = []
        self._partial += text
        if "\n" not in text:
            return blocks
        *finished, self._partial = self._partial.split("\n")
        for line in finished:
            block = self._take_line(line)
            if block is not None:
                blocks.append(block)
        return blocks

    def _take_line(self, line: str) -> str | None:
        stripped = line.strip()
        if stripped.startswith(_FENCE):
            self._in_fence = not self._in_fence
        if not stripped and not self._in_fence and self._has_content:
            block = "\n".join(self._lines).strip("\n")
            self._lines, self._has_content = [], False
            return block
        self._lines.append(line)
        self._has_content = self._has_content or bool(stripped)
        return None

    def pending(self) -> str:
        """The block still being streamed (finished lines and the partial one), as it stands."""
        return "\n".join([*self._lines, self._partial]).strip("\n")

    def flush(self) -> str:
        rest = "\n".join([*self._lines, self._partial]).strip("\n")
        self._lines, self._partial, self._in_fence, self._has_content = [], "", False, False
        return rest if rest.strip() else ""
