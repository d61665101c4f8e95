"""Private files under the paicli home folder: folders 0700, files 0600, whatever the umask (keys and transcripts live
there). Writers create their files through these helpers; `secure_tree` repairs what older versions or
third-party writers (log handlers, prompt history) left readable."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import IO

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
_TREE_LIMIT = 20000


def ensure_private_dir(path: Path) -> None:
    """mkdir -p with 0700 for every folder it creates, and 0700 on `path` itself."""
    missing: list[Path] = []
    current = Path(path)
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=PRIVATE_DIR)
    with contextlib.suppress(OSError):
        if (path.stat().st_mode & 0o777) != PRIVATE_DIR:
            os.chmod(path, PRIVATE_DIR)


def create_private_file(path: Path) -> None:
    """Create `path` (0600) if missing; make an existing one 0600."""
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE)
    try:
        os.fchmod(fd, PRIVATE_FILE)
    finally:
        os.close(fd)


def open_private_append(path: Path) -> IO[str]:
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, PRIVATE_FILE)
    with contextlib.suppress(OSError):
        os.fchmod(fd, PRIVATE_FILE)
    return os.fdopen(fd, "a", encoding="utf-8")


def write_private_text(path: Path, text: str) -> None:
    """Write (replace) a text file that only its owner can read."""
    ensure_private_dir(path.parent)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        os.fchmod(handle.fileno(), PRIVATE_FILE)
        handle.write(text)


def make_private(path: Path) -> None:
    with contextlib.suppress(OSError):
        os.chmod(path, PRIVATE_FILE)


def secure_tree(root: Path) -> None:
    """0700 folders and 0600 regular files below `root` (symlinks are left alone). Best effort."""
    if not root.is_dir():
        return
    seen = 0
    for folder, dirs, files in os.walk(root):
        with contextlib.suppress(OSError):
            os.chmod(folder, PRIVATE_DIR)
        for name in files:
            seen += 1
            if seen > _TREE_LIMIT:
                return
            path = os.path.join(folder, name)
            with contextlib.suppress(OSError):
                info = os.lstat(path)
                if (info.st_mode & 0o170000) == 0o100000 and (info.st_mode & 0o777) != PRIVATE_FILE:
                    os.chmod(path, PRIVATE_FILE)
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(folder, d))]
