"""The index on disk: one SQLite file per project (`<paicli home>/codeindex/<key>/index.sqlite`). Chunks are
ranked by SQLite's FTS5 `bm25()` over their search terms (codeindex/tokens.py) in three weighted columns:
symbol, path and body. A file's rows are replaced together when its content hash changes, so a refresh
touches only the files that changed. WAL mode: searches read while a refresh writes."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from paicli.fsperm import ensure_private_dir
from paicli.tools.code_search_spec import index_path as index_path

if TYPE_CHECKING:  # sqlite3, the parser and the tokenizer load on the first use, not at start-up
    import sqlite3

    from paicli.codeindex.chunker import Parsed

SCHEMA_VERSION = "1"
WEIGHTS = (4.0, 1.5, 1.0)  # symbol, path, body: a query word that names the symbol counts most
_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, hash TEXT, size INTEGER, mtime_ns INTEGER,
    language TEXT);
CREATE TABLE IF NOT EXISTS chunks(id INTEGER PRIMARY KEY, path TEXT, start INTEGER, end INTEGER,
    symbol TEXT, kind TEXT, text TEXT);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks(path);
CREATE VIRTUAL TABLE IF NOT EXISTS chunk_terms USING fts5(symbol, path, body,
    tokenize = "unicode61 remove_diacritics 0 tokenchars ':_'");
CREATE TABLE IF NOT EXISTS symbols(name TEXT, qualified TEXT, kind TEXT, path TEXT, line INTEGER);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name);
CREATE INDEX IF NOT EXISTS symbols_path ON symbols(path);
CREATE TABLE IF NOT EXISTS calls(chunk INTEGER, name TEXT);
CREATE INDEX IF NOT EXISTS calls_name ON calls(name);
CREATE INDEX IF NOT EXISTS calls_chunk ON calls(chunk);
CREATE TABLE IF NOT EXISTS imports(path TEXT, text TEXT);
CREATE INDEX IF NOT EXISTS imports_path ON imports(path);
"""


class IndexUnavailable(Exception):
    """The index file cannot be used (no FTS5 in this SQLite, a damaged file)."""


@dataclass(frozen=True)
class FileState:
    hash: str
    size: int
    mtime_ns: int


@dataclass(frozen=True)
class Hit:
    path: str
    start: int
    end: int
    symbol: str
    kind: str
    text: str
    score: float


@dataclass(frozen=True)
class Definition:
    qualified: str
    kind: str
    path: str
    line: int


def content_hash(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


class IndexStore:
    def __init__(self, path: Path) -> None:
        self.path = path

    @property
    def exists(self) -> bool:
        return self.path.is_file()

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        import sqlite3

        ensure_private_dir(self.path.parent)
        try:
            connection = sqlite3.connect(self.path, timeout=30)
        except sqlite3.Error as error:
            raise IndexUnavailable(f"无法打开代码索引 {self.path}: {error}") from None
        try:
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=NORMAL")
            try:
                connection.executescript(_SCHEMA)
            except sqlite3.OperationalError as error:
                raise IndexUnavailable(f"代码索引不可用（SQLite 缺少 FTS5？）: {error}") from None
            yield connection
        finally:
            connection.close()

    def file_states(self, connection: sqlite3.Connection) -> dict[str, FileState]:
        rows = connection.execute("SELECT path, hash, size, mtime_ns FROM files")
        return {path: FileState(digest, size, mtime) for path, digest, size, mtime in rows}

    def touch(self, connection: sqlite3.Connection, path: str, state: FileState) -> None:
        connection.execute(
            "UPDATE files SET size = ?, mtime_ns = ? WHERE path = ?", (state.size, state.mtime_ns, path)
        )

    def remove(self, connection: sqlite3.Connection, path: str) -> None:
        ids = [row[0] for row in connection.execute("SELECT id FROM chunks WHERE path = ?", (path,))]
        if ids:
            marks = ",".join("?" * len(ids))
            connection.execute(f"DELETE FROM chunk_terms WHERE rowid IN ({marks})", ids)
            connection.execute(f"DELETE FROM calls WHERE chunk IN ({marks})", ids)
        for table in ("chunks", "symbols", "imports", "files"):
            connection.execute(f"DELETE FROM {table} WHERE path = ?", (path,))

    def replace(self, connection: sqlite3.Connection, path: str, state: FileState, parsed: Parsed) -> None:
        from paicli.codeindex.tokens import terms

        self.remove(connection, path)
        connection.execute(
            "INSERT INTO files VALUES (?, ?, ?, ?, ?)",
            (path, state.hash, state.size, state.mtime_ns, parsed.language),
        )
        path_terms = " ".join(terms(path))
        for chunk in parsed.chunks:
            cursor = connection.execute(
                "INSERT INTO chunks(path, start, end, symbol, kind, text) VALUES (?, ?, ?, ?, ?, ?)",
                (path, chunk.start, chunk.end, chunk.symbol, chunk.kind, chunk.text),
            )
            row = cursor.lastrowid
            connection.execute(
                "INSERT INTO chunk_terms(rowid, symbol, path, body) VALUES (?, ?, ?, ?)",
                (row, " ".join(terms(chunk.symbol)), path_terms, " ".join(terms(chunk.text))),
            )
            connection.executemany("INSERT INTO calls VALUES (?, ?)", ((row, name) for name in chunk.calls))
        connection.executemany(
            "INSERT INTO symbols VALUES (?, ?, ?, ?, ?)",
            ((s.name, s.qualified, s.kind, path, s.line) for s in parsed.symbols),
        )
        connection.executemany("INSERT INTO imports VALUES (?, ?)", ((path, t) for t in parsed.imports))

    def set_meta(self, connection: sqlite3.Connection, key: str, value: str) -> None:
        connection.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def meta(self, connection: sqlite3.Connection, key: str) -> str | None:
        row = connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def counts(self, connection: sqlite3.Connection) -> tuple[int, int, int]:
        files = connection.execute("SELECT count(*) FROM files").fetchone()[0]
        chunks = connection.execute("SELECT count(*) FROM chunks").fetchone()[0]
        symbols = connection.execute("SELECT count(*) FROM symbols").fetchone()[0]
        return int(files), int(chunks), int(symbols)

    def search(self, query: str, top_k: int) -> list[Hit]:
        from paicli.codeindex.tokens import query_terms

        words = query_terms(query)
        if not words or not self.exists:
            return []
        match = " OR ".join('"' + word.replace('"', '""') + '"' for word in words)
        sql = (
            "SELECT c.path, c.start, c.end, c.symbol, c.kind, c.text, bm25(chunk_terms, ?, ?, ?) AS score "
            "FROM chunk_terms JOIN chunks c ON c.id = chunk_terms.rowid WHERE chunk_terms MATCH ? "
            "ORDER BY score LIMIT ?"
        )
        with self.connect() as connection:
            rows = connection.execute(sql, (*WEIGHTS, match, top_k)).fetchall()
        return [Hit(p, s, e, sym, kind, text, -float(score)) for p, s, e, sym, kind, text, score in rows]

    def definitions(self, name: str) -> list[Definition]:
        with self.connect() as connection:
            rows = connection.execute(
                "SELECT qualified, kind, path, line FROM symbols WHERE name = ? OR qualified = ? "
                "ORDER BY path, line LIMIT 50",
                (name.rsplit(".", 1)[-1], name),
            ).fetchall()
        wanted = [r for r in rows if r[0] == name or "." not in name]
        return [Definition(*row) for row in (wanted or rows)]

    def callers(self, name: str, limit: int = 30) -> list[Hit]:
        with self.connect() as connection:
            rows = connection.execute(
                "SELECT DISTINCT c.path, c.start, c.end, c.symbol, c.kind FROM calls k "
                "JOIN chunks c ON c.id = k.chunk WHERE k.name = ? ORDER BY c.path, c.start LIMIT ?",
                (name.rsplit(".", 1)[-1], limit),
            ).fetchall()
        return [Hit(p, s, e, sym, kind, "", 0.0) for p, s, e, sym, kind in rows]

    def imports_of(self, paths: Iterable[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {}
        with self.connect() as connection:
            for path in paths:
                rows = connection.execute("SELECT text FROM imports WHERE path = ?", (path,))
                found[path] = [row[0] for row in rows]
        return found

    def importers(self, name: str, limit: int = 30) -> list[tuple[str, str]]:
        """(path, import line) of the files whose imports name `name`."""
        short = name.rsplit(".", 1)[-1]
        with self.connect() as connection:
            rows = connection.execute(
                "SELECT path, text FROM imports WHERE text LIKE ? ORDER BY path LIMIT ?",
                (f"%{short}%", limit * 4),
            ).fetchall()
        word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(short)}(?![A-Za-z0-9_])")
        return [(path, text) for path, text in rows if word.search(text)][:limit]
