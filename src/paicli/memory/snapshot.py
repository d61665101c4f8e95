"""A saved copy of the parsed memory file (`long_term_memory.snapshot.npz`), so a new process need not parse it.

Parsing a 50k-entry `long_term_memory.json` costs seconds of CPU and builds 50k objects; the snapshot holds
what the store keeps of it instead: every entry's id, text and JSON block (the exact text the file holds for
it) and the table's columns, in a few flat arrays that load in milliseconds. It is only a cache: it names the
memory file's signature (inode, modification time, size) and is used only while the file still has it. A
file with items paicli cannot use (kept by `unparsed.py`) is never snapshotted: it is always parsed.
Entries stay unparsed (their JSON block) until something asks for one. The blocks live in a file of their own
(`long_term_memory.snapshot.blocks`, named by a token the snapshot holds), mapped into memory rather than read:
the pages of entries nobody reads never cost memory.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paicli.fsperm import PRIVATE_FILE
from paicli.memory import npz_map, packed_text

log = logging.getLogger(__name__)

SUFFIX = ".snapshot.npz"
BLOCKS_SUFFIX = ".snapshot.blocks"
FORMAT = 2
_TOKEN_BYTES = 16
LOWERED_FORM = "utf-16-le"  # decodes into a str at memory speed (UTF-8 costs twice as much for Han text)
Signature = tuple[int, int, int]


def snapshot_path_for(memory_file: Path) -> Path:
    return memory_file.with_name(memory_file.stem + SUFFIX)


@dataclass(frozen=True)
class Snapshot:
    signature: Signature
    ids: list[str]
    contents: list[str]
    blocks: Any  # every entry's JSON block, UTF-8, back to back (bytes-like: a read-only memory map)
    offsets: Any  # int64 array: block i is blocks[offsets[i]:offsets[i + 1]]
    columns: Mapping[str, Any]
    fingerprint: int
    rows: dict[str, int]  # id -> its place (the store's maps start as copies of it)
    lowered: str | None  # the contents joined by NUL and lower-cased, as saved (the table's joined text)


def _text_array(items: Sequence[str]) -> tuple[Any, str]:
    import numpy as np

    data, form = packed_text.pack(items)
    return np.frombuffer(data, dtype=np.uint8), form


def write(
    path: Path,
    signature: Signature,
    ids: Sequence[str],
    contents: Sequence[str],
    blocks: Sequence[bytes],
    columns: Mapping[str, Any],
    fingerprint: int,
) -> None:
    import numpy as np

    lengths = np.fromiter((len(block) for block in blocks), np.int64, len(blocks))
    offsets = np.full(len(blocks) + 1, _TOKEN_BYTES, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    offsets[1:] += _TOKEN_BYTES
    token = os.urandom(_TOKEN_BYTES)
    _write_atomically(blocks_path(path), lambda handle: handle.write(token + b"".join(blocks)))
    id_array, id_form = _text_array(ids)
    content_array, content_form = _text_array(contents)
    texts = {"ids": id_form, "contents": content_form}
    extra: dict[str, Any] = {}
    if content_form == packed_text.PACKED:  # lower-casing 50k texts costs more than decoding them
        lowered = packed_text.NUL.join(contents).lower()
        extra["lowered"] = np.frombuffer(lowered.encode(LOWERED_FORM, "surrogatepass"), dtype=np.uint8)
        texts["lowered"] = LOWERED_FORM
    meta = {
        "blocks": token.hex(),
        "format": FORMAT,
        "signature": list(signature),
        "projects": list(columns["projects"]),
        "fingerprint": str(fingerprint),
        "texts": texts,
    }
    arrays = {
        "meta": np.frombuffer(json.dumps(meta, ensure_ascii=False).encode("utf-8"), dtype=np.uint8),
        "ids": id_array,
        "contents": content_array,
        **extra,
        "offsets": offsets,
        **{name: np.asarray(columns[name]) for name in ("truth", "confirmed", "stamp", "project", "kind")},
    }
    _write_atomically(path, lambda handle: np.savez(handle, **arrays))


def blocks_path(path: Path) -> Path:
    return path.with_name(
        path.name[: -len(SUFFIX)] + BLOCKS_SUFFIX if path.name.endswith(SUFFIX) else path.name + ".blocks"
    )


def _write_atomically(path: Path, fill: Callable[[Any], object]) -> None:
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE), "wb") as handle:
            fill(handle)
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)


def _map_blocks(path: Path, token: str, size: int) -> Any:
    """The blocks file mapped read-only, when it is the one the snapshot names."""
    import mmap

    with open(blocks_path(path), "rb") as handle:
        if os.fstat(handle.fileno()).st_size != size or size < _TOKEN_BYTES:
            return None
        mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    if mapped[:_TOKEN_BYTES].hex() != token:
        mapped.close()
        return None
    return mapped


def load(path: Path, signature: Signature | None) -> Snapshot | None:
    """The snapshot when it was made of the file with this signature; None otherwise (or when unusable)."""
    if signature is None or not path.exists():  # the common case of a small store: numpy stays unloaded
        return None
    import numpy as np

    try:
        data = npz_map.open_npz(path)
        meta = json.loads(data["meta"].tobytes())
        if meta.get("format") != FORMAT or tuple(meta.get("signature", ())) != signature:
            return None
        forms = meta.get("texts") or {}
        ids = packed_text.unpack(data["ids"].data, str(forms.get("ids", packed_text.JSON)))
        contents = packed_text.unpack(data["contents"].data, str(forms.get("contents", packed_text.JSON)))
        lowered = None
        if forms.get("lowered") == LOWERED_FORM and "lowered" in data:
            lowered = str(data["lowered"].data, LOWERED_FORM, "surrogatepass")
        offsets = data["offsets"].astype(np.int64)
        columns: dict[str, Any] = {
            name: data[name] for name in ("truth", "confirmed", "stamp", "project", "kind")
        }
    except FileNotFoundError:
        return None
    except Exception:  # a damaged or foreign file only costs a parse of the memory file
        log.warning("memory snapshot %s unusable; parsing the memory file", path, exc_info=True)
        return None
    try:
        blocks = _map_blocks(path, str(meta.get("blocks", "")), int(offsets[-1]) if len(offsets) else 0)
    except (OSError, ValueError):
        blocks = None
    if blocks is None:
        return None
    columns["projects"] = [str(name) for name in meta.get("projects", [])]
    fingerprint = meta.get("fingerprint")
    if not isinstance(fingerprint, str) or not fingerprint.isdigit():
        return None
    if ids is None or contents is None:
        return None
    count = len(ids)
    if not (
        len(contents) == count
        and len(offsets) == count + 1
        and all(len(column) == count for name, column in columns.items() if name != "projects")
    ):
        return None
    rows = dict(zip(ids, range(count), strict=True))
    if len(rows) != count:  # an id twice
        return None
    return Snapshot(signature, ids, contents, blocks, offsets, columns, int(fingerprint), rows, lowered)
