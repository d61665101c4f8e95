"""jieba's precise mode over a short text without loading jieba's dictionary (issue 33).

jieba segments a sentence from its prefix dictionary (word -> frequency, plus every word's prefixes at 0, and
the total): `Tokenizer.get_DAG`, `calc` and the HMM fallback only ever look up substrings of the sentence
itself. Loading the whole dictionary costs about 0.8 s of CPU and 60 MiB, which a `-p` run with a Chinese task
and a few stored memories paid only to segment its one query. The same (FREQ, total) is therefore kept once in
a SQLite file under `<paicli home>/cache/` (written right after jieba loaded its dictionary the usual way), and
a jieba `Tokenizer` whose FREQ looks words up in that file gives the same words, from a few dozen lookups.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from paicli.fsperm import create_private_file, ensure_private_dir

FILE_NAME = "jieba-prefix.sqlite3"
_MISSING = -1


def stamp(jieba: Any) -> str:
    """What the file was derived from: jieba's version and its bundled dictionary's size."""
    dictionary = Path(jieba.__file__).parent / jieba.DEFAULT_DICT_NAME
    return f"jieba {jieba.__version__} dict {dictionary.stat().st_size}"


class DiskFreq:
    """The part of a dict jieba's cut uses (`in`, `[]`, `get`), answered from the SQLite file."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection
        self._lock = threading.Lock()
        self._known: dict[str, int] = {}

    def _find(self, word: object) -> int:
        if not isinstance(word, str):
            return _MISSING
        found = self._known.get(word)
        if found is not None:
            return found
        with self._lock:
            row = self._connection.execute("SELECT n FROM freq WHERE word = ?", (word,)).fetchone()
        found = self._known[word] = _MISSING if row is None else int(row[0])
        return found

    def __contains__(self, word: object) -> bool:
        return self._find(word) != _MISSING

    def __getitem__(self, word: str) -> int:
        found = self._find(word)
        if found == _MISSING:
            raise KeyError(word)
        return found

    def get(self, word: str, default: int | None = None) -> int | None:
        found = self._find(word)
        return default if found == _MISSING else found


def open_cut(path: Path, jieba: Any) -> Callable[[str], list[str]] | None:
    """jieba's `lcut` (precise mode, HMM on) over the file at `path`, or None when it is missing, unreadable
    or derived from another jieba or dictionary (the caller then loads the dictionary as usual)."""
    if not path.is_file():
        return None
    try:
        connection = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True, check_same_thread=False)
        rows = dict(connection.execute("SELECT key, value FROM meta").fetchall())
        if rows.get("stamp") != stamp(jieba):
            connection.close()
            return None
        total = int(rows["total"])
    except (sqlite3.Error, KeyError, ValueError, OSError):
        return None
    tokenizer = jieba.Tokenizer()
    tokenizer.FREQ = DiskFreq(connection)
    tokenizer.total = total
    tokenizer.initialized = True
    lcut: Callable[[str], list[str]] = tokenizer.lcut
    return lcut


def write(path: Path, freq: Mapping[str, int], total: int, source: str) -> None:
    """Write the prefix dictionary to `path` (0600), replacing it whole: a reader sees the old file or the new."""
    ensure_private_dir(path.parent)
    _drop_abandoned(path)
    partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with contextlib.suppress(FileNotFoundError):
        partial.unlink()
    create_private_file(partial)
    try:
        connection = sqlite3.connect(partial)
        try:
            connection.execute("CREATE TABLE freq (word TEXT PRIMARY KEY, n INTEGER NOT NULL) WITHOUT ROWID")
            connection.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            connection.executemany("INSERT INTO freq VALUES (?, ?)", freq.items())
            connection.executemany(
                "INSERT INTO meta VALUES (?, ?)", (("stamp", source), ("total", str(total)))
            )
            connection.commit()
        finally:
            connection.close()
        os.replace(partial, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            partial.unlink()


_ABANDONED_SECONDS = 600.0


def _drop_abandoned(path: Path) -> None:
    """Partial files a process left when it exited mid-write (the writer is a daemon thread)."""
    now = time.time()
    for partial in path.parent.glob(f"{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            if now - partial.stat().st_mtime > _ABANDONED_SECONDS:
                partial.unlink()
