"""One process per session: an exclusive lock on the ledger file while the session is open.

A BSD `flock` on the ledger itself: the kernel drops it when the process exits (also on SIGKILL), so it
never goes stale and no extra file is left behind. flock belongs to the open file, so other reads of the
ledger in the same process do not release it (a POSIX record lock would be).
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


class SessionInUse(Exception):
    """Another process holds the session's lock."""


def try_lock(path: Path) -> int | None:
    """An fd holding the exclusive lock on `path`, or None when another open file holds it."""
    try:
        import fcntl
    except ImportError:  # no flock (Windows): sessions are not guarded
        return os.open(path, os.O_RDONLY)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def release(fd: int | None) -> None:
    if fd is not None:
        with contextlib.suppress(OSError):
            os.close(fd)  # closing the only fd of that open file drops the flock


def in_use(path: Path) -> bool:
    """True when another process (or another open ledger in this one) holds the session."""
    try:
        fd = try_lock(path)
    except OSError:
        return False
    release(fd)
    return fd is None
