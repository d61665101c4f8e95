"""Audit trail of dangerous tool calls (spec 9.2): `<paicli home>/audit/audit-YYYY-MM-DD.jsonl`.

One compact JSON line per write_file / edit_file / execute_command call, whether it ran, was refused by a
guard or was denied by the human, and one per call of any other tool that a guard or the turn policy refused. A setting moves the folder. Writing is best effort: an audit
failure never stops a tool.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections.abc import Callable, Iterable
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import TypedDict, cast

from paicli.fsperm import open_private_append
from paicli.redact import Redactor
from paicli.timefmt import local_time_text

MAX_ARGUMENT_CHARS = 500
Clock = Callable[[], datetime]


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class AuditRecord(TypedDict, total=False):
    """One line of the audit file (JSON Lines)."""

    timestamp: str
    tool: str
    arguments: str
    outcome: str  # executed | blocked | denied | cancelled
    success: bool
    detail: str


class AuditLog:
    """Records are redacted like the ledger (keys, bearer tokens, `password=…`) before they reach the file."""

    def __init__(self, directory: Path, clock: Clock = _utc_now, secrets: Iterable[str] = ()) -> None:
        self.directory = directory
        self._clock = clock
        self._lock = threading.Lock()
        self._redactor = Redactor(secrets)

    def _file(self, when: datetime) -> Path:
        return self.directory / f"audit-{when.astimezone().strftime('%Y-%m-%d')}.jsonl"

    def record(self, tool: str, arguments: str, outcome: str, success: bool, detail: str = "") -> None:
        """outcome: executed | blocked | denied | cancelled."""
        when = self._clock()
        entry: AuditRecord = {
            "timestamp": when.astimezone(timezone.utc).isoformat().replace("+00:00", "Z"),
            "tool": tool,
            "arguments": self._redactor.text(self._redactor.arguments(arguments)[:MAX_ARGUMENT_CHARS]),
            "outcome": outcome,
            "success": success,
        }
        if detail:
            entry["detail"] = self._redactor.text(detail[:MAX_ARGUMENT_CHARS])
        line = json.dumps(entry, ensure_ascii=False, separators=(",", ":")) + "\n"
        with self._lock, contextlib.suppress(OSError), open_private_append(self._file(when)) as handle:
            handle.write(line)

    def recent(self, limit: int = 10) -> list[AuditRecord]:
        """Today's last `limit` records (for `/audit [N]`), oldest first."""
        path = self._file(self._clock())
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError:
            return []
        records: list[AuditRecord] = []
        for line in lines[-max(1, min(limit, 100)) :]:
            with contextlib.suppress(ValueError):
                parsed = json.loads(line)
                if isinstance(parsed, dict):  # a hand-edited line must not break /audit
                    records.append(cast("AuditRecord", parsed))
        return records


def format_audit(records: list[AuditRecord], zone: tzinfo | None = None) -> str:
    """`zone`: the zone times are shown in (None: this machine's local time); the file keeps UTC."""
    if not records:
        return "📭 今天还没有审计记录。"
    lines = [f"🧾 今天最近 {len(records)} 条审计记录："]
    for record in records:
        mark = "✅" if record.get("success") else "❌"
        lines.append(
            f"  {mark} {local_time_text(str(record.get('timestamp', '')), zone)} {record.get('tool', '')} [{record.get('outcome', '')}] "
            f"{record.get('arguments', '')}"
        )
    return "\n".join(lines)
