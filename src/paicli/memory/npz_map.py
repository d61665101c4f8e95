"""The memory caches' `.npz` files read through a memory map (issue 49).

`np.load` of an `.npz` copies every member it is asked for out of the zip archive and checks its CRC on the way:
for a 50k-memory store that is ~20 MB copied, checksummed and faulted in on every start, a tenth of a `-p` run's
CPU. `np.savez` stores members uncompressed, so each member's array data sits in the file as it is; this reader
finds it through the archive's directory and the `.npy` header (the public `zipfile` and `numpy.lib.format`
readers) and maps it read-only, zero-copy: pages nobody reads are never loaded. A member stored any other way is
read through `np.load`. The CRC goes unchecked: these files are caches written atomically and validated by
what they hold (signature, fingerprint, lengths and bounds), never the file of record.
"""

from __future__ import annotations

import mmap
import struct
import zipfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

_LOCAL_HEADER = struct.Struct("<4s2B4HL2L2H")  # a zip local file header: name and extra lengths at the end
_LOCAL_MAGIC = b"PK\x03\x04"


class MappedNpz(Mapping[str, Any]):
    """Members of one `.npz` by name (`name.npy` in the archive), each a read-only array over the mapped file."""

    def __init__(self, path: Path) -> None:
        with open(path, "rb") as handle:
            self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
        with zipfile.ZipFile(path) as archive:
            self._members = {
                info.filename.removesuffix(".npy"): info
                for info in archive.infolist()
                if info.filename.endswith(".npy")
            }
        self._path = path
        self.files = list(self._members)

    def __getitem__(self, name: str) -> Any:
        info = self._members[name]
        if info.compress_type != zipfile.ZIP_STORED:
            return self._loaded(name)
        return self._mapped(info)

    def __contains__(self, name: object) -> bool:
        return name in self._members

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def _mapped(self, info: zipfile.ZipInfo) -> Any:
        import numpy as np
        from numpy.lib import format as npy

        fields = _LOCAL_HEADER.unpack_from(self._map, info.header_offset)
        if fields[0] != _LOCAL_MAGIC:
            raise ValueError(f"{info.filename}: not a zip member header")
        start = info.header_offset + _LOCAL_HEADER.size + fields[-2] + fields[-1]
        self._map.seek(start)
        version = npy.read_magic(self._map)
        if version == (1, 0):
            shape, fortran, dtype = npy.read_array_header_1_0(self._map)
        else:
            shape, fortran, dtype = npy.read_array_header_2_0(self._map)
        if fortran or dtype.hasobject:
            raise ValueError(f"{info.filename}: not a plain array")
        count = 1
        for size in shape:
            count *= int(size)
        offset = self._map.tell()
        if offset + count * dtype.itemsize > start + info.file_size:
            raise ValueError(f"{info.filename}: array runs past its member")
        if not count:
            return np.zeros(shape, dtype=dtype)
        return np.frombuffer(self._map, dtype=dtype, count=count, offset=offset).reshape(shape)

    def _loaded(self, name: str) -> Any:
        import numpy as np

        with np.load(self._path, allow_pickle=False) as data:
            return data[name]


def open_npz(path: Path) -> MappedNpz:
    """Raises OSError when the file cannot be opened, ValueError when it is empty, zipfile.BadZipFile when it is
    no archive."""
    return MappedNpz(path)
