"""The session retention setting at start-up (issue 43): with the session retention setting, ledgers whose last
activity is older go when a session starts (one notice says how many). Kept out of cli/session_admin.py, which
imports AppBackend for its commands, so that the backend calls it without an import circle."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from paicli.config import knobs
from paicli.context.offload import OFFLOAD_DIR
from paicli.session.retention import delete, expired

if TYPE_CHECKING:
    from paicli.cli.compose import Components


def startup_retention(parts: Components) -> None:
    """With a retention setting, sessions past it go when a session starts (one notice says how many)."""
    days = retention_days(parts)
    if not days:
        return
    now = int(time.time() * 1000)
    found = expired(parts.settings.paicli_home, days, now, keep=[parts.ledger.session_id])
    count, _ = delete(found, parts.settings.project_root / OFFLOAD_DIR)
    if count:
        key = knobs.SESSION_RETENTION_DAYS.key
        parts.notices.post(f"🧹 已删除 {count} 个超过 {days} 天没有活动的会话（{key}={days}）")


def retention_days(parts: Components) -> int | None:
    return parts.values.files.retention_days
