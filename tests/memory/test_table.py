"""The entry table's joined lower-cased text (what the keyword score searches): the same text and row starts as
lower-casing each row on its own, also for texts whose lower case is longer or context-dependent."""

from __future__ import annotations

import pytest

from paicli.memory.table import SEPARATOR, EntryTable
from tests.memory.helpers import entry


def _table(texts: list[str]) -> EntryTable:
    table = EntryTable()
    table.rebuild([entry(text, "global", None, entry_id=f"id-{i}") for i, text in enumerate(texts)])
    return table


@pytest.mark.parametrize(
    "texts",
    [
        ["数据库用 PostgreSQL 16", "The Build Tool is GRADLE", ""],
        ["ΟΔΟΣ ΣΤΟ ΛΙΜΑΝΙ", "Σ", "ΑΣ", "ΣΑ"],  # final sigma depends on what follows
        ["İstanbul ofisi", "KAPI NUMARASI", "plain"],  # İ lower-cases to two characters
        [f"a{SEPARATOR}b", "C"],  # a text holding the separator itself
        ["only one"],
        [],
    ],
)
def test_the_joined_text_equals_each_row_lowered_on_its_own(texts: list[str]) -> None:
    blob, starts = _table(texts).lowered()
    assert blob == SEPARATOR.join(text.lower() for text in texts)
    expected: list[int] = []
    at = 0
    for text in texts:
        expected.append(at)
        at += len(text.lower()) + 1
    assert starts.tolist() == expected


def test_each_row_is_found_by_its_own_words_after_a_longer_lower_case() -> None:
    table = _table(["İİİ kapı", "gateway port 8080", "ΟΔΟΣ port"])
    assert sorted(set(table.rows_containing("port").tolist())) == [1, 2]
    assert table.rows_containing("8080").tolist() == [1]
    assert table.rows_containing("ΟΔΟΣ".lower()).tolist() == [2]


@pytest.mark.parametrize("rows", [1, 2, 511, 512, 513, 514, 1500])
def test_a_word_is_found_in_every_row_holding_it_however_common(rows: int) -> None:
    # around the count past which whole-text array compares replace the find loop: both give every row
    texts = [f"第 {i} 条：port {i}" if i % 3 else f"row {i} without it" for i in range(rows * 3 // 2 + 1)]
    table = _table(texts)
    expected = [i for i, text in enumerate(texts) if "port" in text]
    assert sorted(table.rows_containing("port").tolist()) == expected
    assert sorted(table.rows_containing("without").tolist()) == [i for i in range(len(texts)) if not i % 3]
