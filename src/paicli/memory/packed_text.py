"""Lists of texts in one UTF-8 buffer, for the memory caches beside the file of record (the snapshot, the vector
index): each item followed by a NUL, so loading 50k ids or texts is one decode and one split, a third of what a
JSON parse of the same list costs. A list with a NUL inside an item is kept as JSON; the form is saved with it
(a cache saved before the packed form existed says nothing and is read as JSON)."""

from __future__ import annotations

import json
from collections.abc import Sequence

NUL = "\x00"
PACKED = "nul"
JSON = "json"


def pack(items: Sequence[str]) -> tuple[bytes, str]:
    """The bytes to save and their form."""
    text = NUL.join(items) + NUL if items else ""
    if text.count(NUL) != len(items):  # an item holds a NUL itself
        return json.dumps(list(items), ensure_ascii=False).encode("utf-8", "surrogatepass"), JSON
    return text.encode("utf-8", "surrogatepass"), PACKED


def unpack(data: bytes | memoryview, form: str = JSON) -> list[str] | None:
    """The items; None when `data` is not a list of texts in that form. `data` may be a view of a mapped file
    (decoded from where it lies, not copied first)."""
    text = str(data, "utf-8", "surrogatepass")
    if form == PACKED:
        if not text:
            return []
        if not text.endswith(NUL):
            return None
        return text[:-1].split(NUL)
    if form != JSON:
        return None
    items = json.loads(text)
    if not isinstance(items, list) or not all(type(item) is str for item in items):
        return None
    return items


DIGEST_WIDTH = 16  # `table.digest`: 8 bytes as hex


class Digests:
    """Fixed-width ASCII digests, the saved ones read from one buffer and decoded one at a time when asked for,
    the added ones kept as they come: a loaded vector index compares a handful of digests per query, so it
    does not build 50k strings up front."""

    def __init__(self, packed: bytes = b"") -> None:
        if len(packed) % DIGEST_WIDTH or not packed.isascii():
            raise ValueError("not a run of fixed-width ASCII digests")
        self._packed = packed
        self._saved = len(packed) // DIGEST_WIDTH
        self._added: list[str] = []

    def __len__(self) -> int:
        return self._saved + len(self._added)

    def __getitem__(self, index: int) -> str:
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        if index >= self._saved:
            return self._added[index - self._saved]
        start = index * DIGEST_WIDTH
        return self._packed[start : start + DIGEST_WIDTH].decode("ascii")

    def append(self, value: str) -> None:
        self._added.append(value)
