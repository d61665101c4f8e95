"""Each indexed memory's owner reading, parsed once and saved with the vector index (issue 49).

The owner rule (`ranking.py`) needs the owner and the subject of the memories a query ranks first; reading
them runs the claim parser, which segments the text. A query over a big store would parse the same look-alikes
in every process (a `-p` run at 50k memories: tens of parses, a tenth of its CPU), so the index parses a memory
when it indexes it and keeps the result by position: `long_term_memory.vectors.npz` carries it, with the key of
the parser that produced it. A saved reading is used only while that key is the running parser's; otherwise
(a changed parser, an index saved before readings existed) the memory is parsed the first time a query needs
it, and the next save keeps that reading.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paicli.memory import ranking

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    IntArray = npt.NDArray[np.int64]

_SEPARATOR = "\x1f"
# What a reading depends on: the owner rule's gate and generic words, and the claim parser with its word classes.
_PARSER_FILES = (
    "ranking.py",
    "subject.py",
    "subject_words.py",
    "claim_grammar.py",
    "claim_tokens.py",
    "claim_clause.py",
    "claim_verbs.py",
    "claim_roles.py",
    "role_items.py",
    "role_words.py",
)


def encode(reading: tuple[str, str]) -> str:
    owner, subject = reading
    return f"{owner}{_SEPARATOR}{subject}" if owner or subject else ""


def decode(encoded: str) -> tuple[str, str]:
    owner, _, subject = encoded.partition(_SEPARATOR)
    return owner, subject


def read(text: str) -> str:
    """The encoded (owner, subject) of a memory's text."""
    return encode(ranking.read_once(text))


@lru_cache(maxsize=1)
def parser_key() -> str:
    """Identifies the parser: a hash of its modules' sources ("" when one cannot be read: nothing saved is then
    trusted)."""
    digest = hashlib.blake2b(digest_size=8)
    for name in _PARSER_FILES:  # beside this module, in the same package
        try:
            digest.update(Path(__file__).with_name(name).read_bytes())
        except OSError:
            return ""
    return digest.hexdigest()


class Readings:
    """Encoded readings by index position: those saved with the index (decoded one at a time, on demand) and
    those read in this process."""

    def __init__(self) -> None:
        self._read: dict[int, str] = {}
        self._blob = b""
        self._offsets: Any = None  # int64, one more than the saved positions
        self._known: Any = None  # bool per saved position: False where the file had no reading
        self.parsed = 0  # texts read in this process

    def add(self, position: int, text: str) -> None:
        self._read[position] = read(text)
        self.parsed += 1

    def get(self, position: int, text: str) -> tuple[str, str]:
        """The reading at `position`, whose text is `text` (parsed now when no reading is known)."""
        found = self._read.get(position)
        if found is None:
            found = self._saved(position)
        if found is None:
            found = self._read[position] = read(text)
            self.parsed += 1
        return decode(found)

    def _saved_bytes(self, position: int) -> bytes | None:
        offsets, known = self._offsets, self._known
        if offsets is None or position >= len(known) or not known[position]:
            return None
        return self._blob[int(offsets[position]) : int(offsets[position + 1])]

    def _saved(self, position: int) -> str | None:
        found = self._saved_bytes(position)
        return None if found is None else found.decode("utf-8", "surrogatepass")

    def arrays(self, live: list[int]) -> dict[str, Any]:
        """What the index file keeps of the readings of these positions, in this order."""
        import numpy as np

        parts: list[bytes | None] = []
        for position in live:
            text = self._read.get(position)
            parts.append(
                text.encode("utf-8", "surrogatepass") if text is not None else self._saved_bytes(position)
            )
        offsets = np.zeros(len(parts) + 1, dtype=np.int64)
        if parts:
            np.cumsum([len(part or b"") for part in parts], out=offsets[1:])
        return {
            "readings": np.frombuffer(b"".join(part or b"" for part in parts), dtype=np.uint8),
            "reading_offsets": offsets,
            "reading_known": np.asarray([part is not None for part in parts], dtype=bool),
        }

    def load(self, data: Any, count: int, key: object) -> None:
        """Adopt the readings saved for `count` positions when the running parser made them."""
        import numpy as np

        if key != parser_key() or not parser_key() or "reading_offsets" not in data.files:
            return
        offsets = data["reading_offsets"].astype(np.int64, copy=False)
        known = data["reading_known"].astype(bool, copy=False)
        blob = data["readings"].tobytes()
        if len(offsets) != count + 1 or len(known) != count or (count and offsets[-1] != len(blob)):
            return
        if count and (offsets[0] != 0 or bool((np.diff(offsets) < 0).any())):
            return
        self._blob, self._offsets, self._known = blob, offsets, known
