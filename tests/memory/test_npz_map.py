"""The memory caches' .npz files read through a memory map give the arrays `np.load` gives (issue 49)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paicli.memory.npz_map import open_npz

ARRAYS: dict[str, Any] = {
    "ints": np.arange(10, dtype=np.int32),
    "meta": np.array(json.dumps({"format": 3})),  # a 0-d text array
    "empty": np.zeros(0, dtype=np.float32),
    "bytes": np.frombuffer("数据库".encode(), dtype=np.uint8),
    "grid": np.arange(6, dtype=np.float64).reshape(3, 2),
    "digests": np.array(["0123456789abcdef", "fedcba9876543210"], dtype="S16"),
}


@pytest.mark.parametrize("save", [np.savez, np.savez_compressed])
def test_every_member_reads_as_np_load_reads_it(tmp_path: Path, save: object) -> None:
    path = tmp_path / "cache.npz"
    save(path, **ARRAYS)  # type: ignore[operator]
    mapped = open_npz(path)
    assert sorted(mapped.files) == sorted(ARRAYS) and "ints" in mapped and "other" not in mapped
    with np.load(path, allow_pickle=False) as loaded:
        for name in ARRAYS:
            assert mapped[name].dtype == loaded[name].dtype and mapped[name].shape == loaded[name].shape
            assert mapped[name].tolist() == loaded[name].tolist()
    assert str(mapped["meta"]) == json.dumps({"format": 3})
    with pytest.raises(KeyError):
        mapped["other"]


def test_a_mapped_array_is_read_only_and_outlives_a_replaced_file(tmp_path: Path) -> None:
    path = tmp_path / "cache.npz"
    np.savez(path, **ARRAYS)
    ints = open_npz(path)["ints"]
    with pytest.raises(ValueError):
        ints[0] = 5
    replacement = tmp_path / "next.npz"
    np.savez(replacement, ints=np.zeros(3, dtype=np.int32))
    replacement.replace(path)  # how the caches are written: a new file renamed over the old
    assert ints.tolist() == list(range(10))
    assert open_npz(path)["ints"].tolist() == [0, 0, 0]


def test_a_file_that_is_no_archive_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cache.npz"
    path.write_bytes(b"not an npz file")
    with pytest.raises(zipfile.BadZipFile):
        open_npz(path)
    path.write_bytes(b"")
    with pytest.raises(ValueError):  # an empty file cannot be mapped
        open_npz(path)
