"""Brace expansion of grep_code's `glob`, lazy and capped: a pattern of many `{a,b}` groups is refused by a
count made before anything is expanded, never by running out of memory."""

from __future__ import annotations

import re
from collections.abc import Iterator

MAX_GLOBS = 256  # patterns one `glob` may expand to; counted before anything is expanded
_BRACE = re.compile(r"\{([^{}]*)\}")


class GlobTooLarge(ValueError):
    pass


def brace_count(pattern: str) -> int:
    """How many patterns `pattern` expands to (innermost groups first, as `expand_braces` does), capped just
    past MAX_GLOBS so that 30 groups of two cost 30 multiplications, not 2^30 strings."""
    total = 1
    for group in _BRACE.findall(pattern):
        total = min(total * len(group.split(",")), MAX_GLOBS + 1)
    return total


def iter_braces(pattern: str) -> Iterator[str]:
    match = _BRACE.search(pattern)
    if not match:
        yield pattern
        return
    head, tail = pattern[: match.start()], pattern[match.end() :]
    for option in match.group(1).split(","):
        yield from iter_braces(head + option + tail)


def expand_braces(pattern: str) -> list[str]:
    """`*.{ts,tsx}` → ["*.ts", "*.tsx"]; GlobTooLarge (a one-line Chinese reason) past MAX_GLOBS patterns."""
    found: list[str] = []
    for expanded in iter_braces(pattern):
        if len(found) >= MAX_GLOBS or (not found and brace_count(pattern) > MAX_GLOBS):
            raise GlobTooLarge(
                f"❌ glob 展开后超过 {MAX_GLOBS} 个模式（{{a,b}} 组太多）：请合并成更少的组，或分几次搜索"
            )
        found.append(expanded)
    return found
