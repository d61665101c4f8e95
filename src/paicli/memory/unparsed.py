"""What the memory file holds that paicli cannot use, kept so that no write ever drops it.

An item of the top-level array that is not a usable entry (unknown `type`, a number for `id` or `content`, a
bare string, a second entry with an id already seen, …) is kept as its decoded JSON value, anchored after
the entry that preceded it, and written back unchanged in value. Unknown keys of a usable entry (written by
a newer or foreign tool) ride along with that entry the same way. A file without such items is written
exactly as before (the reference layout, byte for byte).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from paicli.memory.entry import MemoryEntry
from paicli.memory.jackson import json_scalar

log = logging.getLogger(__name__)

KNOWN_KEYS = frozenset({"id", "content", "type", "timestamp", "lastVerifiedAt", "metadata", "tokenCount"})
# fields a lenient load may have to replace (an unreadable date, metadata that is not an object of strings,
# a tokenCount that is not a count): their original value is written back while the field is unchanged
_LENIENT_KEYS = ("timestamp", "lastVerifiedAt", "metadata", "tokenCount")


@dataclass(frozen=True)
class KeptItem:
    anchor: str | None  # id of the usable entry it followed in the file; None = before every entry
    value: Any
    before: bool = False  # written just before its anchor instead (a shadowed entry must stay earlier)


@dataclass
class Unparsed:
    items: list[KeptItem] = field(default_factory=list)
    extras: dict[str, dict[str, Any]] = field(default_factory=dict)  # entry id -> unknown keys, in file order
    # entry id -> {field: (value in the file, value as loaded)} for fields the lenient load had to replace
    originals: dict[str, dict[str, tuple[Any, Any]]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.items or self.extras or self.originals)

    def as_written(self, entry: MemoryEntry) -> dict[str, Any]:
        """The entry's JSON object with unknown keys kept and replaced fields restored while unchanged."""
        data = entry.to_json_dict()
        for key, (original, loaded) in self.originals.get(entry.id, {}).items():
            if data.get(key) == loaded:
                data[key] = original
        return {**data, **self.extras.get(entry.id, {})}

    def fingerprint(self) -> str:
        return json.dumps([[i.anchor, i.value] for i in self.items], sort_keys=True, default=str)


def split_items(data: list[Any], parse: Callable[[Any], MemoryEntry]) -> tuple[list[MemoryEntry], Unparsed]:
    """Usable entries in file order, and everything else kept for the next write.

    Entries are keyed by id, last wins, at the first one's place (spec 4.2, a LinkedHashMap put); the earlier
    entry it shadows is kept too, written just before it so that the same one wins again on the next load."""
    entries: dict[str, MemoryEntry] = {}
    raw: dict[str, Any] = {}
    kept = Unparsed()
    anchor: str | None = None
    for item in data:
        try:
            entry = parse(item)
        except (ValueError, TypeError) as exc:
            log.warning("keeping an unreadable long-term memory entry unchanged: %s", exc)
            kept.items.append(KeptItem(anchor, item))
            continue
        if entry.id in entries:
            log.warning("keeping the shadowed long-term memory entry with id %s unchanged", entry.id)
            kept.items.append(KeptItem(entry.id, raw[entry.id], before=True))
        entries[entry.id] = entry
        raw[entry.id] = item
        anchor = entry.id
        extra = {k: v for k, v in item.items() if k not in KNOWN_KEYS} if isinstance(item, Mapping) else {}
        _remember(kept.extras, entry.id, extra)
        _remember(kept.originals, entry.id, _replaced_fields(item, entry))
    return list(entries.values()), kept


def _remember(table: dict[str, Any], key: str, value: dict[str, Any]) -> None:
    if value:
        table[key] = value
    else:
        table.pop(key, None)


def _replaced_fields(item: Any, entry: MemoryEntry) -> dict[str, tuple[Any, Any]]:
    if not isinstance(item, Mapping):
        return {}
    loaded = entry.to_json_dict()
    return {
        key: (item[key], loaded[key])
        for key in _LENIENT_KEYS
        if key in item and item[key] is not None and item[key] != loaded[key]
    }


def interleave(
    entries: Iterable[MemoryEntry], kept: Unparsed, render_entry: Callable[[MemoryEntry], str]
) -> list[str]:
    """Rendered blocks: kept items after their anchor (or at the end when it is gone), extras in place."""
    by_anchor: dict[str | None, list[KeptItem]] = {}
    ahead: dict[str, list[KeptItem]] = {}
    for item in kept.items:
        if item.before and item.anchor is not None:
            ahead.setdefault(item.anchor, []).append(item)
        else:
            by_anchor.setdefault(item.anchor, []).append(item)
    blocks = [render_value(item.value, 0) for item in by_anchor.pop(None, [])]
    for entry in entries:
        blocks.extend(render_value(item.value, 0) for item in ahead.pop(entry.id, []))
        if entry.id in kept.extras or entry.id in kept.originals:
            blocks.append(render_value(kept.as_written(entry), 0))
        else:
            blocks.append(render_entry(entry))
        blocks.extend(render_value(item.value, 0) for item in by_anchor.pop(entry.id, []))
    # what remains in `ahead` are older copies of an id the user deleted: they go with it (the backup keeps them)
    for leftovers in by_anchor.values():
        blocks.extend(render_value(item.value, 0) for item in leftovers)
    return blocks


def render_value(value: Any, depth: int, scalar: Callable[[Any], str] | None = None) -> str:
    """Jackson's default pretty printer for any JSON value (objects indented by two, arrays on one line)."""
    show = scalar or _scalar
    if isinstance(value, Mapping):
        if not value:
            return "{ }"
        pad = "  " * (depth + 1)
        inner = ",\n".join(
            f"{pad}{show(str(k))} : {render_value(v, depth + 1, scalar)}" for k, v in value.items()
        )
        return "{\n" + inner + "\n" + "  " * depth + "}"
    if isinstance(value, list):
        if not value:
            return "[ ]"
        return "[ " + ", ".join(render_value(v, depth, scalar) for v in value) + " ]"
    return show(value)


def _scalar(value: Any) -> str:
    return json_scalar(value)
