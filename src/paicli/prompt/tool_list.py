"""The system prompt's `## Tools` list names exactly the tools a request carries (built-in, `revert_turn`, MCP
tools, whatever the turn registered): the paragraph under the heading is replaced by their names. Pure."""

from __future__ import annotations

import re
from collections.abc import Sequence

_SECTION = re.compile(r"(?m)^## Tools[ \t]*\n\n(?P<names>(?:[^\n]+\n?)+?)(?=\n|\Z)")


def with_tool_list(prompt: str, names: Sequence[str]) -> str:
    """`prompt` with its `## Tools` paragraph listing `names` (unchanged when it has no such section)."""
    found = _SECTION.search(prompt)
    if found is None or not names:
        return prompt
    listed = " ".join(names)  # plain names: the schemas carry the rest, backticks cost tokens
    start, end = found.span("names")
    tail = "\n" if prompt[start:end].endswith("\n") else ""
    return prompt[:start] + listed + tail + prompt[end:]
