"""The memory journal beside `long_term_memory.json`: saves append one line instead of rewriting the file.

`long_term_memory.journal` is JSON lines. The first line names a generation (a new one after every fold);
each further line is one committed write: `{"put": [<entry objects in the memory file's layout>], "del":
[<ids>]}`. A line counts once it ends with a newline and was synced; an unfinished last line (a writer killed
mid-append) is ignored by readers and cut off by the next writer, under the lock. Applying a line sets or
removes whole entries by id, so applying it twice gives the same result: a fold that rewrote the JSON file
but died before removing the journal loses nothing and changes nothing.

Folding (in `store.py`) writes the JSON file with every journal line applied, then removes the journal.
Readers (without the lock) read the JSON file, then the journal, then check that the JSON file did not change
meanwhile; so a fold between the two reads is seen and the read is taken again.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paicli.fsperm import PRIVATE_FILE
from paicli.memory.locked_file import MemoryStoreError

log = logging.getLogger(__name__)

SUFFIX = ".journal"
MAGIC = "paicliMemoryJournal"


def journal_path_for(memory_file: Path) -> Path:
    return memory_file.with_name(memory_file.stem + SUFFIX)


@dataclass
class Position:
    """How far a reader got: the journal's generation and the byte offset after the last line it applied."""

    generation: str | None = None
    offset: int = 0


@dataclass
class Batch:
    records: list[dict[str, Any]] = field(default_factory=list)
    reset: bool = False  # the journal is not the one the position was in: its lines apply from the start


def _header(generation: str) -> bytes:
    return (json.dumps({MAGIC: 1, "generation": generation}) + "\n").encode("utf-8")


def _generation(line: bytes) -> str | None:
    try:
        data = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if isinstance(data, dict) and data.get(MAGIC) == 1 and isinstance(data.get("generation"), str):
        return str(data["generation"])
    return None


def read(path: Path, position: Position) -> tuple[Batch, Position]:
    """The complete lines after `position` (or all of them, when the journal is another generation)."""
    try:
        with open(path, "rb") as handle:
            first = handle.readline()
            generation = _generation(first) if first.endswith(b"\n") else None
            if generation is None:
                return Batch(reset=position.generation is not None), Position()
            reset = generation != position.generation
            start = len(first) if reset else max(position.offset, len(first))
            handle.seek(start)
            data = handle.read()
    except (FileNotFoundError, NotADirectoryError):
        return Batch(reset=position.generation is not None), Position()
    except OSError as exc:
        raise MemoryStoreError(f"无法读取长期记忆日志 {path}: {exc}") from exc
    end = data.rfind(b"\n") + 1  # an unfinished last line is not committed yet
    batch = Batch(reset=reset)
    for line in data[:end].split(b"\n"):
        if not line.strip():
            continue
        try:
            record = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError, RecursionError):
            record = None
        if isinstance(record, dict):
            batch.records.append(record)
        else:  # skipped; kept in the journal until the fold
            log.warning("skipping an unreadable line of the memory journal %s", path)
    return batch, Position(generation, start + end)


def append(path: Path, record: dict[str, Any]) -> Position:
    """Append one committed line; call with the memory lock held. Returns the position after it. Raises
    OSError."""
    line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE)
    try:
        size = _cut_torn_tail(fd, os.fstat(fd).st_size)
        os.lseek(fd, 0, os.SEEK_SET)
        generation = _generation(_first_line(fd))
        if generation is None:  # a header damaged by hand: start a new generation (nothing was readable)
            os.ftruncate(fd, 0)
            size = _cut_torn_tail(fd, 0)
            os.lseek(fd, 0, os.SEEK_SET)
            generation = _generation(_first_line(fd))
        _write_all(fd, line, size)
        os.fsync(fd)
        return Position(generation, size + len(line))
    finally:
        os.close(fd)


def _first_line(fd: int) -> bytes:
    head = os.read(fd, 256)
    end = head.find(b"\n")
    return head[: end + 1] if end >= 0 else head


def _write_all(fd: int, data: bytes, at: int) -> None:
    os.lseek(fd, at, os.SEEK_SET)
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]


def _cut_torn_tail(fd: int, size: int) -> int:
    """A line without its newline was never committed (its writer died): remove it before appending. An
    empty journal gets its header (a new generation). Returns the size after."""
    keep = 0
    window = min(size, 1 << 16)
    while size:
        os.lseek(fd, size - window, os.SEEK_SET)
        cut = os.read(fd, window).rfind(b"\n")
        if cut >= 0:
            keep = size - window + cut + 1
            break
        if window == size:
            break
        window = min(size, window * 4)
    if keep < size:
        log.warning("cutting an unfinished line off the memory journal (a writer was interrupted)")
        os.ftruncate(fd, keep)
    if keep == 0:
        header = _header(uuid.uuid4().hex)
        _write_all(fd, header, 0)
        keep = len(header)
    return keep


def has_lines(path: Path) -> bool:
    """Whether the journal holds anything beyond its header (cheap: a stat and one short read)."""
    try:
        with open(path, "rb") as handle:
            handle.readline()
            return bool(handle.read(1))
    except OSError:
        return False


def remove(path: Path) -> None:
    with contextlib.suppress(FileNotFoundError):
        path.unlink()
