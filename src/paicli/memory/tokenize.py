"""Query tokenizer shared by memory retrieval and search (spec 6.1 `MemoryQueryTokenizer`).

jieba is imported on first use only, and its dictionary (0.8 s of CPU, 60 MiB) loads only for bulk text: short
texts (a query, a new memory) segment through the prefix file of `prefix_dict`, saved the first time the
dictionary loaded. Its caches live under `<paicli home>/cache/` instead of the system temp dir.
"""

from __future__ import annotations

import logging
import threading
import unicodedata
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from paicli.config.env import home_dir
from paicli.context.estimate import utf16_len
from paicli.fsperm import ensure_private_dir
from paicli.lazyre import lazy_pattern

log = logging.getLogger(__name__)

_WORD_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Nd"})
_CACHE_FILE = "jieba.cache"

_lock = threading.Lock()
_lcut: Callable[[str], list[str]] | None = None


def is_word_char(ch: str) -> bool:
    """Java `Character.isLetterOrDigit` (Han characters are category Lo, so they count too)."""
    return unicodedata.category(ch) in _WORD_CATEGORIES


def _import_jieba(directory: Path) -> Any:
    import jieba

    jieba.setLogLevel(logging.WARNING)
    logging.getLogger("jieba").setLevel(logging.WARNING)
    try:
        ensure_private_dir(directory)
        jieba.dt.tmp_dir = str(directory)
        jieba.dt.cache_file = _CACHE_FILE
    except OSError:
        pass  # jieba falls back to the system temp dir; retrieval still works
    return jieba


def _load_jieba(cache_dir: Path | None = None) -> Callable[[str], list[str]]:
    """jieba with its whole dictionary loaded; the first load also saves the prefix file the disk cut reads."""
    global _lcut
    with _lock:
        if _lcut is None:
            directory = cache_dir or home_dir() / "cache"
            jieba = _import_jieba(directory)
            jieba.dt.check_initialized()
            _save_prefix(jieba, directory)
            lcut: Any = jieba.lcut
            _lcut = lcut
        return _lcut


_prefix_writer: threading.Thread | None = None


def _save_prefix(jieba: Any, directory: Path) -> None:
    """Write the prefix file on a daemon thread (0.4 s of CPU, once per home): the load that needed the whole
    dictionary goes on at once. A process that exits first leaves no file (the next load writes it)."""
    global _prefix_writer
    if _prefix_writer is None:
        _prefix_writer = threading.Thread(
            target=_write_prefix, args=(jieba, directory), name="paicli-prefix-dict", daemon=True
        )
        _prefix_writer.start()


def _write_prefix(jieba: Any, directory: Path) -> None:
    import sqlite3

    from paicli.memory import prefix_dict

    path = directory / prefix_dict.FILE_NAME
    try:
        if prefix_dict.open_cut(path, jieba) is None:
            prefix_dict.write(path, jieba.dt.FREQ, jieba.dt.total, prefix_dict.stamp(jieba))
    except (OSError, sqlite3.Error):
        log.warning("could not save jieba's prefix dictionary", exc_info=True)


def wait_for_prefix_file(timeout: float) -> bool:
    """Wait for a prefix file being written (tests, benchmarks). True when none is being written any more."""
    writer = _prefix_writer
    if writer is not None:
        writer.join(timeout)
    return writer is None or not writer.is_alive()


# Texts up to this many characters in all segment through the prefix file; past it (bulk indexing) loading the
# whole dictionary once is cheaper than looking words up one by one.
DISK_CUT_BUDGET = 20_000
_disk: Callable[[str], list[str]] | None = None
_disk_tried = False
_disk_left = DISK_CUT_BUDGET


def _disk_cut(text: str) -> Callable[[str], list[str]] | None:
    """jieba's cut over the prefix file while the whole dictionary is not loaded and the budget lasts."""
    global _disk, _disk_tried, _disk_left
    with _lock:
        if _lcut is not None or len(text) > _disk_left:
            return None
        if not _disk_tried:
            from paicli.memory import prefix_dict

            _disk_tried = True
            directory = home_dir() / "cache"
            _disk = prefix_dict.open_cut(directory / prefix_dict.FILE_NAME, _import_jieba(directory))
        if _disk is not None:
            _disk_left -= len(text)
        return _disk


# jieba's own block patterns (jieba/__init__.py and jieba/finalseg): text without a Han character in jieba's
# range segments without the dictionary, except for the dictionary's few ASCII words.
_JIEBA_HAN = lazy_pattern("[\u4e00-\u9fd5]")
_JIEBA_BLOCK = lazy_pattern("([\u4e00-\u9fd5a-zA-Z0-9+#&\\._%\\-]+)")
_JIEBA_SKIP = lazy_pattern("(\r\n|\\s)")
_JIEBA_RUN = lazy_pattern("([a-zA-Z0-9]+(?:\\.\\d+)?%?)")
_ASCII_WORDS = lazy_pattern(r"(?i)c#|c\+\+|at&t")


def needs_dictionary(text: str) -> bool:
    """Whether segmenting `text` needs jieba's dictionary (a Han character, or one of its ASCII words)."""
    return _JIEBA_HAN().search(text) is not None or _ASCII_WORDS().search(text) is not None


def _segment_without_dictionary(text: str) -> list[str]:
    """Exactly what jieba's precise mode (HMM on) yields for text with no Han character and none of the
    dictionary's ASCII words: every block is one unknown run that its HMM stage splits into letter/digit runs."""
    words: list[str] = []
    blocks, runs, skips = _JIEBA_BLOCK(), _JIEBA_RUN(), _JIEBA_SKIP()
    for block in blocks.split(text):
        if not block:
            continue
        if blocks.fullmatch(block):
            if len(block) == 1:
                words.append(block)
            else:
                words.extend(piece for piece in runs.split(block) if piece)
            continue
        for part in skips.split(block):
            if skips.match(part):
                words.append(part)
            else:
                words.extend(part)
    return words


def segment(text: str) -> list[str]:
    """jieba precise mode over `text` as given (no lower-casing, no filtering). Text that needs no dictionary
    (an English query such as `hello`) never loads jieba."""
    if not text:
        return []
    if not needs_dictionary(text):
        return _segment_without_dictionary(text)
    return (_disk_cut(text) or _load_jieba())(text)


def keep_token(token: str) -> bool:
    return utf16_len(token) >= 2 and any(is_word_char(ch) for ch in token)


def document_tokens(content: str) -> list[str]:
    """A memory's words as the keyword score sees them: jieba tokens of the lower-cased text."""
    return [token for token in segment(content.lower()) if keep_token(token)]


def tokenize(text: str) -> set[str]:
    """Lower-cased jieba tokens of >= 2 UTF-16 units that hold a letter, digit or Han character."""
    if not text or not text.strip():
        return set()
    return {token for token in segment(text.lower()) if keep_token(token)}


def matches(text: str, tokens: Iterable[str]) -> bool:
    """True when any token is a substring of the lower-cased text."""
    lowered = (text or "").lower()
    return any(token in lowered for token in tokens)
