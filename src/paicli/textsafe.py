"""Text that can always be encoded as UTF-8, made so once where it enters the program.

Two kinds of code points cannot be encoded: bytes of a non-UTF-8 file name that Python smuggles through as
surrogates (`\\udcff` for byte 0xff) and lone UTF-16 surrogates from a model's output (half an emoji).
A surrogate pair split across two stream chunks is joined back into its character; escaped bytes are
shown as `\\xff`; any other lone surrogate becomes U+FFFD.
"""

from __future__ import annotations

import json
import re
from typing import Any

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


_ESCAPED_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return encodable(value)
    if isinstance(value, dict):
        return {encodable(str(k)): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


def encodable_json(text: str) -> str:
    """JSON text whose decoded strings are encodable too: a `\\ud83d` escape decodes to a lone surrogate."""
    text = encodable(text)
    if "\\u" not in text or not _ESCAPED_SURROGATE.search(text):
        return text
    try:
        decoded = json.loads(text)
    except ValueError:
        return text
    cleaned = _clean(decoded)
    return text if cleaned == decoded else json.dumps(cleaned, ensure_ascii=False)
