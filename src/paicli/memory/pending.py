"""Fact extractions a session could not finish, handed to the next session of the same project.

`-p` (and a REPL that exits) waits a bounded time for the background extraction; what is still pending then
is written here instead of being lost: one JSON line per submitted text, redacted like everything else under
the paicli home. The next start in that project takes its lines (the file keeps the other projects') and
queues them; they run between turns like any other extraction.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from paicli import fsperm
from paicli.memory.extract_limits import input_in_range

log = logging.getLogger(__name__)

PENDING_FILE = "pending-extractions.jsonl"
MAX_LINES = 200  # a store that is never picked up stays small: the oldest lines go first


class PendingExtractions:
    def __init__(
        self, home: Path, project_key: str, redact: Callable[[str], str] = lambda text: text
    ) -> None:
        self.path = home / PENDING_FILE
        self._project = project_key
        self._redact = redact

    def record(self, texts: Sequence[str]) -> int:
        """Keep `texts` for this project's next session; returns how many were kept (never raises)."""
        kept = [text for text in texts if input_in_range(text)]  # the extractor would skip the others anyway
        if not kept:
            return 0
        now = int(time.time() * 1000)
        lines = self._lines() + [
            json.dumps({"project": self._project, "text": self._redact(text), "at": now}, ensure_ascii=False)
            for text in kept
        ]
        return len(kept) if self._write(lines[-MAX_LINES:]) else 0

    def take(self) -> list[str]:
        """This project's texts, removed from the file (the other projects' lines stay)."""
        mine: list[str] = []
        others: list[str] = []
        for line in self._lines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if not isinstance(entry, dict) or not isinstance(entry.get("text"), str):
                continue
            (mine if entry.get("project") == self._project else others).append(line)
        if mine:
            self._write(others)
        return [json.loads(line)["text"] for line in mine]

    def _lines(self) -> list[str]:
        try:
            text = self.path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return []
        return [line for line in text.splitlines() if line.strip()]

    def _write(self, lines: list[str]) -> bool:
        try:
            if not lines:
                self.path.unlink(missing_ok=True)
                return True
            fsperm.ensure_private_dir(self.path.parent)
            fsperm.write_private_text(self.path, "\n".join(lines) + "\n")
            return True
        except OSError:
            log.warning("could not write %s", self.path, exc_info=True)
            return False
