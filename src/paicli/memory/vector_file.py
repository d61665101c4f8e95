"""The vector index on disk, next to the memory file (`long_term_memory.vectors.npz`).

Saved: every live document's id and text digest, its copy and core keys (`lookalikes.copy_keys`), the vocabulary
and the postings, plus the feature key; and each document's owner reading with the key of the parser that made
it (`readings.py`; an index without them still loads, its readings are parsed when needed).
Loading never trusts the file blindly: the index is then synced against the memory file's current
entries by id and digest, so entries written by another process (or an edited file) are re-indexed one
by one and vanished ones are dropped. A file from other features, or one that cannot be read, is ignored
(the index is rebuilt and saved again). Writes are atomic (temp file + rename) and happen off the turn.
"""

from __future__ import annotations

import atexit
import json
import logging
import os
import threading
import weakref
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

from paicli.fsperm import PRIVATE_FILE
from paicli.memory import npz_map, packed_text
from paicli.memory.arrays import distinct
from paicli.memory.readings import parser_key
from paicli.memory.vector import VectorIndex, features_key

log = logging.getLogger(__name__)

SUFFIX = ".vectors.npz"
FORMAT = 3  # 3: each document's copy and core keys
EXIT_WAIT_SECONDS = 30.0
_persisters: weakref.WeakSet[Persister] = weakref.WeakSet()


def _finish_saves_at_exit() -> None:
    """A daemon thread still inside numpy when the interpreter finalizes is stopped by a forced unwind the
    moment it takes the GIL back, and unwinding through numpy's C++ code aborts the whole process
    (`terminate called without an active exception`, exit by SIGABRT). So a pending or running save is
    finished before that (which also keeps it)."""
    for persister in list(_persisters):
        persister.close(EXIT_WAIT_SECONDS)


atexit.register(_finish_saves_at_exit)


def index_path_for(memory_file: Path) -> Path:
    return memory_file.with_name(memory_file.stem + SUFFIX)


def snapshot(index: VectorIndex) -> dict[str, Any]:
    """The arrays to save (fresh copies). Caller holds the index's lock; writing them needs no lock."""
    import numpy as np

    docs, cols, tfs = index.postings()
    tdocs, tcols, ttfs = index.token_postings()
    live = [p for p, doc_id in enumerate(index.ids) if doc_id is not None]
    remap = np.full(len(index.ids), -1, dtype=np.int64)
    remap[live] = np.arange(len(live), dtype=np.int64)
    vocabulary, col_map = _compact(cols, index.vocabulary)
    words, word_map = _compact(tcols, index.words)
    packed_ids, ids_form = packed_text.pack([index.ids[p] or "" for p in live])
    meta = {
        "format": FORMAT,
        "features": features_key(),
        "fingerprint": str(index.fingerprint),
        "readings": parser_key(),
        "ids_form": ids_form,
    }
    arrays: dict[str, Any] = {
        "meta": np.array(json.dumps(meta)),
        "ids": np.frombuffer(packed_ids, dtype=np.uint8),
        "digests": np.array([index.digests[p] for p in live], dtype="S16"),
        "vocabulary": _texts(vocabulary),
        "docs": remap[docs].astype(np.int32),
        "cols": col_map[cols].astype(np.int32),
        "tfs": tfs.astype(np.float32),
        "words": _texts(words),
        "tdocs": remap[tdocs].astype(np.int32),
        "tcols": word_map[tcols].astype(np.int32),
        "ttfs": ttfs.astype(np.float32),
        "lengths": np.asarray([index.lengths[p] for p in live], dtype=np.int32),
        "copy_keys": np.frombuffer(index.copy_keys, dtype=np.int64)[live].copy(),
        "core_keys": np.frombuffer(index.core_keys, dtype=np.int64)[live].copy(),
        **index.readings.arrays(live),
    }
    return arrays


def _compact(cols: Any, table: dict[str, int]) -> tuple[list[str], Any]:
    """The names of the columns in use, and the map from old column to new."""
    import numpy as np

    used = distinct(cols)
    col_map = np.full(max(len(table), 1), -1, dtype=np.int64)
    col_map[used] = np.arange(len(used), dtype=np.int64)
    by_column = {column: name for name, column in table.items()}
    return [by_column[int(c)] for c in used], col_map


def _texts(items: list[str]) -> Any:
    import numpy as np

    return np.frombuffer(json.dumps(items, ensure_ascii=False).encode("utf-8"), dtype=np.uint8)


def _read_texts(array: Any) -> list[str]:
    items = json.loads(array.tobytes())
    if not isinstance(items, list) or not all(isinstance(i, str) for i in items):
        raise ValueError("not a list of texts")
    return items


def write(arrays: dict[str, Any], path: Path) -> None:
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE), "wb") as handle:
            np.savez(handle, **arrays)
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def load(path: Path, table: tuple[list[str | None], dict[str, int]] | None = None) -> VectorIndex | None:
    """The saved index, or None when there is none or it cannot be used (the caller builds a new one). `table`:
    the store table's ids by row and id -> row; an index saved with exactly those rows copies the map rather
    than building its own (50k entries)."""
    import numpy as np

    try:
        data = npz_map.open_npz(path)
        meta = json.loads(str(data["meta"]))
        if meta.get("format") != FORMAT or meta.get("features") != features_key():
            return None
        fingerprint = int(str(meta["fingerprint"]))
        ids = packed_text.unpack(data["ids"].data, str(meta.get("ids_form", packed_text.JSON)))
        if ids is None:
            return None
        digests = packed_text.Digests(data["digests"].astype("S16", copy=False).tobytes())
        vocabulary = _read_texts(data["vocabulary"])
        docs = data["docs"].astype(np.int32, copy=False)
        cols = data["cols"].astype(np.int32, copy=False)
        tfs = data["tfs"].astype(np.float32, copy=False)
        words = _read_texts(data["words"])
        tdocs = data["tdocs"].astype(np.int32, copy=False)
        tcols = data["tcols"].astype(np.int32, copy=False)
        ttfs = data["ttfs"].astype(np.float32, copy=False)
        lengths: list[int] = data["lengths"].astype(np.int64).tolist()
        copy_keys = array("q", data["copy_keys"].astype(np.int64).tobytes())
        core_keys = array("q", data["core_keys"].astype(np.int64).tobytes())
        index = VectorIndex()
        index.readings.load(data, len(ids), meta.get("readings"))
    except FileNotFoundError:
        return None
    except Exception:  # a damaged or foreign file only costs a rebuild
        log.warning("vector index %s unusable; rebuilding it", path, exc_info=True)
        return None
    if len(copy_keys) != len(ids) or len(core_keys) != len(ids):
        return None
    if len(digests) != len(ids) or len(lengths) != len(ids) or not len(docs) == len(cols) == len(tfs):
        return None
    if not len(tdocs) == len(tcols) == len(ttfs) or not _within(docs, cols, len(ids), len(vocabulary)):
        return None
    if not _within(tdocs, tcols, len(ids), len(words)):
        return None
    index.ids = list(ids)
    index.contents = [None] * len(ids)
    index.digests = digests
    if table is not None and table[0] == ids and None not in table[0]:  # every row live: row = position
        index.positions = table[1].copy()
    else:
        index.positions = dict(zip(ids, range(len(ids)), strict=True))
    index.vocabulary = {feature: column for column, feature in enumerate(vocabulary)}
    index.words = {word: column for column, word in enumerate(words)}
    index.lengths = lengths
    index.copy_keys = copy_keys
    index.core_keys = core_keys
    index.fingerprint = fingerprint
    if len(index.positions) != len(ids) or len(index.vocabulary) != len(vocabulary):
        return None
    if len(index.words) != len(words):
        return None
    index.load_postings(docs, cols, tfs)
    index.load_token_postings(tdocs, tcols, ttfs)
    return index


def _within(docs: Any, cols: Any, documents: int, columns: int) -> bool:
    if not len(docs):
        return True
    return bool(docs.max() < documents and cols.max() < columns and min(docs.min(), cols.min()) >= 0)


class Persister:
    """Saves an index on a background thread after a change; a change during a save triggers one more.

    The vector index by default; `take` (copy under the lock) and `put` (write, no lock) save another one.

    The save starts `delay` seconds after the request, so it neither competes with the query that caused it
    nor runs once per memory when several are saved in a row. Losing it at exit only costs the next process
    an incremental sync of the entries saved meanwhile.
    """

    def __init__(
        self,
        path: Path,
        lock: threading.Lock,
        index: Callable[[], Any],
        delay: float = 1.0,
        *,
        take: Callable[[Any], Any] | None = None,
        put: Callable[[Any, Path], None] | None = None,
    ) -> None:
        self.path = path
        self._lock = lock
        self._index = index
        self._take: Callable[[Any], Any] = take if take is not None else snapshot
        self._put: Callable[[Any, Path], None] = put if put is not None else write
        self._delay = delay
        self._hurry = threading.Event()
        self._state = threading.Condition()
        self._wanted = False
        self._running = False
        self._closed = False
        self.saves = 0
        _persisters.add(self)

    def request(self) -> None:
        with self._state:
            if self._closed:  # the process is exiting: the next one syncs the index from the memory file
                return
            self._wanted = True
            if self._running:
                return
            self._running = True
        threading.Thread(target=self._run, name="paicli-vector-save", daemon=True).start()

    def _run(self) -> None:
        self._hurry.wait(self._delay)
        while True:
            with self._state:
                if not self._wanted:
                    self._running = False
                    self._state.notify_all()
                    return
                self._wanted = False
            try:
                with self._lock:
                    index = self._index()
                    arrays = self._take(index) if index is not None else None
                if arrays is not None:
                    self._put(arrays, self.path)
                    self.saves += 1
            except Exception:  # persistence is an optimisation; retrieval keeps its in-memory index
                log.warning("could not save the vector index to %s", self.path, exc_info=True)

    def flush(self, timeout: float = 10.0) -> bool:
        """Save now if a save is pending, and wait for it (tests, benchmarks and shutdown)."""
        self._hurry.set()
        with self._state:
            return self._state.wait_for(lambda: not self._running and not self._wanted, timeout)

    def close(self, timeout: float) -> bool:
        """Finish what is pending and start no save thread after this (interpreter exit)."""
        with self._state:
            self._closed = True
        return self.flush(timeout)
