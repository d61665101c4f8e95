"""A subject said in a shorter form: the modifier (`夜间构建的`, `the code freeze window's`) dropped in part.

`构建超时` names the same slot as `夜间构建的超时时间` when every word of the short form comes from the long one,
in order, some of them from its modifier and some from its head: the short form keeps the head and a part of the
modifier that tells it apart. A short form with a word the long one lacks (`单测超时`, `图片缓存过期时间`) names
another thing, and so does one with none of the modifier (`超时时间` alone may be any component's).
"""

from __future__ import annotations

from typing import Protocol


class _Named(Protocol):
    @property
    def han(self) -> str: ...
    @property
    def latin(self) -> tuple[str, ...]: ...
    @property
    def owner(self) -> str: ...


_PIECE = 2  # a Han piece shorter than a word could match anywhere


def sheds_modifier(long: _Named, short: _Named) -> bool:
    """`short` (no modifier of its own) is `long` (head `han`/`latin`, modifier `owner`) with part of its
    modifier dropped."""
    if not long.owner or short.owner or not (short.han or short.latin):
        return False
    from_modifier = False
    for word in short.latin:
        if word in long.latin:
            continue
        if word not in long.owner:
            return False
        from_modifier = True
    pieces = _pieces(short.han, long.owner + long.han)
    if pieces is None:
        return False
    edge = len(long.owner)
    from_modifier = from_modifier or any(start < edge for start, _ in pieces)
    head = any(end > edge for _, end in pieces) or bool(set(short.latin) & set(long.latin))
    return from_modifier and head


def _pieces(short: str, long: str) -> list[tuple[int, int]] | None:
    """Where the pieces of `short` stand in `long`, in order, each the longest that fits at least `_PIECE`
    characters long; None when some part of `short` is not found."""
    found: list[tuple[int, int]] = []
    at, start = 0, 0
    while at < len(short):
        best: tuple[int, int] | None = None
        for size in range(len(short) - at, _PIECE - 1, -1):
            where = long.find(short[at : at + size], start)
            if where >= 0:
                best = (where, where + size)
                break
        if best is None:
            return None
        found.append(best)
        at += best[1] - best[0]
        start = best[1]
    return found
