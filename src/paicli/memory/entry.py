"""MemoryEntry: one long-term memory, read and written in the reference's JSON layout (spec 4.1-4.3)."""

from __future__ import annotations

import json
import logging
import math
import os
import uuid
from collections.abc import Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from paicli.context.estimate import estimate_tokens
from paicli.lazyre import lazy_pattern
from paicli.memory.clock import Clock, as_utc, utc_now

MemoryType = Literal["CONVERSATION", "FACT", "SUMMARY", "TOOL_RESULT"]
MEMORY_TYPES: tuple[str, ...] = ("CONVERSATION", "FACT", "SUMMARY", "TOOL_RESULT")
Scope = Literal["project", "global"]
log = logging.getLogger(__name__)

_INSTANT = lazy_pattern(  # a plain `-p` with an empty store parses no instant
    r"^\s*(\d{4,})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?"
    r"\s*(Z|z|[+-]\d{2}(?::?\d{2})?)?\s*$"
)


def format_instant(value: datetime) -> str:
    """Java's Instant.toString(): seconds always, fraction in groups of 3 digits only when non-zero."""
    moment = as_utc(value)
    text = moment.strftime("%Y-%m-%dT%H:%M:%S")
    micros = moment.microsecond
    if micros:
        text += f".{micros // 1000:03d}" if micros % 1000 == 0 else f".{micros:06d}"
    return text + "Z"


def parse_instant(raw: Any) -> datetime:
    """ISO-8601 instant (any precision, Z or offset; naive = UTC) or epoch seconds. Raises ValueError."""
    if isinstance(raw, bool):
        raise ValueError(f"not an instant: {raw!r}")
    if isinstance(raw, (int, float)):
        if not math.isfinite(raw):
            raise ValueError(f"not an instant: {raw!r}")
        return datetime.fromtimestamp(float(raw), timezone.utc)
    if not isinstance(raw, str):
        raise ValueError(f"not an instant: {raw!r}")
    match = _INSTANT().match(raw)
    if match is None:
        raise ValueError(f"not an instant: {raw!r}")
    year, month, day, hour, minute, second, fraction, zone = match.groups()
    micros = int((fraction or "0").ljust(9, "0")[:6])
    moment = datetime(
        int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0), micros
    )
    return moment.replace(tzinfo=_zone(zone))


def _zone(zone: str | None) -> timezone:
    if zone is None or zone in ("Z", "z"):
        return timezone.utc
    sign = -1 if zone[0] == "-" else 1
    digits = zone[1:].replace(":", "")
    hours, minutes = int(digits[:2]), int(digits[2:4] or 0)
    return timezone(sign * timedelta(hours=hours, minutes=minutes))


class MemoryEntry(BaseModel):
    """Immutable; `metadata` must not be mutated (build a new entry instead)."""

    model_config = ConfigDict(frozen=True, defer_build=True)  # built at the first entry parsed, not at import

    id: str
    content: str
    type: MemoryType = "FACT"
    timestamp: datetime
    last_verified_at: datetime
    metadata: dict[str, str] = Field(default_factory=dict)
    token_count: int = 0

    @model_validator(mode="before")
    @classmethod
    def _defaults(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            if data.get("timestamp") is None:
                data["timestamp"] = utc_now()
            if data.get("last_verified_at") is None:
                data["last_verified_at"] = data["timestamp"]
            if data.get("metadata") is None:
                data["metadata"] = {}
        return data

    @field_validator("timestamp", "last_verified_at")
    @classmethod
    def _utc(cls, value: datetime) -> datetime:
        return as_utc(value)

    @property
    def scope(self) -> Scope:
        return "project" if self.metadata.get("scope", "").lower() == "project" else "global"

    @property
    def project(self) -> str:
        return self.metadata.get("project", "")

    def is_visible_in(self, project_key: str | None) -> bool:
        if self.scope == "global":
            return True
        return bool(project_key and project_key.strip()) and project_key == self.project

    @property
    def verification_pending(self) -> bool:
        return self.metadata.get("verification_pending", "").strip().lower() == "true"

    @property
    def external_sources(self) -> str:
        """Comma-joined tool names when the entry was written while the session held external content."""
        if self.metadata.get("external_context", "").strip().lower() != "true":
            return ""
        return self.metadata.get("external_context_sources", "").strip() or "unknown"

    def with_last_verified_at(self, when: datetime) -> MemoryEntry:
        metadata = {k: v for k, v in self.metadata.items() if k != "verification_pending"}
        return self.model_copy(update={"last_verified_at": as_utc(when), "metadata": metadata})

    def to_json_dict(self) -> dict[str, Any]:
        """The reference's key order and camelCase names."""
        return {
            "id": self.id,
            "content": self.content,
            "type": self.type,
            "timestamp": format_instant(self.timestamp),
            "lastVerifiedAt": format_instant(self.last_verified_at),
            "metadata": dict(self.metadata),
            "tokenCount": self.token_count,
        }

    @staticmethod
    def from_json_dict(data: Mapping[str, Any], clock: Clock = utc_now) -> MemoryEntry:
        """Lenient load (spec 4.2). Raises ValueError for an entry that cannot be kept."""
        if not isinstance(data, Mapping):
            raise ValueError("memory entry is not an object")
        entry_id, content = data.get("id"), data.get("content")
        if not isinstance(entry_id, str) or not entry_id.strip() or not isinstance(content, str):
            raise ValueError("memory entry needs a string id and content")
        kind = data.get("type", "FACT")
        if kind is None:
            kind = "FACT"
        if not isinstance(kind, str) or kind.upper() not in MEMORY_TYPES:
            raise ValueError(f"unknown memory type: {kind!r}")
        # An unreadable date must not cost the memory: the next write would drop a skipped entry for good.
        # A bad write time falls back to now (as a missing one does), a bad verification time to the write time.
        timestamp = _lenient_instant(data.get("timestamp"), clock, entry_id)
        verified = _lenient_instant(data.get("lastVerifiedAt"), lambda: timestamp, entry_id)
        # every field is already checked and typed above: skip pydantic validation (10k-entry files load fast)
        return MemoryEntry.model_construct(
            id=entry_id,
            content=content,
            type=kind.upper(),
            timestamp=as_utc(timestamp),
            last_verified_at=as_utc(verified),
            metadata=_string_metadata(data.get("metadata")),
            token_count=_token_count(data.get("tokenCount"), content),
        )


def _lenient_instant(raw: Any, fallback: Clock, entry_id: str) -> datetime:
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return fallback()
    try:
        return parse_instant(raw)
    except (ValueError, OverflowError, OSError):
        log.warning("memory entry %s: unreadable instant %r, using a fallback", entry_id, raw)
        return fallback()


def _string_metadata(raw: Any) -> dict[str, str]:
    if not isinstance(raw, Mapping):
        return {}
    result: dict[str, str] = {}
    for key, value in raw.items():
        if value is None:
            continue
        if isinstance(value, bool):
            result[str(key)] = "true" if value else "false"
        elif isinstance(value, str):
            result[str(key)] = value
        elif isinstance(value, (int, float)):
            result[str(key)] = str(value)
        else:
            result[str(key)] = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return result


def _token_count(raw: Any, content: str) -> int:
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
        return raw
    if isinstance(raw, float) and raw.is_integer() and raw >= 0:
        return int(raw)
    if isinstance(raw, str) and raw.strip().isdigit():
        return int(raw.strip())
    return estimate_tokens(content)


def new_id() -> str:
    return "fact-" + uuid.uuid4().hex[:8]


def new_fact(content: str, metadata: Mapping[str, str] | None = None, clock: Clock = utc_now) -> MemoryEntry:
    now = clock()
    return MemoryEntry(
        id=new_id(),
        content=content,
        type="FACT",
        timestamp=now,
        last_verified_at=now,
        metadata=dict(metadata or {}),
        token_count=estimate_tokens(content),
    )


def normalize_scope(scope: str | None) -> Scope:
    return "global" if scope is not None and scope.strip().lower() == "global" else "project"


def normalize_project_key(path: str | os.PathLike[str] | None = None) -> str:
    """Absolute, normalised, symlinks resolved when the path exists (spec 4.3). Default: cwd."""
    raw = Path(path) if path is not None and str(path).strip() else Path.cwd()
    absolute = Path(os.path.normpath(raw.expanduser().absolute()))
    try:
        if absolute.exists():
            return str(absolute.resolve(strict=True))
    except (OSError, RuntimeError):
        pass
    return str(absolute)
