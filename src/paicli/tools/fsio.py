"""Opening project files safely: regular files only, never through a symlink swapped in after the path check.

PathGuard resolves a path once; between that check and the open, a directory or the file itself could be
replaced by a symlink pointing outside the project. Opening walks the real relative path from the project
root with one directory descriptor per component and `O_NOFOLLOW`, so any symlink met at open time fails
instead of being followed. `O_NONBLOCK` keeps a FIFO from blocking the open; fstat then refuses anything
that is not a regular file (FIFO, device, socket).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

_CHUNK = 1 << 20
_BREAK = re.compile(rb"\r\n|\r|\n")
_O_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_O_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_O_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class NotRegularFile(Exception):
    """The path names a FIFO, device, socket or other non-regular file."""


class SymlinkSwapped(Exception):
    """A path component turned out to be a symlink (or vanished) when the file was opened."""


def _clear_nonblock(fd: int) -> None:
    with contextlib.suppress(ImportError, OSError):
        import fcntl

        flags = fcntl.fcntl(fd, fcntl.F_GETFL)
        fcntl.fcntl(fd, fcntl.F_SETFL, flags & ~_O_NONBLOCK)


def _checked_regular(fd: int) -> int:
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotRegularFile()
    _clear_nonblock(fd)
    return fd


def open_regular(path: Path | str, flags: int = os.O_RDONLY) -> int:
    """An fd on a regular file at `path` (final component not a symlink). Raises NotRegularFile / OSError."""
    try:
        fd = os.open(path, flags | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENXIO):
            raise NotRegularFile() from None
        raise
    return _checked_regular(fd)


def _parts(relative: str) -> list[str]:
    return [part for part in Path(relative).parts if part not in ("", ".")]


def open_beneath(
    root: Path, relative: str, flags: int = os.O_RDONLY, mode: int = 0o666, *, make_dirs: bool = False
) -> int:
    """Open `root/relative` without following any symlink on the way. Raises SymlinkSwapped when one is met,
    NotRegularFile for a non-regular target, OSError otherwise. `flags` must not contain O_TRUNC."""
    parts = _parts(relative)
    if not parts or ".." in parts:
        raise SymlinkSwapped()
    directory = os.open(root, os.O_RDONLY | _O_DIRECTORY | _O_CLOEXEC)
    try:
        for name in parts[:-1]:
            child = _enter(directory, name, make_dirs)
            os.close(directory)
            directory = child
        try:
            fd = os.open(parts[-1], flags | _O_NOFOLLOW | _O_NONBLOCK | _O_CLOEXEC, mode, dir_fd=directory)
        except OSError as error:
            if error.errno == errno.ELOOP:
                raise SymlinkSwapped() from None
            if error.errno == errno.ENXIO:  # a FIFO opened for writing without a reader
                raise NotRegularFile() from None
            raise
    finally:
        os.close(directory)
    return _checked_regular(fd)


def _enter(directory: int, name: str, make_dirs: bool) -> int:
    """An fd on the subdirectory `name` of `directory` (created when missing and allowed); never a symlink."""
    flags = os.O_RDONLY | _O_DIRECTORY | _O_NOFOLLOW | _O_CLOEXEC
    try:
        try:
            return os.open(name, flags, dir_fd=directory)
        except FileNotFoundError:
            if not make_dirs:
                raise
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, 0o777, dir_fd=directory)
        return os.open(name, flags, dir_fd=directory)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR):
            raise SymlinkSwapped() from None
        raise


def read_fd(fd: int, max_bytes: int | None = None) -> bytes | None:
    """The whole file behind `fd` (closed afterwards); None when it is larger than `max_bytes`."""
    with os.fdopen(fd, "rb") as handle:
        if max_bytes is not None and os.fstat(handle.fileno()).st_size > max_bytes:
            return None
        data = handle.read() if max_bytes is None else handle.read(max_bytes + 1)
    return None if max_bytes is not None and len(data) > max_bytes else data


def read_regular_bytes(path: Path | str, max_bytes: int | None = None) -> bytes | None:
    return read_fd(open_regular(path), max_bytes)


def write_fd(fd: int, data: bytes) -> None:
    """Replace the contents of the (regular) file behind `fd`, then close it."""
    with os.fdopen(fd, "wb") as handle:
        handle.truncate(0)
        handle.write(data)


@dataclass(frozen=True)
class LineWindow:
    lines: list[str]  # the requested lines, decoded with replacement characters
    total: int  # lines in the whole file (a final line without a break counts; a trailing break does not)


def read_line_window(
    fd: int,
    start: int,
    count: int,
    check: Callable[[], None] = lambda: None,
    max_line_bytes: int = 1 << 20,
    chunk_size: int = _CHUNK,
) -> LineWindow:
    """Lines [start, start+count) (0-based) of the file behind `fd`, streamed in chunks: memory stays bounded
    by the window, never by the file. Closes `fd`. `check` runs per chunk (it may raise to cancel)."""
    end = start + count
    state = _LineState()
    wanted: list[str] = []
    with os.fdopen(fd, "rb") as handle:
        for chunk in _chunks(handle, chunk_size):
            check()
            state.feed(chunk, start, end, wanted, max_line_bytes)
    if state.tail and start <= state.line < end:
        wanted.append(bytes(state.carry).decode("utf-8", errors="replace"))
    return LineWindow(wanted, state.line + (1 if state.tail else 0))


def _chunks(handle: BinaryIO, size: int) -> Iterator[bytes]:
    while True:
        chunk = handle.read(size)
        if not chunk:
            return
        yield chunk


class _LineState:
    def __init__(self) -> None:
        self.line = 0  # index of the line being read
        self.tail = False  # bytes seen after the last break
        self.pending_cr = False  # the previous chunk ended in \r (a following \n belongs to it)
        self.carry = bytearray()

    def feed(self, chunk: bytes, start: int, end: int, wanted: list[str], cap: int) -> None:
        if self.pending_cr and chunk.startswith(b"\n"):
            chunk = chunk[1:]
        self.pending_cr = chunk.endswith(b"\r")
        if not chunk:
            return
        breaks = chunk.count(b"\n")
        if b"\r" in chunk:  # rare: only then pay for the two extra scans
            breaks += chunk.count(b"\r") - chunk.count(b"\r\n")
        if self.line + breaks < start or self.line >= end:
            self.line += breaks
            last = max(chunk.rfind(b"\n"), chunk.rfind(b"\r"))
            self.tail = last < len(chunk) - 1  # also True when there is no break at all (last = -1)
            return
        pieces = _BREAK.split(chunk)
        for piece in pieces[:-1]:
            if start <= self.line < end:
                self._keep(piece, cap)
                wanted.append(bytes(self.carry).decode("utf-8", errors="replace"))
            self.carry.clear()
            self.line += 1
        if start <= self.line < end:
            self._keep(pieces[-1], cap)
        self.tail = bool(pieces[-1])

    def _keep(self, piece: bytes, cap: int) -> None:
        room = cap - len(self.carry)
        if room > 0:
            self.carry += piece[:room]
