"""The walk behind glob_files: which regular files under a directory match a pattern, inside the project.

The pattern means what pathlib's `Path.glob` makes of it (a `**` component matches any run of directories
and does not descend into linked ones; other wildcard components follow links; `*` matches dot names), but the
walk keeps each directory entry's type from `scandir` instead of building a Path and asking the file system
again for every match. Whether a path's real location lies inside the project depends only on its directory,
which is resolved once and remembered; only a match that is itself a symbolic link has its own target resolved.
Skipped directories (`.git`, `node_modules`, ...) are never entered: nothing below one is ever listed.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from paicli.cancel import CancelToken

GLOB_SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)
_WILDCARD = re.compile(r"[*?\[]")


def matching_files(
    base: Path, pattern: str, inside: Callable[[str], bool], cancel: CancelToken, limit: int
) -> list[str]:
    """Forward-slash paths relative to `base` (a real directory) of the regular files matching `pattern`
    whose real path `inside` accepts, sorted; the walk stops after `limit` candidate matches."""
    parts = _parts(pattern)
    if not parts or parts[-1] in ("", "**"):  # what pathlib yields for these is directories only
        return []
    walk = _Walk(tuple(parts), inside, cancel)
    for examined, (rel, entry) in enumerate(walk.select(0, str(base), "")):
        if examined >= limit:
            break
        if walk.listed(str(base), rel, entry):
            walk.found.add(rel)
    return sorted(walk.found)


def _parts(pattern: str) -> list[str]:
    """pathlib's reading of a relative pattern: empty and `.` components dropped, a trailing `/` kept as an
    empty last component; runs of `**` are one (each would walk the tree again for the same matches)."""
    parts: list[str] = []
    for part in pattern.split("/"):
        if part in ("", ".") or (part == "**" and parts[-1:] == ["**"]):
            continue
        if "**" in part and part != "**":
            raise ValueError("Invalid pattern: '**' can only be an entire path component")
        parts.append(part)
    if pattern.endswith("/"):
        parts.append("")
    return parts


@dataclass
class _Walk:
    parts: tuple[str, ...]
    inside: Callable[[str], bool]
    cancel: CancelToken
    found: set[str] = field(default_factory=set)
    folders: dict[str, bool] = field(default_factory=dict)  # relative directory -> its files may be listed

    def select(self, index: int, path: str, rel: str) -> Iterator[tuple[str, os.DirEntry[str] | None]]:
        """(relative path, its directory entry where the walk has one) of the matches of parts[index:] below
        the directory `path` (`rel` relative to the base)."""
        self.cancel.raise_if_cancelled()
        part, last = self.parts[index], index == len(self.parts) - 1
        if part == "**":
            for folder, folder_rel in self._directories(path, rel):
                yield from self.select(index + 1, folder, folder_rel)
        elif _WILDCARD.search(part):
            matches = _matcher(part)
            for entry in _entries(path):
                if not matches(entry.name):
                    continue
                if last:
                    yield rel + entry.name, entry
                elif entry.name not in GLOB_SKIPPED_DIRS and _is_dir(entry):
                    yield from self.select(index + 1, entry.path, rel + entry.name + "/")
        else:
            child = os.path.join(path, part)
            if last:
                if os.path.exists(child):
                    yield rel + part, None
            elif part not in GLOB_SKIPPED_DIRS and os.path.isdir(child):
                yield from self.select(index + 1, child, rel + part + "/")

    def _directories(self, path: str, rel: str) -> Iterator[tuple[str, str]]:
        """`path` and every directory below it, links to directories not followed (as pathlib's `**`)."""
        yield path, rel
        for entry in _entries(path):
            if entry.name not in GLOB_SKIPPED_DIRS and _is_dir(entry, follow=False):
                yield from self._directories(entry.path, rel + entry.name + "/")

    def listed(self, base: str, rel: str, entry: os.DirEntry[str] | None) -> bool:
        """A regular file in a directory inside the project; a link only when its target is one inside it."""
        folder = rel.rpartition("/")[0]
        ok = self.folders.get(folder)
        if ok is None:
            ok = self.folders[folder] = self.inside(os.path.realpath(os.path.join(base, folder)))
        if not ok:
            return False
        path = os.path.join(base, rel)
        try:
            link = entry.is_symlink() if entry is not None else os.path.islink(path)
            if not link:
                return entry.is_file(follow_symlinks=False) if entry is not None else os.path.isfile(path)
        except OSError:
            return False
        return os.path.isfile(path) and self.inside(os.path.realpath(path))


@functools.lru_cache(maxsize=64)
def _matcher(part: str) -> Callable[[str], re.Match[str] | None]:
    return re.compile(fnmatch.translate(part)).fullmatch


def _entries(path: str) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(path) as found:
            return list(found)
    except OSError:
        return []


def _is_dir(entry: os.DirEntry[str], follow: bool = True) -> bool:
    try:
        return entry.is_dir(follow_symlinks=follow)
    except OSError:
        return False
