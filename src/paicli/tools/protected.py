"""Which writes change configuration (paicli's, git's, the shell's), judged by name: the protected names at any
depth, the links a path passes through, and the real places protected links in the project point to."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from paicli.tools.gitrepo import git_dir_shaped
from paicli.tools.guards import PassedName, traversed_names
from paicli.tools.schema import ToolSpec

# Writing here changes what later "read-only" commands run (git hooks, core.fsmonitor, core.pager) or what
# the model is told on every turn (prompt overrides, PAI.md, skills), so auto mode asks first, at any depth
# (a nested `sub/.git/config` is picked up by `cd sub && git status`).
PROTECTED_DIRS = frozenset({".git", ".paicli"})
PROTECTED_FILES = frozenset({"pai.md", "pai.local.md", ".gitmodules", ".envrc"})
# `.env*` configures paicli itself (a base URL there gets the key on the next run) and many other tools;
# `PAI*.md` covers project memory files whatever their suffix; `.envrc` runs in the shell (direnv).
_PROTECTED_NAME = re.compile(r"^(?:\.env.*|pai.*\.md)$")


def _parts(relative_path: str) -> list[str]:
    # lower(): on case-insensitive file systems .GIT/config is .git/config
    return [part.lower() for part in relative_path.replace("\\", "/").split("/") if part]


def is_protected_path(relative_path: str | None) -> bool:
    if not relative_path:
        return False
    parts = _parts(relative_path)
    if any(part in PROTECTED_DIRS for part in parts):
        return True
    return bool(parts) and (parts[-1] in PROTECTED_FILES or bool(_PROTECTED_NAME.match(parts[-1])))


def written_names(spec: ToolSpec, args: dict[str, Any], project_root: Path | None) -> tuple[PassedName, ...]:
    """Every name the write's path arguments pass through, links followed (empty for other tools)."""
    if not spec.writes_files or project_root is None:
        return ()
    return tuple(
        passed
        for name in spec.path_params
        for passed in traversed_names(project_root, str(args.get(name, ".")))
    )


def protected_link(passed: tuple[PassedName, ...]) -> bool:
    """The path goes through a protected folder name, or through a link whose own name is protected
    (`PAI.md -> docs/notes.md`, `.env -> config/app.env`, `.paicli -> cfg`): the resolved path alone would
    pass, the name under which the repository ships the file does not."""
    for item in passed:
        name = item.name.lower()
        if name in PROTECTED_DIRS:
            return True
        if item.link and _protected_name(name):
            return True
    return False


def in_gitdir_shaped_folder(project_root: Path | None, relative_path: str | None) -> bool:
    """The write lands in (or completes) a folder shaped like a git directory — `HEAD`, `objects/` and
    `refs/` — which `git --git-dir=…` or `GIT_DIR=…` would read as a repository with its own config/hooks."""
    if project_root is None or not relative_path or relative_path == ".":
        return False
    raw = [part for part in relative_path.replace("\\", "/").split("/") if part]
    for depth in range(len(raw)):
        folder = Path(project_root).joinpath(*raw[:depth])
        below = [part.lower() for part in raw[depth:]]
        if git_dir_shaped(folder):
            return True
        # A write may also complete the shape; a link or a dangling HEAD counts as git counts it.
        head = os.path.lexists(folder / "HEAD") or below == ["head"]
        common = os.path.lexists(folder / "commondir") or below == ["commondir"]
        objects = os.path.lexists(folder / "objects") or (len(below) > 1 and below[0] == "objects")
        refs = os.path.lexists(folder / "refs") or (len(below) > 1 and below[0] == "refs")
        if head and (common or (objects and refs)):
            return True
    return False


def git_dir_of(relative_path: str | None) -> str | None:
    """The `…/.git` prefix of a path inside a git directory, or None."""
    if not relative_path:
        return None
    raw = [part for part in relative_path.replace("\\", "/").split("/") if part]
    for index, part in enumerate(raw):
        if part.lower() == ".git":
            return "/".join(raw[: index + 1])
    return None


def _protected_name(name: str) -> bool:
    lowered = name.lower()
    return lowered in PROTECTED_DIRS or lowered in PROTECTED_FILES or bool(_PROTECTED_NAME.match(lowered))


def aliased_by_protected_link(project_root: Path | None, relative_path: str | None) -> bool:
    """The write lands where a protected-named link of the project points (`cfg/prompts/base.md` while the
    repository ships `.paicli -> cfg`): paicli reads that file as its configuration. The links looked at are
    those paicli itself reads through: the project root's protected names and everything in `.paicli/`."""
    if project_root is None or not relative_path:
        return False
    root = os.path.realpath(project_root)
    real = os.path.normpath(os.path.join(root, relative_path))
    for link in _protected_links(root):
        target = os.path.realpath(link)
        if real == target or real.startswith(target.rstrip(os.sep) + os.sep):
            return True
    return False


def _protected_links(root: str) -> list[str]:
    found: list[str] = []
    for folder, every in ((root, False), (os.path.join(root, ".paicli"), True)):
        try:
            with os.scandir(folder) as entries:
                found += [e.path for e in entries if e.is_symlink() and (every or _protected_name(e.name))]
        except OSError:
            continue
    return found
