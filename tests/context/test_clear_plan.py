"""Issue 41 item 4, level 2 as a plan: `plan_clearing` is a pure function of (history, trigger, settings, the
profile's depth, measure) to the results to clear; `ToolResultClearer.apply` carries a plan out. Table-driven:
each row is a view, the settings and the depth, and the tool calls whose results the plan picks."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from paicli.context.clearing import (
    CLEARED_PREFIX,
    ClearingConfig,
    ClearingDepth,
    ClearPlan,
    ToolResultClearer,
    plan_clearing,
)
from paicli.llm.messages import Message
from tests.context.helpers import assert_pairs_valid, tool_round

TRIGGER = 1_000_000  # the compaction trigger; level 2's own trigger is the override below
BASE = ClearingConfig(trigger_tokens_override=500, keep_recent=3)


def measure(history: Sequence[Message]) -> int:
    """One token per ten characters: a stand-in counter, so each row's figures are easy to follow."""
    return sum(len(m.content or "") for m in history) // 10


def view(
    rounds: int, *, cleared_first: bool = False, seen: bool = True, tool: str = "read_file"
) -> list[Message]:
    """System, a request, `rounds` tool rounds of ~205 tokens each (the first one already cleared when
    `cleared_first`), and an answer after them unless the latest results are still `seen=False`."""
    history = [Message.system("sys"), Message.user("请读取这些文件")]
    for i in range(1, rounds + 1):
        history += tool_round(i, tool if i == 2 else "read_file")
    if cleared_first:
        history[3] = history[3].with_content(f"{CLEARED_PREFIX} 工具 read_file 的输出已清理。")
    if seen:
        history.append(Message.assistant("读完了"))
    return history


ROWS = [
    # (name, history, config, depth, the tool calls whose results are planned for clearing)
    ("disabled", view(6), replace(BASE, enabled=False), "watermark", ()),
    ("below the trigger", view(2), BASE, "watermark", ()),
    ("reference: all but the newest keep", view(6), BASE, "keep_recent", ("call-1", "call-2", "call-3")),
    ("reference: below its trigger", view(2), BASE, "keep_recent", ()),
    ("watermark: on past keep, down to the low watermark", view(6), BASE, "watermark", tuple(f"call-{i}" for i in range(1, 7))),
    ("watermark: only the unseen results crossed it", view(3, seen=False), BASE, "watermark", ()),
    ("watermark: re-armed once the view holds a cleared result", view(3, cleared_first=True), BASE, "watermark", ("call-2", "call-3")),
    ("reference keeps unseen results as candidates", view(3, seen=False), replace(BASE, keep_recent=1, protect_unseen=False), "keep_recent", ("call-1", "call-2")),
    ("paicli never plans an unseen result", view(3, seen=False), replace(BASE, keep_recent=1), "keep_recent", ("call-1",)),
    ("an excluded tool is never planned", view(6, tool="load_skill"), replace(BASE, exclude_tools=frozenset({"load_skill"})), "keep_recent", ("call-1", "call-3")),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "history", "config", "depth", "expected"), ROWS, ids=[row[0] for row in ROWS]
)
def test_the_plan_picks_these_results(
    name: str, history: list[Message], config: ClearingConfig, depth: ClearingDepth, expected: tuple[str, ...]
) -> None:
    before = list(history)
    plan = plan_clearing(history, TRIGGER, config, depth, measure)
    assert tuple(history[i].tool_call_id for i in plan.indices) == expected, name
    assert history == before  # planning changes nothing
    assert plan == plan_clearing(history, TRIGGER, config, depth, measure)  # and is a function of its inputs


def test_applying_a_plan_replaces_exactly_its_results_and_keeps_the_pairing() -> None:
    history = view(6)
    clearer = ToolResultClearer(BASE, measure)
    plan = clearer.plan(history, TRIGGER, "keep_recent")
    before = list(history)
    result = clearer.apply(history, plan)
    changed = [i for i, (a, b) in enumerate(zip(before, history, strict=True)) if a is not b]
    assert changed == list(plan.indices) and result.cleared_count == 3
    assert result.call_ids == ("call-1", "call-2", "call-3") and result.before_tokens == plan.before
    assert all((history[i].content or "").startswith(CLEARED_PREFIX) for i in plan.indices)
    assert_pairs_valid(history)


def test_an_empty_plan_changes_nothing() -> None:
    history = view(2)
    before = list(history)
    result = ToolResultClearer(BASE, measure).apply(history, ClearPlan((), measure(history)))
    assert history == before and not result.cleared and result.after_tokens == result.before_tokens
