"""Memory files that fail to parse in any way are backed up and reported; the store stays usable (issue 26)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.config.run_values import MemoryValues
from paicli.memory.entry import new_fact
from paicli.memory.store import LongTermMemory
from tests.memory.helpers import env

DEEP = 100_000


def _store(directory: Path) -> LongTermMemory:
    return LongTermMemory(directory, values=MemoryValues.parse(env()))


@pytest.mark.parametrize(
    "payload",
    [
        "[" * DEEP + "]" * DEEP,
        '[{"id": "fact-1", "content": "x", "metadata": ' + "[" * DEEP + "]" * DEEP + "}]",
        '{"a": ' * DEEP + "1" + "}" * DEEP,
    ],
    ids=["nested-array", "nested-metadata", "nested-object"],
)
def test_deeply_nested_file_is_backed_up_and_the_store_stays_usable(tmp_path: Path, payload: str) -> None:
    path = tmp_path / "long_term_memory.json"
    path.write_text(payload, encoding="utf-8")
    store = _store(tmp_path)
    assert store.get_all() == []
    backups = list(tmp_path.glob("long_term_memory.json.corrupt-*"))
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == payload
    notices = store.take_notices()
    assert len(notices) == 1 and "不是合法的 JSON" in notices[0] and str(backups[0]) in notices[0]
    assert store.store(new_fact("项目使用 Java 17"))
    assert [e["content"] for e in json.loads(path.read_text(encoding="utf-8"))] == ["项目使用 Java 17"]
    assert _store(tmp_path).size() == 1
