"""Instants as a person reads them: local wall-clock time to the second (stored files keep ISO-8601 UTC)."""

from __future__ import annotations

from datetime import datetime, timezone, tzinfo


def local_time(moment: datetime, zone: tzinfo | None = None) -> str:
    """`2026-12-04 21:00:00` in `zone` (None: this machine's zone); a naive moment is taken as UTC."""
    aware = moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)
    return aware.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S")


def local_time_text(raw: str, zone: tzinfo | None = None) -> str:
    """A stored ISO-8601 instant shown as local time; text that is not one (a hand-edited file) stays as it is."""
    try:
        moment = datetime.fromisoformat(raw.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return raw
    return local_time(moment, zone)
