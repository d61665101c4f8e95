"""Is it safe to run a read-only `git` command in a directory without asking?

`git status` in a repository whose config sets `core.fsmonitor`, a diff/filter driver command, a pager,
an editor, hooks or a promisor remote's upload-pack runs that program. A repository can ship such a config
(a nested `sub/.git/config`, a bare repository's `config`, a `.git` file pointing elsewhere), so a read-only
git command only runs unasked when every repository git could pick up there has a config made only of
allow-listed keys and no git directory written during this session. Execution is also neutralised
(`git_neutral_env`), as defence in depth.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

_MODULE_CONFIG_LIMIT = 200
# The repository config keys a read-only git command may meet without asking (lower-case section -> keys;
# "*": any key). Everything else -- whatever names a program (fsmonitor, hooksPath, pager, editor, textconv,
# uploadpack, credential helpers, filters, sshCommand, ...), turns on an extension (`extensions.*`), includes
# another file or moves the work tree -- makes the command ask. An allow-list: a key git adds tomorrow asks too.
_ALLOWED_KEYS: dict[str, frozenset[str]] = {
    "core": frozenset(
        {
            "repositoryformatversion",
            "filemode",
            "bare",
            "logallrefupdates",
            "ignorecase",
            "precomposeunicode",
            "symlinks",
            "autocrlf",
            "eol",
            "safecrlf",
            "quotepath",
            "abbrev",
            "compression",
            "loosecompression",
            "checkstat",
            "trustctime",
            "untrackedcache",
            "splitindex",
            "commitgraph",
            "multipackindex",
            "sparsecheckout",
            "sparsecheckoutcone",
            "longpaths",
            "whitespace",
            "preloadindex",
            "sharedrepository",
            "warnambiguousrefs",
            "commentchar",
            "excludesfile",
            "attributesfile",
            "deltabasecachelimit",
            "bigfilethreshold",
            "protecthfs",
            "protectntfs",
            "checkroundtripencoding",
            "filesreflocktimeout",
            "packedrefstimeout",
        }
    ),
    "user": frozenset({"name", "email"}),
    "init": frozenset({"defaultbranch"}),
    "i18n": frozenset({"commitencoding", "logoutputencoding"}),
    "pull": frozenset({"rebase", "ff"}),
    "push": frozenset({"default", "autosetupremote", "followtags"}),
    "fetch": frozenset({"prune", "prunetags", "recursesubmodules", "writecommitgraph", "fsckobjects"}),
    "transfer": frozenset({"fsckobjects"}),
    "merge": frozenset({"ff", "conflictstyle", "log", "renames", "renamelimit", "stat"}),
    "diff": frozenset(
        {
            "renames",
            "algorithm",
            "noprefix",
            "mnemonicprefix",
            "colormoved",
            "colormovedws",
            "indentheuristic",
            "context",
            "interhunkcontext",
            "relative",
            "statgraphwidth",
            "submodule",
            "wordregex",
            "ignoresubmodules",
            "suppressblankempty",
            "dirstat",
            "renamelimit",
        }
    ),
    "status": frozenset(
        {
            "showuntrackedfiles",
            "submodulesummary",
            "relativepaths",
            "short",
            "branch",
            "aheadbehind",
            "renames",
            "renamelimit",
            "showstash",
        }
    ),
    "log": frozenset({"date", "decorate", "follow", "abbrevcommit", "mailmap", "showroot"}),
    "gc": frozenset(
        {"auto", "autopacklimit", "autodetach", "pruneexpire", "reflogexpire", "writecommitgraph"}
    ),
    "index": frozenset({"version"}),
    "feature": frozenset({"manyfiles", "experimental"}),
    "rerere": frozenset({"enabled", "autoupdate"}),
    "commit": frozenset({"gpgsign", "verbose", "cleanup"}),
    "tag": frozenset({"sort", "gpgsign"}),
    "lfs": frozenset({"repositoryformatversion", "url", "locksverify"}),
    "color": frozenset({"*"}),
    "advice": frozenset({"*"}),
}
# Keys of sections that carry a name (`[remote "origin"]`); a driver's diff section runs nothing unless it
# has a `textconv`/`command`, which are not here.
_ALLOWED_NAMED_KEYS: dict[str, frozenset[str]] = {
    "remote": frozenset(
        {
            "url",
            "pushurl",
            "fetch",
            "push",
            "mirror",
            "tagopt",
            "prune",
            "prunetags",
            "skipdefaultupdate",
            "skipfetchall",
        }
    ),
    "branch": frozenset({"remote", "merge", "rebase", "pushremote", "description"}),
    "submodule": frozenset(
        {"url", "path", "active", "branch", "ignore", "shallow", "fetchrecursesubmodules"}
    ),
    "diff": frozenset({"xfuncname", "funcname", "wordregex", "binary"}),
    "lfs": frozenset({"locksverify", "access"}),
    "color": frozenset({"*"}),
}
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
    """True unless every key the config text sets is on the allow-list and the text reads with certainty."""
    section = ""
    named = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            return True  # a value continued on the next line: do not guess where keys start again
        header = _SECTION.match(line)
        if header:
            section, dot, rest = header.group(1).lower().partition(".")
            named = header.group(2) is not None or bool(dot and rest)
            line = header.group(3).strip()
            if not line or line[0] in "#;":
                continue
        key = _KEY.match(line)
        if key is None or not _allowed(section, named, key.group(1).lower()):
            return True
    return False


def _allowed(section: str, named: bool, key: str) -> bool:
    allowed = (_ALLOWED_NAMED_KEYS if named else _ALLOWED_KEYS).get(section, frozenset())
    return key in allowed or "*" in allowed


def git_dir_shaped(path: str | os.PathLike[str]) -> bool:
    """What git could take for a repository: a HEAD of any kind (a dangling link too) beside `objects` and
    `refs`, or beside a `commondir` file naming them elsewhere. Shared by the read-only rule and the sandbox."""
    folder = os.fspath(path)
    if not os.path.lexists(os.path.join(folder, "HEAD")):
        return False
    if os.path.lexists(os.path.join(folder, "commondir")):
        return True
    return all(os.path.lexists(os.path.join(folder, name)) for name in ("objects", "refs"))


def _gitdir_from_file(dotgit: Path) -> Path | None:
    try:
        text = dotgit.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    if not text.startswith("gitdir:"):
        return None
    target = Path(text[len("gitdir:") :].strip())
    return Path(os.path.realpath(target if target.is_absolute() else dotgit.parent / target))


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
        if git_dir_shaped(level):
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
