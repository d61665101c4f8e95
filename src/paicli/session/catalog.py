"""Session listing for /resume, `--resume [ID]` and `-c`: which ledgers belong to this project.

Each file is read cheaply: its first line (the session_start event) and a byte-level count of user-input entries
kept beside it (session.catalog_scan), so a listing reads only what was appended since the last one, and at most
a capped amount of any ledger.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from paicli.session.catalog_scan import LISTING_CAP_BYTES, scan_ledger
from paicli.session.ledger import (
    SESSION_START_EVENT,
    ledger_dir,
    validate_session_id,
)

SCAN_CAP_BYTES = LISTING_CAP_BYTES
_HEAD_BYTES = 64 * 1024


@dataclass(frozen=True)
class SessionInfo:
    session_id: str
    path: Path
    started_at_ms: int
    first_input: str  # the first user input of the session ('' when none yet), at most 200 characters
    turns: int  # user inputs counted (a lower bound while a large ledger is still being counted, cap by cap)
    model: str
    provider: str
    updated_at_ms: int = 0  # the file's mtime: the last time anything was appended
    project_root: str = ""
    answered: bool = (
        True  # the model gave at least one final answer (False: every turn failed or was cut off)
    )
    title: str = ""  # the name /rename gave it ('' when none)

    @property
    def throwaway(self) -> bool:
        """Nothing worth resuming: no input, or one input that never got an answer (a failed `-p` run)."""
        return self.turns == 0 or (self.turns == 1 and not self.answered)


def _canonical_root(root: Path | str) -> str:
    return os.path.realpath(os.fspath(root))


def _first_entry(path: Path) -> dict[str, Any] | None:
    with open(path, "rb") as handle:
        head = handle.readline(_HEAD_BYTES)
    try:
        entry = json.loads(head)
    except ValueError:
        return None
    return entry if isinstance(entry, dict) and entry.get("event") == SESSION_START_EVENT else None


def read_session_info(path: Path, cap: int = SCAN_CAP_BYTES) -> SessionInfo | None:
    """None when the file is not a readable paicli session (no session_start first line)."""
    try:
        start = _first_entry(path)
        if start is None:
            return None
        raw_metadata = start.get("metadata")
        metadata: dict[str, Any] = raw_metadata if isinstance(raw_metadata, dict) else {}
        scanned = scan_ledger(path, cap)
        updated = path.stat().st_mtime_ns // 1_000_000
    except OSError:
        return None
    started = start.get("timestamp")
    return SessionInfo(
        session_id=path.name[: -len(".jsonl")],
        path=path,
        started_at_ms=started if isinstance(started, int) else 0,
        first_input=scanned.first,
        turns=scanned.turns,
        model=str(metadata.get("model") or ""),
        provider=str(metadata.get("provider") or ""),
        updated_at_ms=updated,
        project_root=str(metadata.get("projectRoot") or ""),
        answered=scanned.answered,
        title=scanned.title,
    )


def list_sessions(
    home: Path,
    project_root: Path,
    *,
    include_empty: bool = False,
    exclude_session_id: str | None = None,
    include_throwaway: bool = True,
) -> list[SessionInfo]:
    """This project's sessions, most recently active first (ties: newest start first).

    Sessions without any user input are left out unless `include_empty`, and one-turn sessions that never got
    an answer unless `include_throwaway` (the picker hides them unless asked); pass the running session's id
    as `exclude_session_id` so /resume does not offer the session that is already open.
    """
    directory = ledger_dir(home)
    root = _canonical_root(project_root)
    try:
        paths = [p for p in directory.iterdir() if p.name.endswith(".jsonl") and p.is_file()]
    except OSError:
        return []
    sessions: list[SessionInfo] = []
    for path in paths:
        if exclude_session_id is not None and path.name == f"{exclude_session_id}.jsonl":
            continue
        try:
            validate_session_id(path.name[: -len(".jsonl")])
        except ValueError:
            continue  # not a name paicli writes (and could not reopen): a renamed or foreign file
        info = read_session_info(path)
        if info is None or not info.project_root or _canonical_root(info.project_root) != root:
            continue
        if (info.turns or include_empty) and (include_throwaway or include_empty or not info.throwaway):
            sessions.append(info)
    sessions.sort(key=lambda s: (s.updated_at_ms, s.started_at_ms, s.session_id), reverse=True)
    return sessions


def find_session(home: Path, session_id: str) -> SessionInfo | None:
    """The session with this id (any project), or the only one whose id starts with it."""
    try:
        validate_session_id(session_id)
    except ValueError:
        return None
    directory = ledger_dir(home)
    exact = directory / f"{session_id}.jsonl"
    if exact.is_file():
        return read_session_info(exact)
    try:
        matches = [
            p for p in directory.iterdir() if p.name.startswith(session_id) and p.name.endswith(".jsonl")
        ]
    except OSError:
        return None
    return read_session_info(matches[0]) if len(matches) == 1 else None


def newest_session(
    home: Path, project_root: Path, exclude_session_id: str | None = None
) -> SessionInfo | None:
    """The session `paicli -c` continues: the most recently active one of this project."""
    sessions = list_sessions(home, project_root, exclude_session_id=exclude_session_id)
    return sessions[0] if sessions else None


def relative_time(then_ms: int, now_ms: int) -> str:
    """`刚刚`, `5 分钟前`, `3 小时前`, `2 天前`; a date after a month."""
    seconds = max(0, (now_ms - then_ms) // 1000)
    if seconds < 60:
        return "刚刚"
    if seconds < 3600:
        return f"{seconds // 60} 分钟前"
    if seconds < 86_400:
        return f"{seconds // 3600} 小时前"
    if seconds < 30 * 86_400:
        return f"{seconds // 86_400} 天前"
    return datetime.fromtimestamp(then_ms / 1000).strftime("%Y-%m-%d")
