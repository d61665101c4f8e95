"""Putting a snapshot's files back: only the paths that differ, and never through anything the snapshot does
not know about.

`git checkout-index -f` would delete a folder (with ignored files in it) standing where a file must go, or a
file standing where a folder must go; such paths are left alone and reported as conflicts instead.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Sequence

from paicli.snapshots.git import GitRepo, nul_list
from paicli.snapshots.model import Change, shown_path


def apply_changes(repo: GitRepo, target: str, changes: Sequence[Change]) -> tuple[str, ...]:
    """Make the work tree match `target` (a commit) on `changes`; returns the paths it could not restore."""
    root = os.fsencode(repo.work_tree)
    conflicts: list[str] = []
    removed: list[bytes] = []
    for change in sorted((c for c in changes if c.removes), key=lambda c: c.path, reverse=True):
        if _remove(root, change.path):
            removed.append(change.path)
        else:
            conflicts.append(shown_path(change.path))
    _prune_empty_parents(root, removed)
    writes = [change.path for change in changes if change.writes]
    ready = [path for path in writes if not _blocked(root, path)]
    conflicts += [shown_path(path) for path in writes if path not in set(ready)]
    if ready:
        scratch = repo.git_dir / "restore.index"
        try:
            repo.run(["read-tree", target], index=scratch)
            repo.run(["checkout-index", "-f", "-z", "--stdin"], nul_list(ready), index=scratch)
        finally:
            with contextlib.suppress(OSError):
                scratch.unlink()
    conflicts += [shown_path(path) for path in ready if not os.path.lexists(os.path.join(root, path))]
    return tuple(conflicts)


def _remove(root: bytes, path: bytes) -> bool:
    full = os.path.join(root, path)
    try:
        info = os.lstat(full)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if stat.S_ISDIR(info.st_mode):  # the snapshot said file; a folder here may hold what it never saw
        return False
    try:
        os.unlink(full)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


def _prune_empty_parents(root: bytes, removed: Sequence[bytes]) -> None:
    """Folders a restore emptied go too (git records no folders); checkout recreates those it needs."""
    parents = {os.path.dirname(path) for path in removed}
    for parent in sorted(parents, key=len, reverse=True):
        current = parent
        while current:
            try:
                os.rmdir(os.path.join(root, current))
            except OSError:
                break
            current = os.path.dirname(current)


def _blocked(root: bytes, path: bytes) -> bool:
    """Writing `path` would remove something: a folder where the file goes, or a file or symlink where one of
    its folders goes."""
    parts = path.split(b"/")
    for depth in range(1, len(parts)):
        try:
            info = os.lstat(os.path.join(root, *parts[:depth]))
        except FileNotFoundError:
            return False
        except OSError:
            return True
        if not stat.S_ISDIR(info.st_mode):
            return True
    try:
        return stat.S_ISDIR(os.lstat(os.path.join(root, path)).st_mode)
    except OSError:
        return False
