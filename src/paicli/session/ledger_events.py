"""The newest event of a kind in a ledger file, read from the end (pins, compaction receipts)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from paicli.session.resume import LedgerEntry, parse_entries
from paicli.session.scan import find_backwards, line_start


def last_event(
    path: Path | None, event: str, mode: str = "react", actor: str | None = None
) -> LedgerEntry | None:
    """The last readable `event` entry of `mode` (and `actor`, when given); None when there is none or the
    file cannot be read."""
    if path is None:
        return None
    marker = b'"event":' + json.dumps(event).encode()
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            for hit in find_backwards(handle, marker, size):
                handle.seek(line_start(handle, hit))
                entries, _ = parse_entries([handle.readline()], first_line=None)
                found = entries[0] if entries else None
                if found and found.event == event and found.mode == mode and actor in (None, found.actor):
                    return found
    except OSError:
        return None
    return None


def read_entries(path: Path | None) -> list[LedgerEntry]:
    """Every readable entry of a ledger file, in order ([] when it cannot be read)."""
    if path is None:
        return []
    try:
        data = path.read_bytes()
    except OSError:
        return []
    return parse_entries(data.splitlines())[0]
