"""Long-term memory retrieval (spec 6.1 + the article's local vector score) and its budgeted rendering.

Ranking lives in `scoring.py` (the reference's keyword score, the local vector, issue 37's rules). This module
keeps the vector index in step with the entries: with a store that offers its column table (`read_table`),
only the entries changed since the last query are re-indexed (the table's change log), and a saved index whose
fingerprint equals the table's is used as it is; any other source (a list of entries) gets a table of its own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from paicli.config.run_values import MemoryValues
from paicli.memory import retriever_lineage, scoring
from paicli.memory.lookalikes import spread_classes
from paicli.memory.recall_block import MemoryEntryLike, Ranked, aware, render
from paicli.memory.scoring import CONFIRMATION_BOOST, VECTOR_FLOOR
from paicli.memory.table import EntryTable, is_truth
from paicli.memory.tokenize import segment

if TYPE_CHECKING:
    from paicli.memory.vector import IntArray, VectorIndex
    from paicli.memory.vector_file import Persister

MAX_RESULTS = 10
SPREAD_SCAN = 20 * MAX_RESULTS  # results of a class looked at for look-alikes, at most (lookalikes.py)

__all__ = ["CONFIRMATION_BOOST", "MAX_RESULTS", "VECTOR_FLOOR", "MemoryRetriever", "is_truth", "time_decay"]


class MemorySource(Protocol):
    def get_all(self, project_key: str | None) -> Sequence[MemoryEntryLike]:
        """The entries visible in a project; None: every entry."""
        ...


@runtime_checkable
class TableSource(Protocol):
    """A store that keeps its own column table (the long-term memory store): queries read it in place."""

    def read_table(self, read: Callable[[EntryTable, Any], Any]) -> Any: ...


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def time_decay(entry: MemoryEntryLike, now: datetime) -> float:
    age_hours = max(0.0, (aware(now) - aware(entry.timestamp)).total_seconds() / 3600.0)
    return max(0.5, 1.0 - age_hours / 24.0)


class MemoryRetriever:
    """Finds the memories relevant to a query and renders the `## 相关长期记忆` block.

    With `index_path`, the vector index is loaded from there on first use (or by `warm`) and saved back in
    the background after it changed; otherwise it lives in memory only. Either way it is updated entry by
    entry, never rebuilt because one memory was saved or deleted.
    """

    def __init__(
        self,
        store: MemorySource,
        values: MemoryValues | None = None,
        clock: Callable[[], datetime] = _utc_now,
        zone: tzinfo | None = None,
        index_path: Path | None = None,
    ) -> None:
        self._store = store
        self._values = values if values is not None else MemoryValues()
        self._clock = clock
        self._zone = zone
        self.vector_enabled = self._values.vector
        self._lock = threading.Lock()
        self._vectors: VectorIndex | None = None
        self._index_path = index_path if self.vector_enabled else None
        self._persister: Persister | None = None
        self._synced: tuple[EntryTable, int] | None = None  # the table the index follows, at which revision
        self._mapped: tuple[EntryTable, int] | None = None  # the table `_positions` maps, at which revision
        self._positions: IntArray | None = None  # table row -> index position (-1: not indexed)
        self._own: tuple[list[MemoryEntryLike], EntryTable] | None = None  # for a plain list source
        self._lineage: tuple[EntryTable, int, IntArray | None] | None = None  # heirs at a table's revision
        self.last_injected: list[str] = []  # contents rendered by the last build_context, in order
        self.index_builds = 0  # indexes built from nothing (no usable saved one)
        self.save_delay = 1.0  # seconds between a change and saving the index (coalesces bursts of saves)

    @property
    def index_updates(self) -> int:
        """Documents added, replaced or dropped one by one since the index was loaded or built."""
        return self._vectors.updates if self._vectors is not None else 0

    @property
    def readings_parsed(self) -> int:
        """Owner readings parsed in this process (the index's documents; saved ones are not parsed again)."""
        return self._vectors.readings.parsed if self._vectors is not None else 0

    def warm(self, project_key: str | None = None) -> None:
        """Load jieba's dictionary and the vector index (synced with the store) before the first query."""
        self.warm_tokenizer()
        self.warm_index(project_key)

    def warm_tokenizer(self) -> None:
        segment("预热")

    def warm_index(self, project_key: str | None = None) -> None:
        """Everything a first query would otherwise prepare: the index (loaded or built, synced with the
        store, idf and norms derived) and the joined lower-cased texts the keyword score scans."""

        def prepare(table: EntryTable, _: Mapping[str, MemoryEntryLike], __: IntArray) -> None:
            table.lowered()
            if self.vector_enabled:
                self._positions_for(table)

        with self._lock:
            self._read(prepare, project_key)
            if self._vectors is not None:
                self._vectors.prepare()

    def flush_index(self, timeout: float = 10.0) -> bool:
        """Wait for a pending background save of the index (benchmarks, tests, shutdown)."""
        return self._persister.flush(timeout) if self._persister is not None else True

    def build_context(self, query: str, max_tokens: int, project_key: str, exclude_text: str = "") -> str:
        if not query or not query.strip():
            return ""
        now = self._clock()
        top = self.top(query, project_key, exclude_text)
        days = self._values.stale_days
        root = Path(project_key) if project_key else None
        shown: list[str] = []
        block = render(top, max_tokens, now, days, self._zone, root, shown)
        self.last_injected = shown
        return block

    def top(self, query: str, project_key: str, exclude_text: str = "") -> list[Ranked]:
        """The entries `build_context` would render, best first."""
        if not query or not query.strip():
            return []
        now = self._clock()

        def best(table: EntryTable, entries: Mapping[str, MemoryEntryLike], rows: IntArray) -> list[Ranked]:
            ranked = self._ranked(table, rows, query, now, project_key, entries)
            return _first_not_visible(ranked, exclude_text) if exclude_text else _first(ranked, MAX_RESULTS)

        with self._lock:
            found: list[Ranked] = self._read(best, project_key, query)
            return found

    def rank(
        self, query: str, entries: Sequence[MemoryEntryLike], now: datetime, project_key: str | None = None
    ) -> list[Ranked]:
        """Every truth among `entries` with score > 0, best first (stable)."""
        if not entries or not query.strip():
            return []
        with self._lock:
            table = self._table_for(entries)
            if self.vector_enabled:
                self._apply(self._plan(table))
            by_id = {entry.id: entry for entry in entries}
            rows = table.visible(project_key) if project_key else _truth_rows(table)
            return list(self._ranked(table, rows, query, now, project_key, by_id))

    # ---- internals (caller holds self._lock) ----------------------------------------------------

    def _read(
        self,
        read: Callable[[EntryTable, Mapping[str, MemoryEntryLike], IntArray], Any],
        project_key: str | None,
        query: str = "",
    ) -> Any:
        """`read(table, entries by id, the rows visible in the project)` over the store's own table, or over a
        table of `get_all(project_key)` for any other source. The slow steps (re-indexing, loading jieba for
        the query) come first, outside the store's lock; an empty store never loads jieba."""
        if isinstance(self._store, TableSource):
            reader = self._store.read_table
            plan = reader(
                lambda table, _: self._plan(table) if self.vector_enabled and len(table) else len(table)
            )
            if isinstance(plan, _Plan):
                self._apply(plan)
            if plan and query:
                segment(query)
            return reader(lambda table, entries: read(table, entries, table.visible(project_key)))
        entries = list(self._store.get_all(project_key))
        table = self._table_for(entries)
        if self.vector_enabled:
            self._apply(self._plan(table))
        return read(table, {entry.id: entry for entry in entries}, _truth_rows(table))

    def _table_for(self, entries: Sequence[MemoryEntryLike]) -> EntryTable:
        """A table of these entries, kept while they are the same objects."""
        own = self._own
        if (
            own is not None
            and len(own[0]) == len(entries)
            and all(a is b for a, b in zip(own[0], entries, strict=True))
        ):
            return own[1]
        table = EntryTable()
        table.rebuild(entries)
        self._own = (list(entries), table)
        return table

    def _ranked(
        self,
        table: EntryTable,
        rows: IntArray,
        query: str,
        now: datetime,
        project_key: str | None,
        entries: Mapping[str, MemoryEntryLike],
    ) -> Iterable[Ranked]:
        index = self._vectors if self.vector_enabled else None
        positions = self._positions_for(table) if index is not None else None
        found = scoring.score(
            table, rows, query, now, project_key, index, positions, self._heirs(table, entries)
        )
        ids = table.ids

        def items(start: int, stop: int | None) -> Iterator[Ranked]:
            for row, total, keyword in zip(
                found.rows[start:stop].tolist(),
                found.scores[start:stop].tolist(),
                found.keyword[start:stop].tolist(),
                strict=True,
            ):
                if (entry_id := ids[row]) is not None:
                    yield Ranked(entries[entry_id], total, keyword)

        if not self.vector_enabled:
            yield from items(0, None)  # the reference's order
            return

        def tie(item: Ranked) -> tuple[float, bool]:
            meta = item.entry.metadata
            own = (
                bool(project_key)
                and meta.get("scope", "").lower() == "project"
                and meta.get("project") == project_key
            )
            return round(item.keyword_score, 9), own

        def content(item: Ranked) -> str:
            return item.entry.content

        # the matches that share a term come first, then matches by meaning, then copies made elsewhere
        # (scoring.py); look-alikes move after every class
        sharing, distinct = found.classes
        classes = (items(0, sharing), items(sharing, distinct), items(distinct, None))

        def home(item: Ranked) -> bool:
            return tie(item)[1]

        yield from spread_classes(classes, content, tie, MAX_RESULTS, SPREAD_SCAN, home, query)

    def _heirs(self, table: EntryTable, entries: Mapping[str, MemoryEntryLike]) -> IntArray | None:
        """`retriever_lineage.heirs` of the table, kept while the table does not change."""
        cached = self._lineage
        if cached is not None and cached[0] is table and cached[1] == table.revision:
            return cached[2]
        found = retriever_lineage.heirs(table, entries)
        self._lineage = (table, table.revision, found)
        return found

    def _plan(self, table: EntryTable) -> _Plan:
        """Under the store's lock, quickly: what the index must take to follow the table."""
        index = self._vectors
        if index is None:
            index = self._vectors = self._open_index(table)
        synced = self._synced
        changes = table.changes_since(synced[1]) if synced is not None and synced[0] is table else None
        ids, contents, row_of = table.ids, table.contents, table.row_of
        if changes is not None:
            puts = [(i, contents[row_of[i]]) for i in dict.fromkeys(changes) if i in row_of]
            drops = [i for i in dict.fromkeys(changes) if i not in row_of]
            return _Plan(table, table.revision, puts, drops, full=False)
        if index.fingerprint == table.fingerprint and index.size == len(table):
            return _Plan(table, table.revision, [], [], full=False)  # a saved index of exactly these entries
        everything = [(ids[row], contents[row]) for row in table.rows().tolist()]
        return _Plan(table, table.revision, [(i, c) for i, c in everything if i is not None], [], full=True)

    def _apply(self, plan: _Plan) -> None:
        """Outside the store's lock: re-index what changed (the slow part: segmenting texts)."""
        index = self._vectors
        assert index is not None
        changed = index.sync(plan.puts, drop_missing=plan.full)
        for entry_id in plan.drops:
            changed = index.remove(entry_id) or changed
        if self._synced is None or self._synced[0] is not plan.table:
            self._mapped = None
        self._synced = (plan.table, plan.revision)
        if changed and self._index_path is not None:
            self._request_save()

    def _positions_for(self, table: EntryTable) -> IntArray:
        """Under the store's lock: table row -> index position (-1: not indexed yet, e.g. saved since the
        index last followed the table; it gets a cosine of 0 until the next query)."""
        import numpy as np

        index = self._vectors
        if index is None:
            index = self._vectors = self._open_index(table)
        positions = index.positions
        mapped = self._mapped
        changes = table.changes_since(mapped[1]) if mapped is not None and mapped[0] is table else None
        if mapped is None or changes is None or self._positions is None:
            if index.ids == table.ids and None not in table.ids:  # saved with this very table: row = position
                self._positions = np.arange(len(table.ids), dtype=np.int64)
            else:
                self._positions = np.fromiter(
                    (positions.get(i, -1) if i is not None else -1 for i in table.ids),
                    np.int64,
                    len(table.ids),
                )
        else:
            grown = np.full(len(table.ids), -1, dtype=np.int64)
            grown[: len(self._positions)] = self._positions[: len(grown)]
            for entry_id in changes:
                row = table.row_of.get(entry_id)
                if row is not None:
                    grown[row] = positions.get(entry_id, -1)
            self._positions = grown
        self._mapped = (table, table.revision)
        return self._positions

    def _request_save(self) -> None:
        if self._persister is None and self._index_path is not None:
            from paicli.memory.vector_file import Persister

            self._persister = Persister(self._index_path, self._lock, lambda: self._vectors, self.save_delay)
        if self._persister is not None:
            self._persister.request()

    def _open_index(self, table: EntryTable) -> VectorIndex:
        from paicli.memory.vector import VectorIndex

        if self._index_path is not None:
            from paicli.memory.vector_file import load

            loaded = load(self._index_path, (table.ids, table.row_of))
            if loaded is not None:
                return loaded
        self.index_builds += 1
        return VectorIndex()


@dataclass(frozen=True)
class _Plan:
    table: EntryTable
    revision: int
    puts: list[tuple[str, str]]  # (id, text) to add or re-index
    drops: list[str]
    full: bool  # `puts` is every entry: anything else in the index goes


def _truth_rows(table: EntryTable) -> IntArray:
    import numpy as np

    rows = table.rows()
    return rows[table.truth[rows]] if len(rows) else np.zeros(0, dtype=np.int64)


def _first(ranked: Iterable[Ranked], limit: int) -> list[Ranked]:
    kept: list[Ranked] = []
    for item in ranked:
        kept.append(item)
        if len(kept) == limit:
            break
    return kept


def _first_not_visible(ranked: Iterable[Ranked], visible: str) -> list[Ranked]:
    """The best MAX_RESULTS entries not already in the history; stops early (the history can be long)."""
    kept: list[Ranked] = []
    for item in ranked:
        if not _already_visible(item.entry.content, visible):
            kept.append(item)
            if len(kept) == MAX_RESULTS:
                break
    return kept


def _already_visible(content: str, visible: str) -> bool:
    stripped = content.strip()
    return bool(stripped) and stripped in visible
