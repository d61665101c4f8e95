"""Texts and digests packed for the memory caches (issue 49): the packed form and its JSON fallback give back
exactly the list saved; anything else is refused, never misread."""

from __future__ import annotations

import pytest

from paicli.memory.packed_text import JSON, NUL, PACKED, Digests, pack, unpack
from paicli.memory.table import digest


@pytest.mark.parametrize(
    "items",
    [
        [],
        [""],
        ["", ""],
        ["fact-1", "fact-2"],
        ["数据库用 PostgreSQL 16", "", "ΣΑ"],
        ["lone \ud800 surrogate"],
    ],
)
def test_a_list_comes_back_as_it_was_saved(items: list[str]) -> None:
    data, form = pack(items)
    assert form == PACKED
    assert unpack(data, form) == items
    assert unpack(memoryview(data), form) == items  # a view of a mapped file decodes where it lies


def test_an_item_holding_a_nul_is_saved_as_json() -> None:
    items = [f"a{NUL}b", "c"]
    data, form = pack(items)
    assert form == JSON
    assert unpack(data, form) == items


def test_damaged_or_foreign_data_is_refused() -> None:
    assert unpack(b"fact-1\x00fact-2", PACKED) is None  # cut short: no final NUL
    assert unpack(b'["a", 1]', JSON) is None
    assert unpack(b'{"a": 1}', JSON) is None
    assert unpack(b"a\x00", "zip") is None
    with pytest.raises(UnicodeDecodeError):
        unpack(b"\xff\x00", PACKED)  # the caller's except turns this into "rebuild the cache"


def test_digests_read_one_at_a_time_from_the_saved_run() -> None:
    saved = [digest(f"第 {i} 条") for i in range(3)]
    digests = Digests("".join(saved).encode("ascii"))
    assert [digests[i] for i in range(3)] == saved and len(digests) == 3
    digests.append(digest("新的一条"))
    assert digests[-1] == digest("新的一条") and digests[-4] == saved[0] and len(digests) == 4
    with pytest.raises(IndexError):
        digests[4]
    with pytest.raises(IndexError):
        digests[-5]
    with pytest.raises(ValueError):
        Digests(b"0123")  # not a whole digest
    with pytest.raises(ValueError):
        Digests("é".encode() * 8)
