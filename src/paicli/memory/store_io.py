"""The memory file, its journal and its snapshot behind one in-memory state (issue 49).

Reading: when `long_term_memory.json` changed, its snapshot (when one was saved for exactly this file) or the
file itself becomes the base; then the journal's new lines are applied; then, if the JSON file changed
meanwhile (a fold elsewhere), both are read again. A write, under the file lock: read, decide over a
transaction view, append one journal line, apply it. A fold, on a background thread and at exit: under the
lock, write the JSON file with every line applied and remove the journal; then save a snapshot of it.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, MutableMapping
from typing import Any, TypeVar

from paicli.memory import journal, snapshot
from paicli.memory.entry import MemoryEntry
from paicli.memory.folding import FoldWorker, payload, warm
from paicli.memory.journal import Position
from paicli.memory.locked_file import MemoryFile, MemoryStoreError
from paicli.memory.state import StoreState
from paicli.memory.table import EntryTable

log = logging.getLogger(__name__)
R = TypeVar("R")
SNAPSHOT_MIN_ENTRIES = 1000  # below this, parsing the file costs less than a snapshot is worth
# below this, rewriting the whole file costs about what appending a line does: write it at once (the Java
# PaiCLI then sees a save immediately); from here on, saves go to the journal
JOURNAL_MIN_ENTRIES = 1000
_READ_ATTEMPTS = 8


def _load_outside_the_lock() -> None:
    """The modules a write needs, imported before the lock is taken: importing numpy takes a fraction of a second
    (seconds on a loaded machine), and every other writer would wait for it."""
    import numpy  # noqa: F401


class Txn(MutableMapping[str, MemoryEntry]):
    """The store as one write sees it: reads fall through to the state; changes are collected for the journal."""

    def __init__(self, state: StoreState) -> None:
        self.state = state
        self.puts: dict[str, MemoryEntry] = {}
        self.deletes: set[str] = set()

    def __getitem__(self, entry_id: str) -> MemoryEntry:
        if entry_id in self.puts:
            return self.puts[entry_id]
        if entry_id in self.deletes:
            raise KeyError(entry_id)
        return self.state[entry_id]

    def __setitem__(self, entry_id: str, entry: MemoryEntry) -> None:
        self.puts[entry_id] = entry
        self.deletes.discard(entry_id)

    def __delitem__(self, entry_id: str) -> None:
        if entry_id not in self:
            raise KeyError(entry_id)
        self.puts.pop(entry_id, None)
        if entry_id in self.state:
            self.deletes.add(entry_id)

    def __contains__(self, entry_id: object) -> bool:
        if entry_id in self.puts:
            return True
        return entry_id not in self.deletes and entry_id in self.state

    def __iter__(self) -> Iterator[str]:
        yield from (i for i in self.state if i not in self.deletes and i not in self.puts)
        yield from self.puts

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def candidates(
        self, incoming: MemoryEntry, threshold: float, relations: bool = True
    ) -> list[MemoryEntry]:
        """The stored entries the dedup and evolution rules could pick for `incoming`, in store order."""
        state = self.state
        rows = state.candidates.lookup(incoming, threshold, relations)
        ids = [state.table.ids[row] for row in rows]
        order = state.order
        known = {i for i in ids if i is not None and i in self}
        if relations:
            # a denial is about the fact it retired (`evolve._denial_topics`), and a return to an earlier value
            # replaces the truth that fact's chain ends at (`evolve.returned_from`): the chain comes along
            fringe = set(known)
            while fringe:
                newer = {n for i in fringe if (n := self[i].metadata.get("supersededBy", "")) and n in self}
                fringe = newer - known
                known |= newer
        found = sorted(known, key=lambda i: order.get(i, len(order)))
        return [self[i] for i in found]

    def result(self) -> list[MemoryEntry]:
        """Every entry after this write, in file order (a replaced entry keeps its place)."""
        state, puts = self.state, self.puts
        kept = [puts.get(i) or state[i] for i in state if i not in self.deletes]
        return kept + [entry for entry_id, entry in puts.items() if entry_id not in state]

    def record(self) -> dict[str, Any]:
        return {"put": [entry.to_json_dict() for entry in self.puts.values()], "del": sorted(self.deletes)}

    def commit(self) -> None:
        for entry_id in self.deletes:
            self.state.delete(entry_id)
        for entry in self.puts.values():
            self.state.put(entry)


class JournaledStore:
    """Reading, writing and folding; `LongTermMemory` adds the rules on top."""

    def __init__(
        self, file: MemoryFile, fold_delay: float = 1.0, journal_min: int = JOURNAL_MIN_ENTRIES
    ) -> None:
        self._file = file
        self.journal_min = journal_min
        self._journal = journal.journal_path_for(file.path)
        self._snapshot_file = snapshot.snapshot_path_for(file.path)
        self._state = StoreState()
        self._mutex = threading.RLock()
        self._notices: list[str] = []
        self._render_cache: dict[str, tuple[MemoryEntry, bytes]] = {}
        self._snapshot_due = False
        self.loaded_from_snapshot = False  # the last base came from the snapshot, not from parsing the file
        self.last_error: str | None = None
        self.folder = FoldWorker(self.fold, fold_delay)

    # ---- reading -------------------------------------------------------------------------------

    def _reload(self) -> None:
        """Caller holds self._mutex. Raises MemoryStoreError when the file cannot be read or backed up."""
        fresh = False
        for _ in range(_READ_ATTEMPTS):
            if self._file.changed_since_last_sync():
                if not self._load_base():
                    return
                fresh = True
            batch, position = journal.read(self._journal, self._state.position)
            if batch.reset and self._state.position.generation is not None:
                self._file.force_reread()  # the journal we followed was folded: read the file again
                continue
            for record in batch.records:
                self._state.apply(record)
            self._state.position = position
            if not self._file.changed_since_last_sync():
                break
        if fresh and position.generation is not None and batch.records:
            self.folder.request()  # lines left by a process that ended before folding them

    def _load_base(self) -> bool:
        signature = self._file.current_signature()
        found = snapshot.load(self._snapshot_file, signature) if signature is not None else None
        if found is not None:
            self._state.load_snapshot(found)
            self._file.adopt(found.signature)
            self.loaded_from_snapshot = True
            return True
        loaded = self._file.read()
        if loaded is None:
            # corrupt file was backed up: keep what we have, the next fold regenerates it
            self._notices.append(
                f"长期记忆文件 {self._file.path} 不是合法的 JSON，原文件已备份到 {self._file.last_backup}；"
                f"现在沿用内存里的 {len(self._state)} 条记忆，下次写入时会据此重新生成该文件"
            )
            return True
        self._state.load_entries(loaded)
        self.loaded_from_snapshot = False
        if self._file.kept_notice:
            self._notices.append(self._file.kept_notice)
            self._file.kept_notice = None
        if len(loaded) >= SNAPSHOT_MIN_ENTRIES and not self._file.kept:
            self._snapshot_due = True
            self.folder.request()
        return True

    def _refresh(self) -> None:
        with self._mutex:
            try:
                self._reload()
                self.last_error = None
            except MemoryStoreError as exc:
                self.last_error = str(exc)
                log.warning("%s", exc)

    def read_table(self, read: Callable[[EntryTable, StoreState], R]) -> R:
        """Run `read` over the current table (and the entries behind it) with no write in between."""
        self._refresh()
        with self._mutex:
            return read(self._state.table, self._state)

    # ---- writing -------------------------------------------------------------------------------

    def _mutate(self, change: Callable[[Txn], tuple[R, bool]]) -> R:
        """Under both locks: read, apply `change` to a transaction, journal it if it changed anything."""
        _load_outside_the_lock()

        def run() -> R:
            with self._mutex:
                if (
                    self._small()
                    and not self._file.changed_since_last_sync()
                    and self._file.content_changed()
                ):
                    self._file.force_reread()  # changed under an unchanged signature (see content_changed)
                self._reload()
                txn = Txn(self._state)
                result, changed = change(txn)
                if changed and (txn.puts or txn.deletes):
                    self._commit(txn)
                self.last_error = None
                return result

        return self._file.with_lock(run)

    def _small(self) -> bool:
        """A store rewritten on every save (without a journal, whose generation would show a change)."""
        return len(self._state) < self.journal_min and self._state.position.generation is None

    def _commit(self, txn: Txn) -> None:
        """Caller holds both locks. A small store is rewritten at once; a big one gets a journal line."""
        if len(self._state) + len(txn.puts) < self.journal_min and self._state.position.generation is None:
            self._file.write(txn.result())
            txn.commit()
            return
        try:
            position = journal.append(self._journal, txn.record())
        except OSError as exc:
            raise MemoryStoreError(f"无法写入长期记忆日志 {self._journal}: {exc}") from exc
        txn.commit()
        self._state.position = position
        self.folder.request()

    def _replace_all(self, entries: list[MemoryEntry]) -> None:
        """Under both locks: the file holds exactly `entries` (and no journal)."""
        _load_outside_the_lock()

        def run() -> None:
            with self._mutex:
                self._reload()
                self._file.write(entries)
                journal.remove(self._journal)
                self._state.load_entries(entries)

        self._file.with_lock(run)

    # ---- folding -------------------------------------------------------------------------------

    def fold(self) -> bool:
        """Write the JSON file with every journal line applied and remove the journal; then save its snapshot.
        True when the file was written."""
        _load_outside_the_lock()
        with self._mutex:
            self._reload()
            pending = self._state.to_render()
        warm(pending, self._render_cache)  # the slow part, outside the locks
        written, saved = self._file.with_lock(self._fold_locked)
        if saved is not None:
            try:
                snapshot.write(self._snapshot_file, *saved)
            except OSError:
                log.warning("could not save the memory snapshot %s", self._snapshot_file, exc_info=True)
        return written

    def _fold_locked(self) -> tuple[bool, tuple[Any, ...] | None]:
        with self._mutex:
            self._reload()
            has_lines = journal.has_lines(self._journal)
            if not has_lines and not self._snapshot_due:
                return False, None
            if self._file.kept:  # items paicli cannot use ride along in place: the full renderer keeps them
                if has_lines:
                    self._file.write(list(self._state.values()))
                    journal.remove(self._journal)
                    self._state.position = Position()
                self._snapshot_due = False
                return has_lines, None
            data, blocks = payload(self._state.lazy_blocks(), self._render_cache)
            if has_lines:
                self._file.write_payload(data)
                journal.remove(self._journal)
                self._state.position = Position()
            self._snapshot_due = False
            signature = self._file.current_signature()
            if signature is None or len(blocks) < SNAPSHOT_MIN_ENTRIES:
                return has_lines, None
            return has_lines, self._state.snapshot_parts(signature, blocks)

    def take_notices(self) -> list[str]:
        """Problems met while reading (a corrupt file that was backed up) not yet shown to the user."""
        with self._mutex:
            notices, self._notices = self._notices, []
            return notices
