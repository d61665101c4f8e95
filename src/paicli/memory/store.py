"""LongTermMemory: every mutation = lock, reload from disk, mutate, journal, unlock (spec 4.4-4.5; the journal
beside the file of record is issue 49's, see store_io.py)."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import TypeVar

from paicli.config.run_values import MemoryValues
from paicli.lazyre import lazy_pattern
from paicli.memory.clock import Clock, utc_now
from paicli.memory.dedup import ConflictDetector, is_duplicate
from paicli.memory.entry import MemoryEntry, new_id
from paicli.memory.locked_file import (
    FILE_NAME,
    MemoryFile,
    MemoryLockTimeout,
    MemoryStoreError,
)
from paicli.memory.results import MemoryWriteResult, WriteStatus
from paicli.memory.store_io import JOURNAL_MIN_ENTRIES, JournaledStore, Txn

__all__ = ["FILE_NAME", "LongTermMemory", "MemoryLockTimeout", "MemoryStoreError"]

log = logging.getLogger(__name__)
R = TypeVar("R")
Entries = Txn
_WORD = lazy_pattern(r"[a-z0-9][a-z0-9_.+#-]*")
_HAN_RUN = lazy_pattern(r"[\u3400-\u9fff\uf900-\ufaff]+")


def _resolve_path(path_or_dir: str | os.PathLike[str] | None, values: MemoryValues) -> Path:
    if path_or_dir is None:  # the configured folder
        if values.directory is None:
            raise ValueError("LongTermMemory needs a folder: a path, or MemoryValues parsed with one")
        return values.directory / FILE_NAME
    path = Path(path_or_dir).expanduser()
    if path.suffix.lower() == ".json" and not path.is_dir():
        return path
    return path / FILE_NAME


class LongTermMemory(JournaledStore):
    """The shared fact store. Safe across threads, instances and processes that point at one file."""

    def __init__(
        self,
        path_or_dir: str | os.PathLike[str] | None = None,
        values: MemoryValues | None = None,
        clock: Clock = utc_now,
        lock_timeout: float | None = None,
        detector: ConflictDetector | None = None,
        *,
        journal_min: int = JOURNAL_MIN_ENTRIES,
        fold_delay: float = 1.0,
    ) -> None:
        """`journal_min`: stores this big take saves in the journal (smaller ones are rewritten at once);
        `fold_delay`: seconds from a journaled save to the background fold. `values`: the memory settings
        (default: the knobs' own)."""
        self.values = values if values is not None else MemoryValues()
        self.clock = clock
        timeout = lock_timeout if lock_timeout is not None else self.values.lock_timeout
        super().__init__(
            MemoryFile(_resolve_path(path_or_dir, self.values), timeout), fold_delay, journal_min
        )
        self.detector = detector if detector is not None else ConflictDetector(self.values.conflict_threshold)
        self._refresh()

    @property
    def path(self) -> Path:
        return self._file.path

    # ---- reading -------------------------------------------------------------------------------

    def _snapshot(self) -> list[MemoryEntry]:
        self._refresh()
        with self._mutex:
            return list(self._state.values())

    def retrieve(self, entry_id: str) -> MemoryEntry | None:
        self._refresh()
        with self._mutex:
            return self._state.get(entry_id.strip())

    def get_all(self, project_key: str | None = None) -> list[MemoryEntry]:
        entries = self._snapshot()
        if project_key is None:
            return entries
        return [entry for entry in entries if entry.is_visible_in(project_key)]

    def get_by_type(self, kind: str) -> list[MemoryEntry]:
        return [entry for entry in self._snapshot() if entry.type == kind]

    def size(self) -> int:
        self._refresh()
        with self._mutex:
            return len(self._state)

    def token_count(self) -> int:
        return sum(entry.token_count for entry in self._snapshot())

    def status_summary(self) -> str:
        return summary_line(self._snapshot())

    def search(self, query: str, limit: int = 20, project_key: str | None = None) -> list[MemoryEntry]:
        """Entries whose content or metadata contains a query token, in storage order (no ranking)."""
        needle = query.strip().lower()
        if not needle or limit <= 0:
            return []
        tokens = _query_tokens(needle)
        found: list[MemoryEntry] = []
        for entry in self.get_all(project_key):
            haystacks = [entry.content.lower(), *(value.lower() for value in entry.metadata.values())]
            if any(needle in text or any(token in text for token in tokens) for text in haystacks):
                found.append(entry)
                if len(found) >= limit:
                    break
        return found

    # ---- mutations -------------------------------------------------------------------------------

    def transact(self, change: Callable[[Entries], tuple[R, bool]]) -> R:
        """A pure change over the entries under both locks (reload, change a copy, write it if changed): the
        relation judge's refinement of a write (memory/refine.py)."""
        return self._mutate(change)

    def store(self, entry: MemoryEntry) -> bool:
        """Plain store: skipped when another entry is a duplicate; the same id replaces. No conflict check."""

        def change(entries: Entries) -> tuple[bool, bool]:
            others = entries.candidates(entry, self.detector.threshold, relations=False)
            if any(other.id != entry.id and is_duplicate(other, entry) for other in others):
                return False, False
            entries[entry.id] = entry
            return True, True

        return self._mutate(change)

    def write(
        self,
        entry: MemoryEntry,
        replace_id: str | None = None,
        allow_conflict: bool = False,
        project_key: str | None = None,
    ) -> MemoryWriteResult:
        """Explicit save (/save, /memory replace, save_memory): a replaced or corrected entry is kept as
        superseded; a duplicate or re-statement confirms the stored one; an unsettled conflict is kept pending."""
        from paicli.memory import evolve  # what a write decides: loaded with the first write, not at start-up

        target_id = (replace_id or "").strip()
        incoming = entry
        evolve.prepare(incoming)  # segments (loads jieba) before the lock, never while holding it

        def change(entries: Entries) -> tuple[MemoryWriteResult, bool]:
            target = entries.get(target_id) if target_id else None
            if target_id and (
                target is None or not target.is_visible_in(project_key) or evolve.is_superseded(target)
            ):
                return MemoryWriteResult(WriteStatus.REPLACE_TARGET_NOT_FOUND, target_id=target_id), False
            found = entries.candidates(incoming, self.detector.threshold, relations=not allow_conflict)
            others = [e for e in found if e.id != target_id]
            decision = evolve.decide(others, incoming, self.detector, allow_conflict)
            if decision.kind == "duplicate":
                # saying a pending fact again settles its conflict in its favour, as /memory verify does
                kept = evolve.confirmed(self._settle(entries, decision.targets[0]), incoming.last_verified_at)
                entries[kept.id] = kept
                if target is not None:
                    entries[target_id] = evolve.superseded(target, kept.id, self.clock())
                return MemoryWriteResult(WriteStatus.DUPLICATE, kept, replaced=target), True
            # with a replace target the user named the truth: conflicting entries go into history as well
            settles = decision.kind == "supersede" or (decision.kind == "pending" and target is not None)
            olds = list(decision.targets) if settles else []
            if target is not None:
                olds.insert(0, target)
            stored = _unique_id(incoming, entries)
            status = WriteStatus.REPLACED if target is not None else WriteStatus.STORED
            if decision.kind == "pending" and target is None:
                stored = evolve.pending(stored, decision.targets)
                status = WriteStatus.CONFLICT
            elif olds:
                stored = evolve.superseding(stored, olds)
                status = WriteStatus.REPLACED if target is not None else WriteStatus.SUPERSEDED
            self._supersede(entries, olds, stored.id)
            entries[stored.id] = stored
            conflicts = decision.targets if decision.kind == "pending" else ()
            result = MemoryWriteResult(
                status, stored, conflicts, replaced=target, target_id=target_id, superseded=tuple(olds)
            )
            return result, True

        return self._mutate(change)

    def _supersede(self, entries: Entries, olds: list[MemoryEntry], new_id: str) -> None:
        from paicli.memory import evolve

        now = self.clock()
        for old in olds:
            entries[old.id] = evolve.superseded(old, new_id, now)

    def write_automatic(self, entry: MemoryEntry) -> MemoryWriteResult:
        """Automatic extraction: an existing id is refused; a re-statement only counts a confirmation (the
        entry stays pending verification); corrections supersede; a conflict without a cue is kept pending."""
        from paicli.memory import evolve

        incoming = entry
        evolve.prepare(incoming)  # segments (loads jieba) before the lock, never while holding it

        def change(entries: Entries) -> tuple[MemoryWriteResult, bool]:
            if incoming.id in entries:
                return MemoryWriteResult(WriteStatus.DUPLICATE, entries[incoming.id]), False
            found = entries.candidates(incoming, self.detector.threshold)
            decision = evolve.decide(found, incoming, self.detector, False)
            if decision.kind == "duplicate":
                old = decision.targets[0]
                metadata = dict(old.metadata)
                metadata[evolve.CONFIRMATIONS] = str(evolve.confirmations(old.metadata) + 1)
                entries[old.id] = old.model_copy(update={"metadata": metadata})
                return MemoryWriteResult(WriteStatus.DUPLICATE, entries[old.id]), True
            if decision.kind == "pending":
                stored = evolve.pending(incoming, decision.targets)
                entries[stored.id] = stored
                return MemoryWriteResult(WriteStatus.CONFLICT, stored, decision.targets), True
            olds = list(decision.targets) if decision.kind == "supersede" else []
            stored = evolve.superseding(incoming, olds) if olds else incoming
            self._supersede(entries, olds, stored.id)
            entries[stored.id] = stored
            status = WriteStatus.SUPERSEDED if olds else WriteStatus.STORED
            return MemoryWriteResult(status, stored, superseded=tuple(olds)), True

        return self._mutate(change)

    def mark_verified(self, entry_id: str, when: datetime | None = None) -> MemoryEntry | None:
        """/memory verify: verified now, one more confirmation; a pending conflict is settled in its favour
        (the entries it conflicted with are superseded by it)."""
        from paicli.memory import evolve

        key = entry_id.strip()
        moment = self.clock() if when is None else when

        def change(entries: Entries) -> tuple[MemoryEntry | None, bool]:
            current = entries.get(key)
            if current is None:
                return None, False
            entries[key] = evolve.confirmed(self._settle(entries, current), moment)
            return entries[key], True

        return self._mutate(change)

    def _settle(self, entries: Entries, current: MemoryEntry) -> MemoryEntry:
        """A pending conflict confirmed by the user: the entries it conflicted with become its history."""
        from paicli.memory import evolve

        if not evolve.is_conflict_pending(current):
            return current
        partners = [entries[i] for i in evolve.conflict_partners(current) if i in entries]
        live = [p for p in partners if not evolve.is_superseded(p)]
        settled = evolve.settled(current)
        if live:
            settled = evolve.superseding(settled, live)
        self._supersede(entries, live, settled.id)
        return settled

    def conflicts(self, project_key: str | None = None) -> list[MemoryEntry]:
        """Entries waiting for the user to settle a conflict."""
        from paicli.memory import evolve

        return [e for e in self.get_all(project_key) if evolve.is_conflict_pending(e)]

    def history(self, entry_id: str) -> list[MemoryEntry]:
        from paicli.memory import evolve

        self._refresh()
        with self._mutex:
            return evolve.history(self._state, entry_id.strip())

    def delete(self, entry_id: str) -> bool:
        key = entry_id.strip()

        def change(entries: Entries) -> tuple[bool, bool]:
            if key not in entries:
                return False, False
            del entries[key]
            return True, True

        return self._mutate(change)

    def clear(self) -> None:
        """`/memory clear`: an empty file, written at once (unusable items go too; the backup keeps them)."""
        self._file.forget_kept_items()
        self._replace_all([])


def _unique_id(entry: MemoryEntry, entries: Entries) -> MemoryEntry:
    """A random 8-hex id can collide with another entry; an explicit save must never overwrite one."""
    while entry.id in entries:
        entry = entry.model_copy(update={"id": new_id()})
    return entry


def _query_tokens(query: str) -> set[str]:
    try:
        from paicli.memory.tokenize import tokenize
    except ImportError:
        return _simple_tokens(query)
    return {token.lower() for token in tokenize(query)}


def _simple_tokens(query: str) -> set[str]:
    """Fallback while the jieba tokenizer is unavailable: ASCII words and Han bigrams."""
    tokens = {word for word in _WORD().findall(query) if len(word) >= 2}
    for run in _HAN_RUN().findall(query):
        if len(run) == 1:
            continue
        tokens.update(run[i : i + 2] for i in range(len(run) - 1))
    return tokens


def summary_line(entries: Sequence[MemoryEntry]) -> str:
    """The reference's size line (spec: getStatusSummary) over `entries`."""
    counts = {kind: sum(1 for e in entries if e.type == kind) for kind in ("FACT", "SUMMARY", "TOOL_RESULT")}
    total = sum(e.token_count for e in entries)
    return (
        f"长期记忆: {len(entries)}条 / {total} tokens "
        f"(事实: {counts['FACT']}, 摘要: {counts['SUMMARY']}, 工具结果: {counts['TOOL_RESULT']})"
    )
