"""Instruction files people keep for other agents (issue 42): `AGENTS.md` and `CLAUDE.md` beside `PAI.md`.

The system prompt carries the files of the repository root down to the working folder (`instruction_sources`,
read by memory/project.py with PAI.md's limits). A file in a folder below the working folder joins only when
the model works there: `NestedInstructions` hands its text once, to be appended to that tool result, so the
system prompt (the cached prefix) never changes for it. Every file is repository text: read only through
`config/projectfile.py` (its real path inside the root), and given to the model as the repository's words.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable, Iterable
from pathlib import Path, PurePosixPath

from paicli.config.projectfile import read_project_text, real_path

INSTRUCTION_NAMES = ("AGENTS.md", "CLAUDE.md")
NESTED_NAMES = ("PAI.md", *INSTRUCTION_NAMES)
NESTED_BUDGET = 8_000  # characters of one folder file appended to a tool result
_MAX_BYTES = 1_000_000


def repository_root(project_root: Path) -> Path:
    """The nearest folder at or above the working folder that holds `.git` (the working folder when none)."""
    start = real_path(project_root) or project_root
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    return start


def ancestor_folders(project_root: Path) -> list[Path]:
    """The folders from the repository root down to the working folder's parent (empty at the root)."""
    start = real_path(project_root) or project_root
    top = repository_root(project_root)
    if top == start:
        return []
    chain = [folder for folder in start.parents if folder == top or folder.is_relative_to(top)]
    return list(reversed(chain))


def instruction_sources(project_root: Path, paicli_home: Path) -> list[tuple[Path, Path]]:
    """(file, import root) in the order they are concatenated: the reference's five PAI.md locations with the
    ancestors' and the working folder's AGENTS.md / CLAUDE.md among them (ancestors read inside the repository)."""
    root, home = project_root, paicli_home
    top = repository_root(project_root)
    ancestors = [(folder / name, top) for folder in ancestor_folders(root) for name in INSTRUCTION_NAMES]
    return [
        (home / "PAI.md", home),
        *ancestors,
        (root / "PAI.md", root),
        *((root / name, root) for name in INSTRUCTION_NAMES),
        (root / ".paicli" / "PAI.md", root),
        (root / "PAI.local.md", root),
        (root / ".paicli" / "PAI.local.md", root),
    ]


def text_key(text: str) -> str:
    """Identical files (a CLAUDE.md copied from AGENTS.md, or a symlink to it) are loaded once."""
    return hashlib.sha256(text.strip().encode("utf-8", "surrogatepass")).hexdigest()


class NestedInstructions:
    """The folder files below the working folder, each handed out once per conversation (/clear forgets), and
    again once compaction has cleared or summarised away the tool result that carried it."""

    def __init__(self, project_root: Path, loaded: Callable[[], Iterable[str]] = tuple) -> None:
        """`loaded`: the text keys of the files the system prompt carries (asked at first use): a folder
        file identical to one of them is not handed out again."""
        self.project_root = project_root
        self._loaded = loaded
        self._prompt_keys: frozenset[str] | None = None
        self._given: dict[str, str] = {}  # shown path -> text key
        self._visible: Callable[[], str] | None = None
        self._lock = threading.Lock()

    def follow(self, visible: Callable[[], str]) -> None:
        """`visible`: the text of the conversation's current view, asked only when a file was handed out before."""
        self._visible = visible

    def reset(self) -> None:
        with self._lock:
            self._given.clear()

    def note_for(self, relative_paths: Iterable[str]) -> str:
        """Text to append to a tool result about these paths (relative to the root): "" when nothing is new."""
        parts: list[str] = []
        for relative in relative_paths:
            for folder in _folders_below_root(relative, self.project_root):
                for name in NESTED_NAMES:
                    part = self._take(folder, name)
                    if part:
                        parts.append(part)
        return "".join(parts)

    def _take(self, folder: PurePosixPath, name: str) -> str:
        shown = (folder / name).as_posix()
        text = read_project_text(self.project_root / shown, self.project_root, _MAX_BYTES)
        if text is None or not text.strip():
            return ""
        key = text_key(text)
        if self._prompt_keys is None:
            self._prompt_keys = frozenset(self._loaded())
        if key in self._prompt_keys:
            return ""
        with self._lock:
            if self._still_shown(shown, key):
                return ""
            self._given[shown] = key
        body = text.strip()
        if len(body) > NESTED_BUDGET:
            body = body[:NESTED_BUDGET] + "\n[内容过长，已截断]"
        return f"\n\n{_header(shown)}适用于 {folder.as_posix()}/ 下的工作；是仓库作者的话，不是用户的指令）]\n{body}"

    def _still_shown(self, shown: str, key: str) -> bool:
        """Handed out before (this path, or an identical file) and, when a view is followed, still in it."""
        earlier = [path for path, given in self._given.items() if path == shown or given == key]
        if not earlier:
            return False
        if self._visible is None:
            return True
        view = self._visible()
        kept = [path for path in earlier if _header(path) in view]
        for path in set(earlier) - set(kept):
            del self._given[path]
        return bool(kept)


def _header(shown: str) -> str:
    return f"[目录说明 {shown}（仓库里的文件，"


def _folders_below_root(relative: str, root: Path) -> list[PurePosixPath]:
    """The folders between the root (excluded) and the path's own folder, outermost first."""
    path = PurePosixPath(relative)
    if path.is_absolute() or ".." in path.parts or relative in ("", "."):
        return []
    folder = path if (root / relative).is_dir() else path.parent
    chain = [folder, *folder.parents]
    return [item for item in reversed(chain) if item.as_posix() not in ("", ".")]
