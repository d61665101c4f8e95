"""The vector index on disk, next to the memory file (`long_term_memory.vectors.npz`).

Saved: every live document's id and text digest, the vocabulary and the postings, plus the feature key.
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
from collections.abc import Callable
from pathlib import Path
from typing import Any

from paicli.memory.vector import VectorIndex, features_key

log = logging.getLogger(__name__)

SUFFIX = ".vectors.npz"
FORMAT = 1
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
    live = [p for p, doc_id in enumerate(index.ids) if doc_id is not None]
    remap = np.full(len(index.ids), -1, dtype=np.int64)
    remap[live] = np.arange(len(live), dtype=np.int64)
    used = np.unique(cols)
    col_map = np.full(max(len(index.vocabulary), 1), -1, dtype=np.int64)
    col_map[used] = np.arange(len(used), dtype=np.int64)
    by_column = {column: feature for feature, column in index.vocabulary.items()}
    arrays: dict[str, Any] = {
        "meta": np.array(json.dumps({"format": FORMAT, "features": features_key()})),
        "ids": np.array([index.ids[p] for p in live], dtype=str),
        "digests": np.array([index.digests[p] for p in live], dtype=str),
        "vocabulary": np.array([by_column[int(c)] for c in used], dtype=str),
        "docs": remap[docs].astype(np.int32),
        "cols": col_map[cols].astype(np.int32),
        "tfs": tfs.astype(np.float32),
    }
    return arrays


def write(arrays: dict[str, Any], path: Path) -> None:
    import numpy as np

    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with temp.open("wb") as handle:
            np.savez(handle, **arrays)
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def load(path: Path) -> VectorIndex | None:
    """The saved index, or None when there is none or it cannot be used (the caller builds a new one)."""
    import numpy as np

    try:
        with np.load(path, allow_pickle=False) as data:
            meta = json.loads(str(data["meta"]))
            if meta.get("format") != FORMAT or meta.get("features") != features_key():
                return None
            ids = [str(i) for i in data["ids"]]
            digests = [str(d) for d in data["digests"]]
            vocabulary = [str(v) for v in data["vocabulary"]]
            docs = data["docs"].astype(np.int64)
            cols = data["cols"].astype(np.int64)
            tfs = data["tfs"].astype(np.float64)
    except FileNotFoundError:
        return None
    except Exception:  # a damaged or foreign file only costs a rebuild
        log.warning("vector index %s unusable; rebuilding it", path, exc_info=True)
        return None
    if len(digests) != len(ids) or not len(docs) == len(cols) == len(tfs):
        return None
    if len(docs) and (
        docs.max() >= len(ids) or cols.max() >= len(vocabulary) or min(docs.min(), cols.min()) < 0
    ):
        return None
    index = VectorIndex()
    index.ids = list(ids)
    index.contents = [None] * len(ids)
    index.digests = digests
    index.positions = {doc_id: position for position, doc_id in enumerate(ids)}
    index.vocabulary = {feature: column for column, feature in enumerate(vocabulary)}
    if len(index.positions) != len(ids) or len(index.vocabulary) != len(vocabulary):
        return None
    index.load_postings(docs, cols, tfs)
    return index


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
