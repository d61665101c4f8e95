"""How long session ledgers are kept (the session retention setting, `/sessions clean`), and a session's name
(`/rename`).

Retention looks at each ledger's last activity (its mtime) and deletes those older than the limit, never the
running session nor one another process holds (session.flock). A session's name is a `session_renamed` event:
the ledger stays append-only and the last name wins.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from paicli.session.catalog_scan import list_path
from paicli.session.flock import in_use
from paicli.session.ledger import ledger_dir, validate_session_id
from paicli.session.ledger_index import index_path

RENAME_EVENT = "session_renamed"  # {title}
MAX_TITLE_CHARS = 80
DAY_MS = 86_400_000


@dataclass(frozen=True)
class Expired:
    session_id: str
    path: Path
    updated_ms: int
    size: int


def clean_title(text: str) -> str:
    """One line of printable text, at most MAX_TITLE_CHARS."""
    flat = " ".join("".join(c if c.isprintable() else " " for c in text).split())
    return flat[:MAX_TITLE_CHARS]


def expired(home: Path, days: int, now_ms: int, keep: Iterable[str] = ()) -> list[Expired]:
    """Ledgers whose last activity is more than `days` days old (oldest first), except `keep` and those in use."""
    directory = ledger_dir(home)
    limit = now_ms - days * DAY_MS
    kept = set(keep)
    found: list[Expired] = []
    try:
        paths = [path for path in directory.iterdir() if path.name.endswith(".jsonl")]
    except OSError:
        return []
    for path in paths:
        session_id = path.name[: -len(".jsonl")]
        try:
            validate_session_id(session_id)
            info = path.lstat()
        except (ValueError, OSError):
            continue
        updated = info.st_mtime_ns // 1_000_000
        if session_id in kept or updated >= limit or not path.is_file():
            continue
        found.append(Expired(session_id, path, updated, info.st_size))
    found.sort(key=lambda item: item.updated_ms)
    return [item for item in found if not in_use(item.path)]


def delete(sessions: Iterable[Expired], outputs: Path | None = None) -> tuple[int, int]:
    """Delete the ledgers (and, under `outputs`, each session's offloaded tool output); (count, bytes)."""
    count = freed = 0
    for item in sessions:
        try:
            os.unlink(item.path)
        except OSError:
            continue
        count += 1
        freed += item.size
        for side in (index_path(item.path), list_path(item.path)):  # derived from the ledger: gone with it
            with contextlib.suppress(OSError):
                freed += side.stat().st_size
                side.unlink()
        if outputs is not None:
            folder = outputs / item.session_id
            if folder.is_dir() and not folder.is_symlink():
                freed += _tree_bytes(folder)
                with contextlib.suppress(OSError):
                    shutil.rmtree(folder)
    return count, freed


def _tree_bytes(folder: Path) -> int:
    total = 0
    for base, _, files in os.walk(folder):
        for name in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(base, name)).st_size
    return total
