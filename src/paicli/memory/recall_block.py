"""The block of retrieved memories as the model sees it: one line per entry with its type, when it was written
and last verified, and the tags that tell the model to check it first (pending, stale, a linked file changed)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta, timezone, tzinfo
from pathlib import Path
from typing import NamedTuple, Protocol

from paicli.memory.freshness import changed_linked_file
from paicli.memory.provenance import MODEL_TAG, is_model_saved

HEADER = "## 相关长期记忆"
LEAD = "下面这些记忆只是线索而不是事实：版本号、配置、路径这类会变的信息，动手之前请先对照当前文件确认。"
PENDING_TAG = "[自动提取，待核实]"
STALE_TAG = "[可能已过时]"
MAX_STALE_DAYS = 999_999_999  # timedelta's limit


class MemoryEntryLike(Protocol):
    @property
    def id(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def type(self) -> object: ...
    @property
    def timestamp(self) -> datetime: ...
    @property
    def last_verified_at(self) -> datetime: ...
    @property
    def metadata(self) -> Mapping[str, str]: ...
    @property
    def token_count(self) -> int: ...


class Ranked(NamedTuple):
    entry: MemoryEntryLike
    score: float
    keyword_score: float


def aware(moment: datetime) -> datetime:
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def is_stale(entry: MemoryEntryLike, now: datetime, stale_days: int) -> bool:
    if stale_days <= 0:
        return False
    # subtract rather than add, and cap the period: a huge configured period must not overflow datetime
    return aware(now) - aware(entry.last_verified_at) > timedelta(days=min(stale_days, MAX_STALE_DAYS))


def is_pending(entry: MemoryEntryLike) -> bool:
    return str(entry.metadata.get("verification_pending", "")).strip().lower() == "true"


def _local_date(moment: datetime, zone: tzinfo | None) -> str:
    local = aware(moment).astimezone(zone) if zone is not None else aware(moment).astimezone()
    return local.strftime("%Y-%m-%d")


def _type_label(entry: MemoryEntryLike) -> str:
    kind = entry.type
    value = getattr(kind, "value", None)
    return str(value if value is not None else kind)


def render_line(
    entry: MemoryEntryLike,
    now: datetime,
    stale_days: int,
    zone: tzinfo | None = None,
    project_root: Path | None = None,
) -> str:
    pending = is_pending(entry)
    stale = is_stale(entry, now, stale_days)
    changed = changed_linked_file(entry.content, entry.last_verified_at, project_root)
    # a model's save is never passed off as an extracted quote of the user's words
    pending_tag = MODEL_TAG if is_model_saved(entry.metadata) else PENDING_TAG
    tags = f"[{_type_label(entry)}]" + (pending_tag if pending else "")
    tags += STALE_TAG if stale or changed else ""
    detail = f"（写入 {_local_date(entry.timestamp, zone)}"
    detail += "，尚未经用户核实" if pending else f"，最后核实 {_local_date(entry.last_verified_at, zone)}"
    if stale:
        detail += f"，已超过 {stale_days} 天未核实，使用前必须先核实"
    if changed:
        detail += f"，它提到的文件 {changed} 在最后核实之后改过，使用前必须先核实"
    return f"- {tags} {_one_line(entry.content)}{detail}）"


def _one_line(content: str) -> str:
    """A saved fact with line breaks must not break the one-line-per-entry block (or start a new heading)."""
    parts = content.splitlines()
    if len(parts) == 1 and parts[0] == content:
        return content
    return " ".join(part.strip() for part in parts if part.strip())


def render(
    ranked: Sequence[Ranked],
    max_tokens: int,
    now: datetime,
    stale_days: int,
    zone: tzinfo | None = None,
    project_root: Path | None = None,
    shown: list[str] | None = None,
) -> str:
    """Header once any entry passed; lines in rank order until the first one that does not fit."""
    if not ranked:
        return ""
    parts = [f"{HEADER}\n\n{LEAD}\n\n"]
    used = 0
    for item in ranked:
        cost = item.entry.token_count
        if used + cost > max_tokens:
            break
        used += cost
        parts.append(render_line(item.entry, now, stale_days, zone, project_root) + "\n")
        if shown is not None:
            shown.append(item.entry.content)
    parts.append("\n")
    return "".join(parts)


def memory_context_tokens(window: int) -> int:
    """Spec 1.4: max(500, min(5000, window / 200)) with the window floored at 8000."""
    return max(500, min(5000, max(8000, window) // 200))
