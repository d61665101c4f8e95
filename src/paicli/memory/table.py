"""The stored entries as columns: what retrieval and the write path's candidate lookups read, kept current
entry by entry (issue 49).

A row holds one version of one entry: its id, its text and, in numpy columns, what ranking and filtering need
(alive, truth, confirmations, write time, scope, project, type). Rows are append-only while the table lives:
a changed entry gets a new row and its old row dies, so a reader keyed by row never sees a row change under
it. `revision` counts changes; `changes_since` names the ids changed after a revision, so an index over the
table follows it without scanning every entry. Substring lookups run over one joined, lower-cased text.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Protocol

from paicli.memory.arrays import member

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]

TYPES = ("CONVERSATION", "FACT", "SUMMARY", "TOOL_RESULT")
GLOBAL = -1  # the project column of a global entry
SEPARATOR = "\x00"
_FIND_LIMIT = 512  # occurrences past which a whole-text array compare beats a find loop
_LOG_LIMIT = 4096  # changes remembered by id; an older revision gets None (rescan)


class EntryLike(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def type(self) -> object: ...
    @property
    def timestamp(self) -> datetime: ...
    @property
    def metadata(self) -> Mapping[str, str]: ...


def digest(content: str) -> str:
    """A stable fingerprint of a memory's text (persisted, so it must not depend on the process)."""
    return hashlib.blake2b(content.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def doc_hash(entry_id: str, content_digest: str) -> int:
    """One document's share of a collection's fingerprint (the sum of these, modulo 2**64, over its documents:
    equal for two collections of the same (id, text) pairs in any order)."""
    data = f"{entry_id}\x00{content_digest}".encode("utf-8", "surrogatepass")
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "little")


MASK = (1 << 64) - 1
SUPERSEDED_BY = "supersededBy"  # the metadata key naming the fact that replaced this one (evolve's too)


def is_truth(metadata: Mapping[str, str]) -> bool:
    """Superseded facts and unsettled conflicts are history, never served as facts."""
    if str(metadata.get(SUPERSEDED_BY, "")).strip():
        return False
    return str(metadata.get("conflictPending", "")).strip().lower() != "true"


def confirmations(metadata: Mapping[str, str]) -> int:
    raw = str(metadata.get("confirmations", "")).strip()
    return min(int(raw), 1000) if raw.isdigit() and len(raw) < 6 else 0


def _epoch(moment: datetime) -> float:
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    return aware.timestamp()


_DTYPES = {
    "alive": "bool",
    "truth": "bool",
    "confirmed": "int32",
    "stamp": "float64",
    "project": "int32",
    "kind": "int8",
}


class EntryTable:
    """The columns are numpy arrays, created with the first row: an empty store never imports numpy."""

    def __init__(self) -> None:
        self.row_of: dict[str, int] = {}
        self.ids: list[str | None] = []
        self.contents: list[str] = []
        self.projects: dict[str, int] = {}
        self.alive: Any = None
        self.truth: Any = None
        self.confirmed: Any = None
        self.stamp: Any = None
        self.project: Any = None
        self.kind: Any = None
        self.revision = 0
        self.fingerprint = 0  # of the live (id, text) pairs; see doc_hash
        self._log: list[tuple[int, str]] = []
        self._blob: tuple[str, IntArray] | None = None
        self._codes: Any = None  # the joined text as code points (built when a common word is looked up)
        self._loaded_lower: str | None = None  # the joined text as loaded; dropped with the first change
        self._live = 0

    def __len__(self) -> int:
        return self._live

    # ---- changes -------------------------------------------------------------------------------

    def _grow(self, extra: int) -> None:
        import numpy as np

        rows = len(self.ids) + extra
        have = len(self.alive) if self.alive is not None else 0
        if rows <= have:
            return
        size = max(rows, 2 * have, 64)

        def grown(old: Any, dtype: str) -> Any:
            new = np.zeros(size, dtype=dtype)
            if have:
                new[:have] = old
            return new

        self.alive = grown(self.alive, _DTYPES["alive"])
        self.truth = grown(self.truth, _DTYPES["truth"])
        self.confirmed = grown(self.confirmed, _DTYPES["confirmed"])
        self.stamp = grown(self.stamp, _DTYPES["stamp"])
        self.project = grown(self.project, _DTYPES["project"])
        self.kind = grown(self.kind, _DTYPES["kind"])

    def project_code(self, key: str) -> int:
        return self.projects.setdefault(key, len(self.projects))

    def put(self, entry: EntryLike) -> int:
        """Add or replace one entry; returns its row."""
        self._kill(entry.id)
        self._grow(1)
        row = len(self.ids)
        self.ids.append(entry.id)
        self.contents.append(entry.content)
        self.row_of[entry.id] = row
        self._append_text(entry.content.lower())
        self.fingerprint = (self.fingerprint + doc_hash(entry.id, digest(entry.content))) & MASK
        self._fill(row, entry.metadata, entry.type, _epoch(entry.timestamp))
        self._changed(entry.id)
        self._live += 1
        return row

    def _fill(self, row: int, metadata: Mapping[str, str], kind: object, stamp: float) -> None:
        scoped = str(metadata.get("scope", "")).lower() == "project"
        self.alive[row] = True
        self.truth[row] = is_truth(metadata)
        self.confirmed[row] = confirmations(metadata)
        self.stamp[row] = stamp
        self.project[row] = self.project_code(str(metadata.get("project", ""))) if scoped else GLOBAL
        self.kind[row] = TYPES.index(str(kind)) if str(kind) in TYPES else 1

    def drop(self, entry_id: str) -> None:
        if self._kill(entry_id):
            self._changed(entry_id)

    def _kill(self, entry_id: str) -> bool:
        row = self.row_of.pop(entry_id, None)
        if row is None:
            return False
        self.alive[row] = False
        self.fingerprint = (self.fingerprint - doc_hash(entry_id, digest(self.contents[row]))) & MASK
        self.ids[row] = None
        self.contents[row] = ""  # its text stays in the joined text: lookups return dead rows, callers filter
        self._live -= 1
        return True

    def _changed(self, entry_id: str) -> None:
        self._loaded_lower = None
        self.revision += 1
        self._log.append((self.revision, entry_id))
        if len(self._log) > 2 * _LOG_LIMIT:
            del self._log[:-_LOG_LIMIT]

    def changes_since(self, revision: int) -> list[str] | None:
        """Ids changed after `revision`, oldest first; None when that is too long ago to say."""
        if revision >= self.revision:
            return []
        if not self._log or self._log[0][0] > revision + 1:
            return None
        return [entry_id for number, entry_id in self._log if number > revision]

    def load_columns(
        self,
        ids: list[str],
        contents: list[str],
        columns: Mapping[str, object],
        fingerprint: int,
        rows: dict[str, int] | None = None,
        lowered: str | None = None,
    ) -> None:
        """Fill an empty table from saved columns (the snapshot of a memory file). `rows`: id -> row, when
        known; `lowered`: the contents joined by SEPARATOR and lower-cased, as saved with them (the joined text,
        used once its lengths check out)."""
        import numpy as np

        self.ids = list(ids)
        self.contents = list(contents)
        self.row_of = rows.copy() if rows is not None else dict(zip(ids, range(len(ids)), strict=True))
        names = columns["projects"]
        assert isinstance(names, list)
        self.projects = {str(name): code for code, name in enumerate(names)}

        def column(name: str) -> Any:
            return np.asarray(columns[name], dtype=_DTYPES[name]).copy()

        self.truth, self.confirmed, self.stamp = column("truth"), column("confirmed"), column("stamp")
        self.project, self.kind = column("project"), column("kind")
        self.alive = np.ones(len(ids), dtype=bool)
        self._live = len(ids)
        self.fingerprint = fingerprint & MASK
        self.revision += 1
        self._log.clear()  # a new base: followers rescan (or load an index saved for it)
        self._blob = self._codes = None
        self._loaded_lower = lowered

    def columns(self, live: IntArray) -> dict[str, object]:
        """The columns of these rows, in this order (for the snapshot)."""
        names = [name for name, _ in sorted(self.projects.items(), key=lambda item: item[1])]
        return {
            "truth": self.truth[live],
            "confirmed": self.confirmed[live],
            "stamp": self.stamp[live],
            "project": self.project[live],
            "kind": self.kind[live],
            "projects": names,
        }

    def rebuild(self, entries: Iterable[EntryLike]) -> None:
        """Replace every row (a memory file read from scratch)."""
        fresh = EntryTable()
        for entry in entries:
            fresh.put(entry)
        revision = self.revision
        self.__dict__.update(fresh.__dict__)
        self.revision = revision + 1
        self._log = []

    # ---- reads ---------------------------------------------------------------------------------

    def rows(self) -> IntArray:
        import numpy as np

        if not self.ids:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(self.alive[: len(self.ids)])

    def visible(self, project_key: str | None, truths_only: bool = True) -> IntArray:
        """Live rows visible in a project (global ones and the project's own), truths only by default."""
        import numpy as np

        count = len(self.ids)
        if not count:
            return np.zeros(0, dtype=np.int64)
        mask = self.alive[:count].copy()
        if truths_only:
            mask &= self.truth[:count]
        code = self.projects.get(project_key) if project_key else None
        scope = self.project[:count]
        mask &= (scope == GLOBAL) | (scope == code) if code is not None else scope == GLOBAL
        return np.flatnonzero(mask)

    def domain(self, kind: object, project_key: str | None) -> IntArray:
        """Live rows of one dedup domain: the same type and scope and, for a project entry, the same project
        (compared without surrounding blanks, as `dedup.same_domain` does; a blank project has no domain)."""
        import numpy as np

        count = len(self.ids)
        if not count:
            return np.zeros(0, dtype=np.int64)
        code = TYPES.index(str(kind)) if str(kind) in TYPES else 1
        mask = self.alive[:count] & (self.kind[:count] == code)
        if project_key is None:
            return np.flatnonzero(mask & (self.project[:count] == GLOBAL))
        key = project_key.strip()
        codes = [number for name, number in self.projects.items() if key and name.strip() == key]
        if not codes:
            return np.zeros(0, dtype=np.int64)
        return np.flatnonzero(mask & member(self.project[:count], codes))

    def _append_text(self, lowered: str) -> None:
        """Keep the joined text in step with a new row (cheaper than joining every row again)."""
        import numpy as np

        if self._blob is None:
            return
        blob, starts = self._blob
        start = len(blob) + 1 if starts.size else 0
        self._blob = (blob + SEPARATOR + lowered if starts.size else lowered, np.append(starts, start))
        if self._codes is not None:
            added = (SEPARATOR + lowered if starts.size else lowered).encode("utf-32-le", "surrogatepass")
            self._codes = np.concatenate([self._codes, np.frombuffer(added, dtype=np.uint32)])

    def lowered(self) -> tuple[str, IntArray]:
        """Every row's lower-cased text joined by NUL, and each row's start in it (dead rows are empty)."""
        import numpy as np

        if self._blob is None:
            contents = self.contents
            joined, loaded = "", self._loaded_lower
            self._loaded_lower = None
            if loaded is None:
                joined = SEPARATOR.join(contents)
            blob = loaded if loaded is not None else joined.lower()  # NUL bounds a word as a text's end does
            lengths = np.fromiter(map(len, contents), np.int64, len(contents)) + 1
            separators = max(len(contents) - 1, 0)
            expected = int(lengths.sum()) - 1 if contents else 0  # every text and the separators between
            # lower() kept each length (it never shortens a text) and no text holds the separator, or else:
            if len(blob) != expected or blob.count(SEPARATOR) != separators:
                # a text whose lower case is longer (`İ`), or that holds the separator itself
                lowered = [content.lower() for content in contents]
                lengths = np.fromiter((len(text) + 1 for text in lowered), np.int64, len(lowered))
                blob = SEPARATOR.join(lowered)
            starts = np.zeros(len(contents), dtype=np.int64)
            if len(contents) > 1:
                np.cumsum(lengths[:-1], out=starts[1:])
            self._blob = (blob, starts)
        return self._blob

    def rows_containing(self, needle: str) -> IntArray:
        """Rows whose lower-cased text contains `needle` (already lower-cased), dead rows included; a row may
        appear more than once."""
        import numpy as np

        if not needle:
            return np.arange(len(self.ids), dtype=np.int64)
        if SEPARATOR in needle:
            return np.fromiter(
                (row for row, text in enumerate(self.contents) if needle in text.lower()), np.int64
            )
        blob, starts = self.lowered()
        # one pass over the text for a rare needle (counting first would be a second whole-text scan per needle)
        positions: list[int] = []
        find = blob.find
        at = find(needle)
        while at >= 0 and len(positions) <= _FIND_LIMIT:
            positions.append(at)
            at = find(needle, at + 1)
        found = self._positions_of(needle) if at >= 0 else np.asarray(positions, dtype=np.int64)
        if not len(found):
            return np.zeros(0, dtype=np.int64)
        return np.searchsorted(starts, found, side="right") - 1

    def _positions_of(self, needle: str) -> IntArray:
        """Every start of `needle` in the joined text, found with array compares (a common word occurs
        thousands of times: a loop over them costs more than comparing the whole text)."""
        import numpy as np

        if self._codes is None:
            self._codes = np.frombuffer(
                self.lowered()[0].encode("utf-32-le", "surrogatepass"), dtype=np.uint32
            )
        codes = self._codes
        width = len(needle)
        found = np.flatnonzero(codes[: len(codes) - width + 1] == ord(needle[0]))
        for offset in range(1, width):
            found = found[codes[found + offset] == ord(needle[offset])]
        return found
