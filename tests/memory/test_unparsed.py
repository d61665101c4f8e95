"""Memory entries paicli cannot use survive every write (issue 17, item 7)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from paicli.memory.locked_file import render_json
from paicli.memory.unparsed import render_value
from tests.memory.helpers import entry, memory

DATA = Path(__file__).parent / "data"
GOOD = {
    "id": "fact-0000good",
    "content": "项目使用 pnpm",
    "type": "FACT",
    "timestamp": "2026-09-01T00:00:00Z",
    "lastVerifiedAt": "2026-09-01T00:00:00Z",
    "metadata": {"scope": "global"},
    "tokenCount": 5,
}

ODD_ITEMS: list[Any] = [
    {**GOOD, "id": "fact-000type", "type": "PREFERENCE"},  # unknown type
    {**GOOD, "id": "fact-0number", "content": 42},  # numeric content
    {**GOOD, "id": 1234},  # numeric id
    "一条裸字符串记忆",  # bare string
    None,
    [1, "two", {"three": 3}],
    {**GOOD, "id": "fact-000bool", "content": True, "metadata": {"nested": {"a": [1, 2]}}},
    {"content": "没有 id"},
    {**GOOD, "id": "   "},
    {**GOOD, "id": "fact-0000null", "content": None},
    3.5,
]


def write_file(path: Path, items: list[Any]) -> None:
    path.write_text(json.dumps(items, ensure_ascii=False, indent=1), encoding="utf-8")


@pytest.mark.parametrize("odd", ODD_ITEMS, ids=lambda item: type(item).__name__ + str(item)[:24])
@pytest.mark.parametrize("action", ["store", "delete", "verify"])
def test_an_unusable_item_survives_every_kind_of_write(tmp_path: Path, odd: Any, action: str) -> None:
    path = tmp_path / "long_term_memory.json"
    write_file(path, [GOOD, odd, {**GOOD, "id": "fact-000later", "content": "发布要两人评审"}])
    store = memory(tmp_path)
    assert [e.id for e in store.get_all()] == ["fact-0000good", "fact-000later"]
    if action == "store":
        assert store.store(entry("一条新的事实", entry_id="fact-00000new"))
    elif action == "delete":
        assert store.delete("fact-000later")
    else:
        assert store.mark_verified("fact-0000good") is not None
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written[1] == odd  # unchanged in value and still after the entry it followed
    assert written[0]["id"] == "fact-0000good"
    notices = store.take_notices()
    assert len(notices) == 1 and "原样保留" in notices[0] and "备份" in notices[0]
    backups = list(tmp_path.glob("long_term_memory.json.bak-*"))
    assert len(backups) == 1 and json.loads(backups[0].read_text(encoding="utf-8"))[1] == odd
    # a second process and a second write: still there, told again, but no second backup
    again = memory(tmp_path)
    assert again.store(entry("又一条事实", entry_id="fact-0000more"))
    assert json.loads(path.read_text(encoding="utf-8"))[1] == odd
    assert len(list(tmp_path.glob("long_term_memory.json.bak-*"))) == 1
    assert [str(backups[0]) in notice for notice in again.take_notices()] == [True]


def test_unknown_keys_of_a_usable_entry_ride_along(tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.json"
    write_file(path, [{**GOOD, "tags": ["build", "js"], "confidence": 0.9}])
    store = memory(tmp_path)
    assert store.mark_verified("fact-0000good") is not None
    written = json.loads(path.read_text(encoding="utf-8"))
    assert written[0]["tags"] == ["build", "js"] and written[0]["confidence"] == 0.9
    assert written[0]["lastVerifiedAt"] != GOOD["lastVerifiedAt"]
    assert list(written[0])[:7] == [
        "id",
        "content",
        "type",
        "timestamp",
        "lastVerifiedAt",
        "metadata",
        "tokenCount",
    ]


def test_a_shadowed_duplicate_id_is_kept_and_the_same_entry_wins_again(tmp_path: Path) -> None:
    shutil.copy(DATA / "long_term_memory_legacy.json", tmp_path / "long_term_memory.json")
    store = memory(tmp_path)
    assert store.store(entry("触发一次写入", entry_id="fact-0000trig"))
    written = json.loads((tmp_path / "long_term_memory.json").read_text(encoding="utf-8"))
    contents = [item.get("content") if isinstance(item, dict) else item for item in written]
    assert "用户偏好使用中文回答" in contents and "用户偏好使用中文回答（同 id 后者生效）" in contents
    assert "没有 id 的坏条目" in contents and "not an object" in contents
    for _ in range(2):
        winner = memory(tmp_path).retrieve("fact-aaaa0001")
        assert winner is not None and winner.content.endswith("（同 id 后者生效）")
        memory(tmp_path).store(entry("再写一次", entry_id="fact-000again"))


def test_clear_is_explicit_and_drops_everything(tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.json"
    write_file(path, [GOOD, "一条裸字符串记忆"])
    store = memory(tmp_path)
    store.clear()
    assert path.read_text(encoding="utf-8") == "[ ]"
    assert len(list(tmp_path.glob("long_term_memory.json.bak-*"))) == 1  # the backup keeps it


def test_a_clean_file_is_written_byte_for_byte_as_before(tmp_path: Path) -> None:
    shutil.copy(DATA / "long_term_memory_reference.json", tmp_path / "long_term_memory.json")
    original = (tmp_path / "long_term_memory.json").read_text(encoding="utf-8")
    store = memory(tmp_path)
    added = entry("一条新的全局事实", entry_id="fact-00000001")
    assert store.store(added)
    block = render_json([added])[2:-2]
    rewritten = (tmp_path / "long_term_memory.json").read_text(encoding="utf-8")
    assert rewritten == original.rstrip()[: -len(" ]")] + ", " + block + " ]"
    assert not list(tmp_path.glob("*.bak-*")) and store.take_notices() == []


def test_render_value_matches_the_entry_layout() -> None:
    block = render_value({"id": "a", "metadata": {"k": "v"}, "n": 1, "e": {}, "l": []}, 0)
    assert (
        block
        == '{\n  "id" : "a",\n  "metadata" : {\n    "k" : "v"\n  },\n  "n" : 1,\n  "e" : { },\n  "l" : [ ]\n}'
    )


LENIENT_FIELDS: list[dict[str, Any]] = [
    {"metadata": ["scope", "global"]},  # metadata that is not an object
    {
        "metadata": {"scope": "global", "priority": 3, "pinned": True, "tags": {"a": [1, 2]}}
    },  # non-string values
    {"timestamp": "去年夏天"},  # an unreadable date
    {"lastVerifiedAt": 12.5e30},  # a number no clock can read
    {"tokenCount": "many"},
    {"metadata": "a bare string"},
]


@pytest.mark.parametrize("odd", LENIENT_FIELDS, ids=lambda item: next(iter(item)) + str(item)[:20])
def test_a_leniently_read_field_is_written_back_as_it_was(tmp_path: Path, odd: dict[str, Any]) -> None:
    path = tmp_path / "long_term_memory.json"
    write_file(path, [{**GOOD, **odd}])
    store = memory(tmp_path)
    assert [e.content for e in store.get_all()] == [GOOD["content"]]  # still usable
    assert store.store(entry("另一条事实", entry_id="fact-00000new"))
    written = json.loads(path.read_text(encoding="utf-8"))[0]
    for key, value in odd.items():
        assert written[key] == value
    assert list(written) == list(GOOD)  # the reference key order
    assert store.mark_verified("fact-0000good") is not None
    after = json.loads(path.read_text(encoding="utf-8"))[0]
    for key, value in odd.items():
        if key not in ("lastVerifiedAt", "metadata"):  # verify records a confirmation in the metadata
            assert after[key] == value
    assert after["lastVerifiedAt"] != GOOD["lastVerifiedAt"]
    assert after["metadata"]["confirmations"] == "1"
