"""ToolResultBoundary (spec 7.4): every tool result enters a history wrapped as untrusted data."""

from __future__ import annotations

import re

from paicli.lazyre import lazy_pattern

_UNSAFE_NAME_CHAR = lazy_pattern(r"[^A-Za-z0-9_.:-]")
# Any spacing (also zero-width and full-width forms), case, and `_` / `-` / nothing between the words:
# `< /TOOL_RESULT>`, `<\u200b/tool_result>`, `＜／tool-result＞`, `</tool result>` all read as the tag.
_GAP = r"[\s\u200b-\u200d\u2060\ufeff]*"
_FORGED_TAG = lazy_pattern(rf"(?i)[<\uff1c\ufe64](?={_GAP}[/\uff0f]?{_GAP}tool{_GAP}[_\-]?{_GAP}result)")


def safe_name(tool_name: str | None) -> str:
    return _UNSAFE_NAME_CHAR().sub("_", tool_name or "")


def escape_content(content: str | None) -> str:
    """Neutralise forged `<tool_result` / `</tool_result` tags (the opener becomes `&lt;`); nothing else changes."""
    return _FORGED_TAG().sub("&lt;", content or "")


class ToolResultBoundary:
    @staticmethod
    def wrap(tool_name: str | None, content: str | None) -> str:
        return (
            f'<tool_result tool="{safe_name(tool_name)}" trust="untrusted-data">\n'
            f"{escape_content(content)}\n</tool_result>"
        )


def wrap(tool_name: str | None, content: str | None) -> str:
    return ToolResultBoundary.wrap(tool_name, content)


_FRAME = lazy_pattern(
    r'\A<tool_result tool="[A-Za-z0-9_.:-]*" trust="untrusted-data">\n(.*)\n</tool_result>\Z', re.S
)


def unwrap(text: str) -> str:
    """The content inside one `wrap` frame (still escaped); text that is not exactly one frame is returned as is."""
    found = _FRAME().match(text)
    return found.group(1) if found else text
