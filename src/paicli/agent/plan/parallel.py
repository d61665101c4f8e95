"""A small executor for independent units of work (Plan tasks now, Team steps later)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import copy_context
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def run_all(
    items: Sequence[T], work: Callable[[T], R], max_parallel: int, name: str = "paicli-plan-executor"
) -> list[R]:
    """Results in the order of `items`; one item runs on the caller's thread. `work` must not raise."""
    if len(items) <= 1 or max_parallel <= 1:
        return [work(item) for item in items]
    with ThreadPoolExecutor(max_workers=min(max_parallel, len(items)), thread_name_prefix=name) as pool:
        futures = [pool.submit(copy_context().run, work, item) for item in items]  # notices follow
        return [future.result() for future in futures]
