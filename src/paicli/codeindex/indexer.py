"""Building and refreshing a project's index: unchanged files (same size and mtime, or same content hash) are
skipped, changed ones re-parsed, vanished ones dropped. `CodeIndex` runs a refresh on a background thread with
progress, and answers searches meanwhile from what is already committed."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paicli.codeindex.store import (
    SCHEMA_VERSION,
    Definition,
    FileState,
    Hit,
    IndexStore,
    IndexUnavailable,
    content_hash,
    index_path,
)
from paicli.codeindex.walker import MAX_FILE_BYTES, project_files

if TYPE_CHECKING:
    import sqlite3

log = logging.getLogger(__name__)

FULL_REFRESH_SECONDS = 60.0  # how stale a search may find files changed outside paicli
BATCH_FILES = 400  # committed together: a search during a long build sees progress
Progress = Callable[[int, int], None]  # files looked at, files in all


@dataclass(frozen=True)
class RefreshReport:
    files: int  # in the index afterwards
    parsed: int  # read and parsed in this refresh
    removed: int
    chunks: int
    symbols: int
    seconds: float
    size_bytes: int


def _state(path: Path) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


def refresh(
    store: IndexStore,
    root: Path,
    *,
    max_files: int,
    max_bytes: int = MAX_FILE_BYTES,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] = lambda: False,
) -> RefreshReport:
    """Bring the index in line with the project's files now."""
    began = time.monotonic()
    found = list(project_files(root, max_files, max_bytes))
    parsed = removed = 0
    with store.connect() as connection:
        if store.meta(connection, "schema") not in (None, SCHEMA_VERSION):
            for stale in store.file_states(connection):
                store.remove(connection, stale)
        store.set_meta(connection, "schema", SCHEMA_VERSION)
        known = store.file_states(connection)
        present = set()
        for done, (relative, path) in enumerate(found, 1):
            if cancelled():
                break
            present.add(relative)
            parsed += _refresh_file(store, connection, relative, path, known.get(relative))
            if done % BATCH_FILES == 0:
                connection.commit()
                if progress is not None:
                    progress(done, len(found))
        else:
            for relative in set(known) - present:
                store.remove(connection, relative)
                removed += 1
        store.set_meta(connection, "root", str(root))
        connection.commit()
        files, chunks, symbols = store.counts(connection)
    if progress is not None:
        progress(len(found), len(found))
    return RefreshReport(files, parsed, removed, chunks, symbols, time.monotonic() - began, _size(store.path))


def refresh_files(store: IndexStore, root: Path, relatives: list[str], max_bytes: int) -> int:
    """Re-read just these files (ones a tool wrote); a file that is gone or no longer indexable is dropped."""
    parsed = 0
    with store.connect() as connection:
        known = store.file_states(connection)
        for relative in relatives:
            path = root / relative
            stat = _state(path)
            if stat is None or stat[0] > max_bytes:
                if relative in known:
                    store.remove(connection, relative)
                continue
            parsed += _refresh_file(store, connection, relative, path, known.get(relative))
        connection.commit()
    return parsed


def _refresh_file(
    store: IndexStore, connection: sqlite3.Connection, relative: str, path: Path, known: FileState | None
) -> int:
    stat = _state(path)
    if stat is None:
        return 0
    size, mtime = stat
    if known is not None and known.size == size and known.mtime_ns == mtime:
        return 0
    try:
        data = path.read_bytes()
    except OSError:
        return 0
    if b"\0" in data[:8192]:
        return 0
    digest = content_hash(data)
    state = FileState(digest, size, mtime)
    if known is not None and known.hash == digest:
        store.touch(connection, relative, state)
        return 0
    from paicli.codeindex.chunker import parse_file  # tree-sitter's binding loads with the first parse

    try:
        parsed = parse_file(relative, data.decode("utf-8", "replace"))
    except Exception:  # a grammar that chokes on one file must not stop the index
        log.warning("could not parse %s", relative, exc_info=True)
        return 0
    store.replace(connection, relative, state, parsed)
    return 1


def _size(path: Path) -> int:
    return sum(
        candidate.stat().st_size
        for candidate in (path, path.with_name(path.name + "-wal"))
        if candidate.exists()
    )


class CodeIndex:
    """One project's index within a session: built by /index in the background, read by search_code."""

    def __init__(self, home: Path, root: Path, max_files: int, max_bytes: int = MAX_FILE_BYTES) -> None:
        self.root = root
        self.store = IndexStore(index_path(home, root))
        self.max_files = max_files
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._refreshing = threading.Lock()  # one writer at a time (a search's refresh, /index)
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.progress: tuple[int, int] = (0, 0)
        self.last: RefreshReport | None = None
        self.error: str | None = None
        self._written: set[str] = set()  # files a tool wrote since the last refresh
        self._refreshed_at = 0.0  # monotonic time of the last full refresh

    @property
    def ready(self) -> bool:
        return self.store.exists

    @property
    def running(self) -> bool:
        thread = self._thread
        return thread is not None and thread.is_alive()

    def start(self, on_done: Callable[[RefreshReport | None, str | None], None] | None = None) -> bool:
        """A refresh on a background thread; False when one is already running."""
        with self._lock:
            if self.running:
                return False
            self._stop.clear()
            self.progress = (0, 0)
            thread = threading.Thread(target=self._run, args=(on_done,), name="paicli-codeindex", daemon=True)
            self._thread = thread
            thread.start()
            return True

    def _run(self, on_done: Callable[[RefreshReport | None, str | None], None] | None) -> None:
        report, error = None, None
        try:
            report = self.refresh_now()
        except (IndexUnavailable, OSError) as failure:
            error = str(failure)
        except Exception as failure:  # the thread must report, never die silently
            log.exception("code index refresh failed")
            error = f"{type(failure).__name__}: {failure}"
        self.error = error
        if on_done is not None:
            on_done(report, error)

    def refresh_now(self) -> RefreshReport:
        with self._refreshing:
            report = refresh(
                self.store,
                self.root,
                max_files=self.max_files,
                max_bytes=self.max_bytes,
                progress=self._progress,
                cancelled=self._stop.is_set,
            )
        self.last = report
        self._refreshed_at = time.monotonic()
        return report

    def written(self, path: Path) -> None:
        """A tool wrote `path` (the runner's write watcher): the next search re-reads it first."""
        try:
            relative = path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return
        with self._lock:
            self._written.add(relative)

    def fresh(self, max_age: float = FULL_REFRESH_SECONDS) -> None:
        """Before a search: the files this session wrote are read again; every `max_age` seconds the whole
        project is checked too (edits made outside paicli)."""
        if self.running or not self.ready:
            return
        if time.monotonic() - self._refreshed_at > max_age:
            self.refresh_now()
            return
        with self._lock:
            written, self._written = sorted(self._written), set()
        if written:
            with self._refreshing:
                refresh_files(self.store, self.root, written, self.max_bytes)

    def _progress(self, done: int, total: int) -> None:
        self.progress = (done, total)

    def wait(self, timeout: float | None = None) -> bool:
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self.running

    def close(self) -> None:
        self._stop.set()
        self.wait(10)

    def search(self, query: str, top_k: int) -> list[Hit]:
        return self.store.search(query, top_k)

    def definitions(self, name: str) -> list[Definition]:
        return self.store.definitions(name) if self.ready else []
