"""Query tokenizer shared by memory retrieval and search (spec 6.1 `MemoryQueryTokenizer`).

jieba is imported on first use only: it is slow to load and must stay off the start-up path. Its
dictionary cache lives under `<paicli home>/cache/` instead of the system temp dir.
"""

from __future__ import annotations

import logging
import threading
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from paicli.config.env import paicli_home
from paicli.context.estimate import utf16_len
from paicli.fsperm import ensure_private_dir

_WORD_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})
_CACHE_FILE = "jieba.cache"

_lock = threading.Lock()
_lcut: Callable[[str], list[str]] | None = None


def is_word_char(ch: str) -> bool:
    """Java `Character.isLetterOrDigit` (Han characters are category Lo, so they count too)."""
    return unicodedata.category(ch) in _WORD_CATEGORIES


def _load_jieba(cache_dir: Path | None = None) -> Callable[[str], list[str]]:
    global _lcut
    with _lock:
        if _lcut is None:
            import jieba

            jieba.setLogLevel(logging.WARNING)
            logging.getLogger("jieba").setLevel(logging.WARNING)
            directory = cache_dir or paicli_home() / "cache"
            try:
                ensure_private_dir(directory)
                jieba.dt.tmp_dir = str(directory)
                jieba.dt.cache_file = _CACHE_FILE
            except OSError:
                pass  # jieba falls back to the system temp dir; retrieval still works
            lcut: Any = jieba.lcut
            _lcut = lcut
        return _lcut


def segment(text: str) -> list[str]:
    """jieba precise mode over `text` as given (no lower-casing, no filtering)."""
    if not text:
        return []
    return _load_jieba()(text)


def keep_token(token: str) -> bool:
    return utf16_len(token) >= 2 and any(is_word_char(ch) for ch in token)


def tokenize(text: str) -> set[str]:
    """Lower-cased jieba tokens of >= 2 UTF-16 units that hold a letter, digit or Han character."""
    if not text or not text.strip():
        return set()
    return {token for token in segment(text.lower()) if keep_token(token)}


def matches(text: str, tokens: Iterable[str]) -> bool:
    """True when any token is a substring of the lower-cased text."""
    lowered = (text or "").lower()
    return any(token in lowered for token in tokens)
