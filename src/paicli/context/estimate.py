"""The reference's string token estimator (spec 1.1), with Java String.length() semantics."""

from __future__ import annotations

import math

from paicli.lazyre import lazy_pattern

# strictly between U+4E00 and U+9FFF, as the reference compares
_CHINESE_RUN = lazy_pattern("[\u4e01-\u9ffe]+")


def utf16_len(text: str) -> int:
    """Length in UTF-16 code units, as Java's String.length() (a lone surrogate is one unit, as in Java)."""
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def estimate_tokens(text: str | None) -> int:
    """ceil(chinese / 1.5 + other / 4) where chinese counts code units strictly between U+4E00 and U+9FFF."""
    if not text:
        return 0
    chinese = sum(map(len, _CHINESE_RUN().findall(text)))
    other = utf16_len(text) - chinese
    return math.ceil(chinese / 1.5 + other / 4.0)
