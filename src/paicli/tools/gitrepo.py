"""Is it safe to run a read-only `git` command in a directory without asking?

`git status` in a repository whose config sets `core.fsmonitor`, a diff/filter driver command, a pager,
an editor or hooks runs that command. A model can write such a config (a nested `sub/.git/config`, a bare
repository's `config`, a `.git` file pointing elsewhere), so a read-only git command only runs unasked
when every repository git could pick up there has a config free of those keys and no git directory
written during this session. Execution is also neutralised (`git_neutral_env`), as defence in depth.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

_MODULE_CONFIG_LIMIT = 200
# Keys that make a read-only git command run a program or write a file (lower-case section, key).
_UNSAFE_KEYS = frozenset(
    {
        ("core", "fsmonitor"),
        ("core", "hookspath"),
        ("core", "pager"),
        ("core", "editor"),
        ("core", "sshcommand"),
        ("core", "askpass"),
        ("core", "gitproxy"),
        ("diff", "external"),
        ("gpg", "program"),
        ("log", "showsignature"),
        ("sequence", "editor"),
        ("interactive", "difffilter"),
    }
)
_UNSAFE_SECTIONS = frozenset({"include", "includeif", "pager", "filter", "trace2"})
_UNSAFE_SUBSECTION_KEYS = {"diff": {"command", "textconv"}, "gpg": {"program"}}
_SECTION = re.compile(r'^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\\n]|\\.)*)")?\s*\](.*)$')
_KEY = re.compile(r"^([A-Za-z][A-Za-z0-9-]*)\s*(?:=.*)?$")

NEUTRAL_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", ""),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
    ("log.showSignature", "false"),
    ("status.submoduleSummary", "false"),
)


def config_is_unsafe(text: str) -> bool:
    """True when the config text sets a key that runs something, or cannot be read with certainty."""
    section = ""
    subsection: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        header = _SECTION.match(line)
        if header:
            name = header.group(1).lower()
            section, _, dotted = name.partition(".")
            subsection = header.group(2) if header.group(2) is not None else (dotted or None)
            line = header.group(3).strip()
            if section in _UNSAFE_SECTIONS:
                return True
            if not line or line[0] in "#;":
                continue
        key = _KEY.match(line)
        if key is None:
            return True  # continuation lines and anything unusual: do not guess
        name = key.group(1).lower()
        if (section, name) in _UNSAFE_KEYS:
            return True
        if subsection is not None and name in _UNSAFE_SUBSECTION_KEYS.get(section, ()):
            return True
    return False


def _gitdir_from_file(dotgit: Path) -> Path | None:
    try:
        text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return Path(os.path.realpath(target if target.is_absolute() else dotgit.parent / target))


def _looks_like_gitdir(directory: Path) -> bool:
    return (directory / "HEAD").is_file() and (
        (directory / "objects").is_dir() or (directory / "refs").is_dir()
    )


def repositories(cwd: Path, env: Mapping[str, str]) -> list[tuple[Path, Path]] | None:
    """(git dir, work tree) pairs git could use from `cwd`; None when that cannot be known."""
    if env.get("GIT_DIR") or env.get("GIT_WORK_TREE") or env.get("GIT_CONFIG"):
        return None
    found: list[tuple[Path, Path]] = []
    for level in [cwd, *cwd.parents]:
        dotgit = level / ".git"
        if dotgit.is_dir():
            found.append((Path(os.path.realpath(dotgit)), level))
        elif dotgit.exists():
            target = _gitdir_from_file(dotgit)
            if target is None:
                return None
            found.append((target, level))
        if _looks_like_gitdir(level):
            found.append((Path(os.path.realpath(level)), level))
        if found:
            return found
    return found


def _config_files(gitdir: Path) -> list[Path] | None:
    """Every config file git reads for this repository and its submodules; None when there are too many."""
    files = [gitdir / "config", gitdir / "config.worktree"]
    common = gitdir / "commondir"
    if common.is_file():
        try:
            target = Path(common.read_text(encoding="utf-8", errors="replace").strip())
        except OSError:
            return None
        files.append((target if target.is_absolute() else gitdir / target) / "config")
    modules = gitdir / "modules"
    if modules.is_dir():
        for index, path in enumerate(modules.rglob("config")):
            if index >= _MODULE_CONFIG_LIMIT:
                return None
            files.append(path)
    return files


def gitdir_is_unsafe(gitdir: Path) -> bool:
    files = _config_files(gitdir)
    if files is None:
        return True
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except FileNotFoundError:
            continue
        except OSError:
            return True
        if config_is_unsafe(text):
            return True
    return False


_SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE | re.IGNORECASE)


def _submodule_gitdirs(worktree: Path) -> list[Path] | None:
    """Git directories of the submodules `.gitmodules` names (status and diff recurse into them)."""
    try:
        text = (worktree / ".gitmodules").read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return []
    except OSError:
        return None
    found: list[Path] = []
    for raw in _SUBMODULE_PATH.findall(text)[:_MODULE_CONFIG_LIMIT]:
        dotgit = worktree / raw.strip('"') / ".git"
        if dotgit.is_dir():
            found.append(dotgit)
        elif dotgit.exists():
            target = _gitdir_from_file(dotgit)
            if target is None:
                return None
            found.append(target)
    return found


def git_is_safe_in(cwd: Path, written_gitdirs: Iterable[Path], env: Mapping[str, str]) -> bool:
    """A read-only git command may run unasked in `cwd`."""
    found = repositories(cwd, env)
    if found is None:
        return False
    written = [Path(os.path.realpath(p)) for p in written_gitdirs]
    for gitdir, worktree in found:
        root = Path(os.path.realpath(worktree))
        for path in written:
            if path == gitdir or path.is_relative_to(root) or path.is_relative_to(gitdir):
                return False
        submodules = _submodule_gitdirs(root)
        if submodules is None or any(gitdir_is_unsafe(path) for path in [gitdir, *submodules]):
            return False
    return True


def git_neutral_env(base: Mapping[str, str]) -> dict[str, str]:
    """`base` plus command-line-level config that disables fsmonitor, hooks, pagers and editors."""
    env = dict(base)
    try:
        start = int(env.get("GIT_CONFIG_COUNT", "0") or "0")
    except ValueError:
        start = 0
    for offset, (key, value) in enumerate(NEUTRAL_CONFIG):
        env[f"GIT_CONFIG_KEY_{start + offset}"] = key
        env[f"GIT_CONFIG_VALUE_{start + offset}"] = value
    env["GIT_CONFIG_COUNT"] = str(start + len(NEUTRAL_CONFIG))
    env["GIT_PAGER"] = "cat"
    env["PAGER"] = "cat"
    env["GIT_EDITOR"] = ":"
    env["GIT_SEQUENCE_EDITOR"] = ":"
    env["GIT_OPTIONAL_LOCKS"] = "0"  # `git status` does not rewrite the index (no post-index-change hook)
    env.pop("GIT_EXTERNAL_DIFF", None)
    return env
