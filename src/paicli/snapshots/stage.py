"""What goes into a snapshot: the side repository's exclude list, and the sorting of changed paths.

`git ls-files --others --modified --exclude-standard` on the side index names every path that differs from the
last snapshot (the index's stat cache keeps that cheap); each is then added, dropped, or skipped with a reason.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from paicli.skipdirs import SKIPPED_DIRS
from paicli.snapshots.model import shown_path
from paicli.snapshots.secrets import SecretScan

MAX_FILE_BYTES = 50 * 1024 * 1024
Progress = Callable[[int, int], None]  # (paths recorded so far, paths in all)
_GLOB_SPECIAL = "\\*?[!#"


@dataclass(frozen=True)
class Sorted:
    add: tuple[bytes, ...]  # regular files (up to the size cap) and symlinks: hashed into the side index
    remove: tuple[bytes, ...]  # gone, now a folder, too large, unreadable or not a file: out of the index
    skipped: tuple[str, ...]  # for the user: what the snapshot leaves out, and why


def sort_paths(
    root: bytes, paths: Iterable[bytes], max_file_bytes: int = MAX_FILE_BYTES, scan: SecretScan | None = None
) -> Sorted:
    add: list[bytes] = []
    remove: list[bytes] = []
    skipped: list[str] = []
    for path in paths:
        if path.endswith(b"/"):  # a nested repository ls-files shows as a folder: git stores no files of it
            skipped.append(f"{shown_path(path)}（嵌套的 git 仓库）")
            continue
        full = os.path.join(root, path)
        try:
            info = os.lstat(full)
        except OSError:
            remove.append(path)
            continue
        if stat.S_ISLNK(info.st_mode):
            add.append(path)
        elif not stat.S_ISREG(info.st_mode):
            remove.append(path)
        elif info.st_size > max_file_bytes:
            remove.append(path)
            skipped.append(f"{shown_path(path)}（{info.st_size / 1024 / 1024:.0f} MB，超过上限）")
        elif not os.access(full, os.R_OK):
            remove.append(path)
            skipped.append(f"{shown_path(path)}（没有读取权限）")
        elif scan is not None and (secret := scan.reason(path, full)) is not None:
            remove.append(path)
            skipped.append(f"{shown_path(path)}（{secret}，不存入快照）")
        else:
            add.append(path)
    return Sorted(tuple(add), tuple(remove), tuple(skipped))


def _pattern(relative: str) -> str:
    escaped = "".join("\\" + char if char in _GLOB_SPECIAL else char for char in relative)
    return f"/{escaped}/"


def exclude_text(project_root: Path, inside: Sequence[Path] = ()) -> str:
    """The side repository's info/exclude: paicli's skip folders at any depth, folders of paicli's own state
    that lie inside the project, and the project's own `.git/info/exclude` (read, never written)."""
    lines = ["# written by paicli: never edit, it is rewritten before each snapshot"]
    lines += [f"{name}/" for name in sorted(SKIPPED_DIRS)]
    root = Path(os.path.realpath(project_root))
    for folder in inside:
        real = Path(os.path.realpath(folder))
        if real != root and root in real.parents:
            lines.append(_pattern(real.relative_to(root).as_posix()))
    own = root / ".git" / "info" / "exclude"
    try:
        if (root / ".git").is_dir():
            lines.append(own.read_text(encoding="utf-8", errors="surrogateescape"))
    except OSError:
        pass
    return "\n".join(lines) + "\n"
