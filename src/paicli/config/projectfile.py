"""Reading a file the project supplies (PAI.md, prompt overrides, skills, `.env`, `.paicli/*.json`).

A repository is untrusted input: whoever wrote it can make `PAI.md` a symlink to `/proc/self/environ` or to
`~/.ssh/id_ed25519`, and the text read would go to the model. A project file is therefore read only when its
real path (every symlink followed) is a regular file inside the project's real root and outside the kernel's
pseudo-file systems; anything else reads as absent.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

# Pseudo-files whose "content" is process or device state (environment, memory, terminals), wherever the
# project root happens to be.
_SPECIAL_ROOTS = ("/proc", "/dev", "/sys")
DEFAULT_MAX_BYTES = 1_000_000


def real_path(path: Path) -> Path | None:
    try:
        return Path(os.path.realpath(path, strict=True))
    except (OSError, RuntimeError, ValueError):
        return None


def is_special(real: Path) -> bool:
    text = str(real)
    return any(text == root or text.startswith(root + "/") for root in _SPECIAL_ROOTS)


def inside(real: Path, root: Path) -> bool:
    """`real` is `root` or lies below it (both already real paths)."""
    return real == root or real.is_relative_to(root)


def contained_file(path: Path, root: Path) -> Path | None:
    """The real path of `path` when it is a regular file inside the real `root`, else None."""
    real_root = real_path(root)
    real = real_path(path)
    if real_root is None or real is None or is_special(real) or not inside(real, real_root):
        return None
    try:
        if not stat.S_ISREG(os.stat(real, follow_symlinks=False).st_mode):
            return None
    except OSError:
        return None
    return real


def contained_dir(path: Path, root: Path) -> Path | None:
    """The real path of `path` when it is a folder inside the real `root`, else None."""
    real_root = real_path(root)
    real = real_path(path)
    if real_root is None or real is None or is_special(real) or not inside(real, real_root):
        return None
    return real if real.is_dir() else None


def read_project_bytes(path: Path, root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes | None:
    """At most `max_bytes` of `path`, or None when it is missing, unreadable or not safely inside `root`.

    The file is opened by its real path without following a final symlink and checked again after opening,
    so swapping it for a symlink between the check and the read does not help.
    """
    real = contained_file(path, root)
    if real is None:
        return None
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(real, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks: list[bytes] = []
        left = max_bytes
        while left > 0:
            chunk = os.read(fd, min(left, 65536))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    except OSError:
        return None
    finally:
        with contextlib.suppress(OSError):
            os.close(fd)


def read_project_text(path: Path, root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> str | None:
    """`read_project_bytes` decoded as UTF-8 (undecodable bytes become U+FFFD)."""
    data = read_project_bytes(path, root, max_bytes)
    return None if data is None else data.decode("utf-8", errors="replace")
