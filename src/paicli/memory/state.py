"""What a `LongTermMemory` holds in memory: the entries in file order (parsed only when asked for), the
column table over them, the candidate indexes, and how far into the journal it has read."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator, Mapping
from typing import Any, cast

from paicli.memory.candidates import CandidateIndex
from paicli.memory.entry import MemoryEntry
from paicli.memory.journal import Position
from paicli.memory.snapshot import Snapshot
from paicli.memory.table import EntryTable

log = logging.getLogger(__name__)


class StoreState(Mapping[str, MemoryEntry]):
    """Entries by id in file order. An entry loaded from a snapshot stays its JSON block until read."""

    def __init__(self) -> None:
        self._entries: dict[str, MemoryEntry | int] = {}
        self._blocks = b""
        self._offsets: Any = None
        self._origin: dict[str, tuple[MemoryEntry, int]] = {}  # parsed from block i, unchanged since
        self.table = EntryTable()
        self.candidates = CandidateIndex(self.table)
        self.position = Position()
        self.order: dict[str, int] = {}  # id -> place in the file (kept when an entry is replaced)
        self._next = 0

    # ---- Mapping -------------------------------------------------------------------------------

    def __getitem__(self, entry_id: str) -> MemoryEntry:
        value = self._entries[entry_id]
        if isinstance(value, int):
            return self._parse(entry_id, value)
        return value

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._entries

    def _block(self, index: int) -> bytes:
        return self._blocks[int(self._offsets[index]) : int(self._offsets[index + 1])]

    def _parse(self, entry_id: str, index: int) -> MemoryEntry:
        entry = MemoryEntry.from_json_dict(json.loads(self._block(index)))
        self._entries[entry_id] = entry
        self._origin[entry_id] = (entry, index)
        return entry

    # ---- loading -------------------------------------------------------------------------------

    def load_snapshot(self, snap: Snapshot) -> None:
        # the three maps start equal (id -> place): copying one costs a tenth of building each at 50k entries
        self._entries = cast("dict[str, MemoryEntry | int]", snap.rows.copy())  # a fresh dict: no aliasing
        self._blocks, self._offsets = snap.blocks, snap.offsets
        self._origin = {}
        self.table.load_columns(
            snap.ids, snap.contents, snap.columns, snap.fingerprint, snap.rows, snap.lowered
        )
        self.position = Position()
        self.order = snap.rows
        self._next = len(snap.ids)

    def load_entries(self, entries: list[MemoryEntry]) -> None:
        self._entries = {entry.id: entry for entry in entries}
        self._blocks, self._offsets, self._origin = b"", None, {}
        self.table.rebuild(entries)
        self.position = Position()
        self._number(list(self._entries))

    def _number(self, ids: list[str]) -> None:
        self.order = dict(zip(ids, range(len(ids)), strict=True))
        self._next = len(ids)

    # ---- changes -------------------------------------------------------------------------------

    def put(self, entry: MemoryEntry) -> None:
        self._entries[entry.id] = entry  # an existing id keeps its place in the file
        self._origin.pop(entry.id, None)
        if entry.id not in self.order:
            self.order[entry.id] = self._next
            self._next += 1
        self.table.put(entry)

    def delete(self, entry_id: str) -> None:
        if self._entries.pop(entry_id, None) is not None:
            self._origin.pop(entry_id, None)
            self.order.pop(entry_id, None)
            self.table.drop(entry_id)

    def apply(self, record: Mapping[str, Any]) -> None:
        """One journal line: whole entries set and ids removed (applying it twice changes nothing)."""
        puts, deletes = record.get("put", []), record.get("del", [])
        for item in puts if isinstance(puts, list) else []:
            try:
                self.put(MemoryEntry.from_json_dict(item))
            except (ValueError, TypeError):
                log.warning("skipping an unreadable entry in the memory journal")
        for entry_id in deletes if isinstance(deletes, list) else []:
            if isinstance(entry_id, str):
                self.delete(entry_id)

    # ---- reads ---------------------------------------------------------------------------------

    def to_render(self) -> list[MemoryEntry]:
        """Entries whose JSON block a fold must render (new or changed since they were loaded)."""
        return [entry for entry, block in self.lazy_blocks() if entry is not None]

    def snapshot_parts(self, signature: tuple[int, int, int], blocks: list[bytes]) -> tuple[Any, ...]:
        """What `snapshot.write` needs after a fold wrote `blocks` (one per entry, in file order)."""
        import numpy as np

        table = self.table
        ids = list(self._entries)
        rows = np.fromiter((table.row_of[entry_id] for entry_id in ids), np.int64, len(ids))
        contents = [table.contents[int(row)] for row in rows]
        return signature, ids, contents, blocks, table.columns(rows), table.fingerprint

    def lazy_blocks(self) -> Iterator[tuple[MemoryEntry | None, bytes | None]]:
        """Per entry in file order: (None, its unchanged JSON block) or (the entry, None) when it must be
        rendered again."""
        for entry_id, value in self._entries.items():
            if isinstance(value, int):
                yield None, self._block(value)
                continue
            origin = self._origin.get(entry_id)
            if origin is not None and origin[0] is value:
                yield None, self._block(origin[1])
            else:
                yield value, None
