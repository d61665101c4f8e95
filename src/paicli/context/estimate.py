"""The reference's string token estimator (spec 1.1), with Java String.length() semantics."""

from __future__ import annotations

import math


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, as Java's String.length()."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def estimate_tokens(text: str | None) -> int:
    """ceil(chinese / 1.5 + other / 4) where chinese counts code units strictly between U+4E00 and U+9FFF."""
    if not text:
        return 0
    chinese = sum(1 for ch in text if 0x4E00 < ord(ch) < 0x9FFF)
    other = utf16_len(text) - chinese
    return math.ceil(chinese / 1.5 + other / 4.0)
