"""Small stand-ins for the memory store: entries with the MemoryEntry field names, and a list-backed store."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

NOW = datetime(2026, 9, 23, tzinfo=timezone.utc)


@dataclass(frozen=True)
class FakeEntry:
    id: str
    content: str
    timestamp: datetime = NOW
    last_verified_at: datetime | None = None
    metadata: dict[str, str] = field(default_factory=dict)
    token_count: int = 10
    type: str = "FACT"

    def __post_init__(self) -> None:
        if self.last_verified_at is None:
            object.__setattr__(self, "last_verified_at", self.timestamp)


def entry(entry_id: str, content: str, age: timedelta = timedelta(0), **kwargs: object) -> FakeEntry:
    return FakeEntry(entry_id, content, timestamp=NOW - age, **kwargs)  # type: ignore[arg-type]


class ListStore:
    def __init__(self, entries: Sequence[FakeEntry]) -> None:
        self.entries = list(entries)
        self.asked: list[str] = []

    def get_all(self, project_key: str) -> list[FakeEntry]:
        self.asked.append(project_key)
        return list(self.entries)
