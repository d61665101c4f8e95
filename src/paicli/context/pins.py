"""Pins: texts the user fixed for the whole session (`/pin`), kept verbatim through every compaction.

They live in one block of the system prompt, which clearing, summaries and the fallback never touch; the
block changes only when a pin changes, so the prompt prefix stays byte-stable otherwise. Each change writes
the whole list to the ledger (`pins` event), so `-c` and `/resume` restore the newest list.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

from paicli.context import prompts

PINS_EVENT = "pins"
MAX_PINS = 20
MAX_PIN_CHARS = 2_000
MAX_TOTAL_CHARS = 8_000


class PinError(ValueError):
    """A pin that cannot be added or removed; the message is for the user."""


def pins_from_metadata(metadata: Mapping[str, Any]) -> list[str] | None:
    raw = metadata.get("pins")
    if not isinstance(raw, list):
        return None
    return [item for item in raw if isinstance(item, str) and item.strip()]


def render_block(pins: Iterable[str]) -> str:
    items = [f"{n}. " + text.replace("\n", "\n   ") for n, text in enumerate(pins, start=1)]
    return prompts.render("pins.md", pins="\n".join(items)).strip() if items else ""


class PinBoard:
    """The session's pins, in the order they were added (numbered from 1). Thread-safe."""

    def __init__(self, pins: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._pins: list[str] = [p for p in pins if p.strip()]

    def items(self) -> tuple[str, ...]:
        with self._lock:
            return tuple(self._pins)

    def __len__(self) -> int:
        with self._lock:
            return len(self._pins)

    def add(self, text: str) -> int:
        """The pin's number (an equal pin already there keeps its number)."""
        text = text.strip()
        if not text:
            raise PinError("没有要固定的内容")
        if len(text) > MAX_PIN_CHARS:
            raise PinError(
                f"一条固定内容最多 {MAX_PIN_CHARS} 个字符（这条有 {len(text)} 个），请只固定关键的部分"
            )
        with self._lock:
            if text in self._pins:
                return self._pins.index(text) + 1
            if len(self._pins) >= MAX_PINS:
                raise PinError(f"最多固定 {MAX_PINS} 条，请先用 /unpin <编号> 取消不再需要的")
            if sum(len(p) for p in self._pins) + len(text) > MAX_TOTAL_CHARS:
                raise PinError(f"固定内容合计最多 {MAX_TOTAL_CHARS} 个字符，请先用 /unpin <编号> 腾出空间")
            self._pins.append(text)
            return len(self._pins)

    def remove(self, number: int) -> str:
        with self._lock:
            if not 1 <= number <= len(self._pins):
                raise PinError(f"没有第 {number} 条固定内容（共 {len(self._pins)} 条，/pins 查看）")
            return self._pins.pop(number - 1)

    def replace_all(self, pins: Iterable[str]) -> None:
        with self._lock:
            self._pins = [p for p in pins if p.strip()]

    def block(self) -> str:
        """The system prompt's pin block ('' without pins)."""
        return render_block(self.items())

    def to_metadata(self) -> dict[str, Any]:
        return {"pins": list(self.items())}
