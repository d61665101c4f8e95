from __future__ import annotations

import numpy as np

from paicli.memory.arrays import distinct, member


def test_member_answers_as_isin_does() -> None:
    rng = np.random.default_rng(7)
    for size, spread in ((0, 10), (1, 10), (50, 10), (500, 2**62), (2000, 40)):
        values = rng.integers(-spread, spread, size=size, dtype=np.int64)
        for among in (values[: size // 3], rng.integers(-spread, spread, size=17), np.zeros(0, np.int64)):
            assert member(values, among).tolist() == np.isin(values, among).tolist()


def test_member_takes_lists_and_mixed_widths() -> None:
    cols = np.array([5, 9, 70000, 3, 9], dtype=np.int32)
    assert member(cols, [9, 70000]).tolist() == [False, True, True, False, True]
    assert member(cols, []).tolist() == [False] * 5
    assert member(np.zeros(0, np.int32), [1]).tolist() == []
    assert member(cols, [2**40]).tolist() == [False] * 5  # past every value: no wrap to the last one


def test_distinct_is_the_sorted_unique_columns() -> None:
    cols = np.array([4, 0, 4, 9, 2, 9], dtype=np.int32)
    assert distinct(cols).tolist() == np.unique(cols).tolist() == [0, 2, 4, 9]
    assert distinct(np.zeros(0, np.int32)).tolist() == []
