"""Text that can always be encoded as UTF-8, made so once where it enters the program.

Two kinds of code points cannot be encoded: bytes of a non-UTF-8 file name that Python smuggles through as
surrogates (`\\udcff` for byte 0xff) and lone UTF-16 surrogates from a model's output (half an emoji).
A surrogate pair split across two stream chunks is joined back into its character; escaped bytes are
shown as `\\xff`; any other lone surrogate becomes U+FFFD.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
_PAIR = re.compile("[\ud800-\udbff][\udc00-\udfff]")


def _join(match: re.Match[str]) -> str:
    return match.group().encode("utf-16-le", "surrogatepass").decode("utf-16-le")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else "\ufffd"


def encodable(text: str) -> str:
    """`text` unchanged when it encodes as UTF-8 (the common case costs one regex search)."""
    if not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub(_escape, _PAIR.sub(_join, text))


def encodable_or_none(text: str | None) -> str | None:
    return None if text is None else encodable(text)
