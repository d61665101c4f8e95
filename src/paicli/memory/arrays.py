"""Array operations for the retrieval path that keep `numpy.ma` unloaded.

`np.isin` over integer keys with a wide range (the 64-bit copy keys, feature columns) falls back to sorting
through `np.unique`, and a plain `np.unique` asks `np.ma.is_masked`, which imports `numpy.ma` (and with it
`inspect` parsing signatures): tens of milliseconds of a `-p` run's CPU spent on the first query of a large
store, for a module retrieval never uses. The same answers come from a sort and a binary search.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    BoolArray = npt.NDArray[np.bool_]
    IntArray = npt.NDArray[np.int64]


def member(values: Any, among: Any) -> BoolArray:
    """Per item of `values`: whether it is one of `among` (integers; `np.isin(values, among)`)."""
    import numpy as np

    items = np.asarray(values)
    pool = np.sort(np.asarray(among).ravel())
    if not pool.size:
        return np.zeros(items.shape, dtype=bool)
    at = np.searchsorted(pool, items)
    np.minimum(at, pool.size - 1, out=at)
    found: BoolArray = pool[at] == items
    return found


def distinct(values: Any) -> IntArray:
    """The distinct non-negative integers of `values`, ascending (`np.unique(values)` for column numbers)."""
    import numpy as np

    items = np.asarray(values).ravel()
    if not items.size:
        return np.zeros(0, dtype=np.int64)
    return np.flatnonzero(np.bincount(items))
