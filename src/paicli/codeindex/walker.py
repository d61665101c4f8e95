"""Which files of a project the index reads: text files of known kinds, no larger than a bound, outside the
skipped folders, hidden folders and what the project's `.gitignore` files leave out. git itself is not run
(a repository's config can name programs); the ignore rules are read here: `#` comments, `!` negation, a
trailing `/` for folders, a leading or inner `/` anchoring the pattern to its file's folder, `*`, `?`, `[…]`
and `**`."""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from paicli.skipdirs import SKIPPED_DIRS

MAX_FILE_BYTES = 512 * 1024  # larger files are generated or data, not code worth a chunk
CODE_SUFFIXES = frozenset(
    [
        ".py",
        ".pyi",
        ".js",
        ".jsx",
        ".mjs",
        ".cjs",
        ".ts",
        ".tsx",
        ".mts",
        ".cts",
        ".java",
        ".kt",
        ".scala",
        ".go",
        ".rs",
        ".c",
        ".h",
        ".cc",
        ".cpp",
        ".cxx",
        ".hpp",
        ".cs",
        ".rb",
        ".php",
        ".swift",
        ".lua",
        ".sh",
        ".bash",
        ".sql",
        ".vue",
        ".svelte",
        ".css",
        ".scss",
        ".html",
        ".md",
        ".rst",
        ".txt",
        ".toml",
        ".yaml",
        ".yml",
        ".ini",
        ".cfg",
        ".gradle",
        ".proto",
    ]
)
_SKIPPED = SKIPPED_DIRS | {"target", "out", "coverage", "site-packages"}


@dataclass(frozen=True)
class _Rule:
    base: str  # the folder of the .gitignore, relative to the root ("" for the root)
    pattern: re.Pattern[str]
    negate: bool
    folder_only: bool


def _translate(glob: str) -> str:
    out, i = [], 0
    while i < len(glob):
        ch = glob[i]
        if glob.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        if ch == "*":
            out.append("[^/]*")
        elif ch == "?":
            out.append("[^/]")
        elif ch == "[" and (end := glob.find("]", i + 1)) > i:
            body = glob[i + 1 : end].replace("\\", "\\\\")
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end
        else:
            out.append(re.escape(ch))
        i += 1
    return "".join(out)


def parse_ignore(text: str, base: str = "") -> list[_Rule]:
    rules = []
    for raw in text.splitlines():
        line = raw.rstrip()
        if not line or line.startswith("#"):
            continue
        negate = line.startswith("!")
        line = line[1:] if negate else line
        folder_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        body = _translate(line.lstrip("/"))
        regex = f"^{body}$" if anchored else f"^(?:.*/)?{body}$"
        rules.append(_Rule(base, re.compile(regex), negate, folder_only))
    return rules


def ignored(rules: list[_Rule], relative: str, is_dir: bool) -> bool:
    """The last rule that matches decides (git's order: deeper files come later)."""
    verdict = False
    for rule in rules:
        if rule.folder_only and not is_dir:
            continue
        if rule.base:
            if not relative.startswith(rule.base + "/"):
                continue
            inside = relative[len(rule.base) + 1 :]
        else:
            inside = relative
        if rule.pattern.match(inside):
            verdict = not rule.negate
    return verdict


def _read_ignore(folder: Path, base: str) -> list[_Rule]:
    try:
        return parse_ignore((folder / ".gitignore").read_text(encoding="utf-8", errors="replace"), base)
    except OSError:
        return []


def project_files(root: Path, max_files: int, max_bytes: int = MAX_FILE_BYTES) -> Iterator[tuple[str, Path]]:
    """(relative posix path, path) of each file the index reads, in a stable order, at most `max_files`."""
    root = root.resolve()
    rules = _read_ignore(root, "")
    count = 0
    for directory, dirs, files in os.walk(root):
        folder = Path(directory)
        base = folder.relative_to(root).as_posix()
        base = "" if base == "." else base
        if base:
            rules = rules + _read_ignore(folder, base)
        kept = []
        for name in sorted(dirs):
            relative = f"{base}/{name}" if base else name
            if name in _SKIPPED or name.startswith(".") or ignored(rules, relative, True):
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            relative = f"{base}/{name}" if base else name
            path = folder / name
            if Path(name).suffix.lower() not in CODE_SUFFIXES or ignored(rules, relative, False):
                continue
            try:
                info = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISREG(info.st_mode) or info.st_size > max_bytes:
                continue
            yield relative, path
            count += 1
            if count >= max_files:
                return
