"""The memory snapshot's saved texts (issue 49): packed ids and contents load as they were saved, a snapshot
saved in the earlier JSON form still loads, a damaged one is refused (the file is parsed instead), and a table
that starts from the loaded joined text searches as one built entry by entry."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from paicli.memory import snapshot
from paicli.memory.table import EntryTable
from tests.memory.helpers import entry

SIGNATURE = (1, 2, 3)
IDS = ["fact-a", "fact-b", "fact-c"]
CONTENTS = ["数据库用 PostgreSQL 16", "The Build Tool is GRADLE", "发布窗口是每周二"]


def _columns(count: int) -> dict[str, Any]:
    return {
        "truth": np.ones(count, dtype=bool),
        "confirmed": np.zeros(count, dtype=np.int32),
        "stamp": np.zeros(count, dtype=np.float64),
        "project": np.full(count, -1, dtype=np.int32),
        "kind": np.ones(count, dtype=np.int8),
        "projects": [],
    }


def _save(path: Path, ids: list[str], contents: list[str]) -> None:
    blocks = [json.dumps({"id": i}).encode() for i in ids]
    snapshot.write(path, SIGNATURE, ids, contents, blocks, _columns(len(ids)), 7)


def _rewrite(path: Path, change: dict[str, Any], meta_change: dict[str, Any]) -> None:
    with np.load(path, allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(arrays["meta"].tobytes())
    meta.update(meta_change)
    meta = {k: v for k, v in meta.items() if v is not None}
    arrays.update(change)
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    path.write_bytes(buffer.getvalue())


def _json_array(items: list[str]) -> Any:
    return np.frombuffer(json.dumps(items, ensure_ascii=False).encode(), dtype=np.uint8)


def test_packed_texts_load_as_saved_with_their_places(tmp_path: Path) -> None:
    path = tmp_path / "m.snapshot.npz"
    _save(path, IDS, CONTENTS)
    found = snapshot.load(path, SIGNATURE)
    assert found is not None
    assert found.ids == IDS and found.contents == CONTENTS
    assert found.rows == {"fact-a": 0, "fact-b": 1, "fact-c": 2}
    assert found.lowered == "\x00".join(CONTENTS).lower()
    assert snapshot.load(path, (1, 2, 4)) is None  # made of another file


def test_a_snapshot_in_the_earlier_json_form_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "m.snapshot.npz"
    _save(path, IDS, CONTENTS)
    _rewrite(path, {"ids": _json_array(IDS), "contents": _json_array(CONTENTS)}, {"texts": None})
    # (that form had no lowered text: the table lower-cases the contents itself)
    found = snapshot.load(path, SIGNATURE)
    assert found is not None and found.ids == IDS and found.contents == CONTENTS and found.lowered is None


def test_a_text_holding_a_nul_round_trips_through_json(tmp_path: Path) -> None:
    path = tmp_path / "m.snapshot.npz"
    contents = ["a\x00b", "c", "d"]
    _save(path, IDS, contents)
    found = snapshot.load(path, SIGNATURE)
    assert found is not None and found.contents == contents and found.lowered is None


def test_a_damaged_snapshot_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "m.snapshot.npz"
    _save(path, IDS, CONTENTS)
    _rewrite(path, {"ids": _json_array(["fact-a", "fact-a", "fact-c"])}, {"texts": None})
    assert snapshot.load(path, SIGNATURE) is None  # an id twice
    _save(path, IDS, CONTENTS)
    _rewrite(path, {"contents": np.frombuffer("只有一条".encode(), dtype=np.uint8)}, {})
    assert snapshot.load(path, SIGNATURE) is None  # not a packed list
    _save(path, IDS, CONTENTS[:2])
    assert snapshot.load(path, SIGNATURE) is None  # fewer texts than ids


@pytest.mark.parametrize("contents", [CONTENTS, ["İstanbul ofisi", "ΟΔΟΣ ΣΤΟ ΛΙΜΑΝΙ", "Gradle"]])
def test_a_table_from_the_loaded_joined_text_searches_as_one_built_row_by_row(
    tmp_path: Path, contents: list[str]
) -> None:
    """`İ` lower-cases to two characters: the saved text's lengths no longer match the rows, so the table
    lower-cases each row itself."""
    path = tmp_path / "m.snapshot.npz"
    _save(path, IDS, contents)
    found = snapshot.load(path, SIGNATURE)
    assert found is not None

    def loaded() -> EntryTable:
        table = EntryTable()
        table.load_columns(found.ids, found.contents, found.columns, 0, found.rows, found.lowered)
        return table

    built = EntryTable()
    built.rebuild([entry(text, "global", None, entry_id=i) for i, text in zip(IDS, contents, strict=True)])
    table = loaded()
    assert table.lowered()[0] == built.lowered()[0]
    assert table.lowered()[1].tolist() == built.lowered()[1].tolist()
    holding = [row for row, text in enumerate(contents) if "gradle" in text.lower()]
    assert table.rows_containing("gradle").tolist() == holding and holding
    changed = loaded()  # a change before the first search: the loaded joined text no longer holds
    changed.put(entry("构建工具换成 Maven", "global", None, entry_id="fact-b"))
    rebuilt = EntryTable()
    rebuilt.rebuild([entry(text, "global", None, entry_id=i) for i, text in zip(IDS, contents, strict=True)])
    rebuilt.put(entry("构建工具换成 Maven", "global", None, entry_id="fact-b"))
    assert changed.lowered()[0] == rebuilt.lowered()[0]
    assert changed.lowered()[1].tolist() == rebuilt.lowered()[1].tolist()
    assert changed.rows_containing("maven").tolist() == [3]
    assert changed.rows_containing("gradle").tolist() == [row for row in holding if row != 1]
