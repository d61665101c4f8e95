"""After a sandboxed command: the protected entries it created, moved out of the project.

Neither Landlock nor a mount can forbid a name: a folder the command may write accepts `.git/`, `.envrc`,
`PAI.md`, `.env.local` or a git-dir-shaped folder as readily as any file. Existing protected entries are
read-only (rules.py); new ones are found here, once the command and everything it started have ended (so
nothing can add more), by comparing the project with the walk taken before it ran. A folder is re-listed only
when its change time or inode moved, or its last change was too recent for the clock's granularity to tell;
a folder that did not exist before is walked whole. What is found is moved to
`<paicli home>/quarantine/<time>-<id>/<its path in the project>` (deleted if it cannot be moved) before
anything else runs, and the command's result says so.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from paicli.tools.gitrepo import git_dir_shaped
from paicli.tools.sandbox.rules import ProjectWalk, protected_name

RECENT_NS = 2_000_000_000  # a folder changed this close before the walk is re-listed whatever its stamp says
OWN_OUTPUTS = "tool-outputs"  # paicli's own offloaded results in <project>/.paicli/ (context/offload.py)
_SHAPE = ("HEAD", "objects", "refs", "commondir")


@dataclass(frozen=True)
class Removed:
    """One protected entry the command created: its path relative to the project, and where it went."""

    relative: str
    moved_to: str | None  # None: deleted (it could not be moved)


def new_protected(walk: ProjectWalk) -> list[str]:
    """Absolute paths of protected entries (and of entries completing a git directory's shape) that did not
    exist when `walk` was taken; an entry inside another one found is not listed again."""
    found: list[str] = []
    for folder, stamp in walk.folders.items():
        if _unchanged(folder, stamp, walk.started_ns):
            continue
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        _check_entries(entries, walk, found)
        if git_dir_shaped(folder):  # it became one (the project root too: git would read its `config`)
            found += [
                os.path.join(folder, name) for name in _SHAPE if _is_new(os.path.join(folder, name), walk)
            ]
    return sorted(set(_spare_own(found, walk.root)))


def _spare_own(found: list[str], root: str) -> list[str]:
    """paicli itself may make `<root>/.paicli/tool-outputs/` while the command runs (a result offloaded by a
    task beside it): that folder stays (it holds data, never configuration); the rest of a new `.paicli` goes."""
    own = os.path.join(root, ".paicli")
    if own not in found:
        return found
    try:
        names = os.listdir(own)
    except OSError:
        return found
    rest = [path for path in found if path != own]
    return rest + [os.path.join(own, name) for name in names if name != OWN_OUTPUTS]


def _unchanged(folder: str, stamp: tuple[int, int], started_ns: int) -> bool:
    try:
        info = os.lstat(folder)
    except OSError:
        return True  # gone: nothing can have been left in it
    inode, changed = stamp
    return info.st_ino == inode and info.st_ctime_ns == changed and changed < started_ns - RECENT_NS


def _is_new(path: str, walk: ProjectWalk) -> bool:
    return os.path.lexists(path) and path not in walk.special and path not in walk.folders


def _check_entries(entries: Iterable[os.DirEntry[str]], walk: ProjectWalk, found: list[str]) -> None:
    for entry in entries:
        if entry.path in walk.special:
            continue
        if protected_name(entry.name):
            found.append(entry.path)
            continue
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_dir and (entry.path not in walk.folders or _replaced(entry.path, walk)):
            _walk_new(entry.path, found)


def _replaced(path: str, walk: ProjectWalk) -> bool:
    """A folder of the same name, but not the one walked before (removed and made again)."""
    try:
        return os.lstat(path).st_ino != walk.folders[path][0]
    except OSError:
        return False


def _walk_new(folder: str, found: list[str]) -> None:
    """A folder made during the command: everything protected in it is new, however deep."""
    if git_dir_shaped(folder):
        found.append(folder)
        return
    pending = [folder]
    while pending:
        current = pending.pop()
        try:
            entries = list(os.scandir(current))
        except OSError:
            continue
        for entry in entries:
            if protected_name(entry.name):
                found.append(entry.path)
            elif entry.is_dir(follow_symlinks=False):
                if git_dir_shaped(entry.path):
                    found.append(entry.path)
                else:
                    pending.append(entry.path)


def _outermost(paths: list[str]) -> list[str]:
    kept: list[str] = []
    for path in sorted(paths):
        if not any(path.startswith(parent + "/") for parent in kept):
            kept.append(path)
    return kept


def quarantine(root: str, paths: list[str], paicli_home: str | None) -> list[Removed]:
    """Move `paths` (inside `root`) to a fresh quarantine folder under the paicli home; delete what cannot move."""
    if not paths:
        return []
    stamp = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:8]
    base = Path(paicli_home or os.path.join(root, ".paicli")) / "quarantine" / stamp
    removed: list[Removed] = []
    for path in _outermost(paths):
        relative = os.path.relpath(path, root)
        target = base / relative
        try:
            target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            shutil.move(path, target)
            removed.append(Removed(relative, str(target)))
        except OSError:
            _delete(path)
            removed.append(Removed(relative, None))
    return removed


def _delete(path: str) -> None:
    with contextlib.suppress(OSError):
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path, ignore_errors=True)
        else:
            os.unlink(path)
