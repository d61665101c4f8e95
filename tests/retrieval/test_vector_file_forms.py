"""The saved vector index's ids and digests (issue 49): packed ids load as saved, an index saved with JSON ids
(before the packed form) still loads, and the digests read lazily still tell an edited text from its own."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from paicli.memory.table import digest
from paicli.memory.vector import build_index
from paicli.memory.vector_file import load, snapshot, write

TEXTS = ["数据库连接池用 HikariCP", "发布窗口是每周二下午", "构建工具是 Gradle 8"]


def _saved(tmp_path: Path) -> Path:
    path = tmp_path / "long_term_memory.vectors.npz"
    index = build_index(TEXTS)
    write(snapshot(index), path)
    return path


def test_a_loaded_index_holds_its_ids_and_tells_texts_by_digest(tmp_path: Path) -> None:
    loaded = load(_saved(tmp_path))
    assert loaded is not None
    assert loaded.ids == ["0", "1", "2"] and loaded.positions == {"0": 0, "1": 1, "2": 2}
    assert [loaded.digests[i] for i in range(3)] == [digest(text) for text in TEXTS]
    assert loaded.holds_text(1, TEXTS[1]) and not loaded.holds_text(1, "发布窗口改到每周三")
    assert not loaded.sync([(str(i), text) for i, text in enumerate(TEXTS)])  # nothing to re-index
    assert loaded.sync([("0", TEXTS[0]), ("1", "发布窗口改到每周三"), ("2", TEXTS[2])])
    assert loaded.digests[-1] == digest("发布窗口改到每周三") and len(loaded.digests) == 4


def test_an_index_saved_with_json_ids_still_loads(tmp_path: Path) -> None:
    path = _saved(tmp_path)
    with np.load(path, allow_pickle=False) as data:
        arrays: dict[str, Any] = {name: data[name] for name in data.files}
    meta = json.loads(str(arrays["meta"]))
    del meta["ids_form"]
    arrays["meta"] = np.array(json.dumps(meta))
    arrays["ids"] = np.frombuffer(json.dumps(["0", "1", "2"]).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())
    loaded = load(path)
    assert loaded is not None and loaded.ids == ["0", "1", "2"] and loaded.holds_text(2, TEXTS[2])
    arrays["ids"] = np.frombuffer(b"0\x001", dtype=np.uint8)  # packed but cut short
    meta["ids_form"] = "nul"
    arrays["meta"] = np.array(json.dumps(meta))
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())
    assert load(path) is None


def test_an_index_saved_with_the_tables_rows_takes_its_map_and_any_other_builds_its_own(
    tmp_path: Path,
) -> None:
    path = _saved(tmp_path)
    rows = {"0": 0, "1": 1, "2": 2}
    same = load(path, (["0", "1", "2"], rows))
    assert same is not None and same.positions == rows and same.positions is not rows
    dead = load(path, (["0", None, "1", "2"], {"0": 0, "1": 2, "2": 3}))  # a dead row: rows are not positions
    assert dead is not None and dead.positions == rows
    other = load(path, (["2", "1", "0"], {"2": 0, "1": 1, "0": 2}))
    assert other is not None and other.positions == rows
