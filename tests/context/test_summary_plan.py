"""Issue 41 item 4, level 3 as a plan: `plan_summary` is a pure function of (history, trigger, profile, measure)
to the span an automatic summary replaces; the summariser executes the plan. Table-driven: each row is a
view, a trigger and a profile, and the plan expected for them."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from paicli.config.compaction_profiles import PAICLI, REFERENCE, CompactionProfile
from paicli.context.summariser import SummaryPlan, plan_summary
from paicli.llm.messages import Message
from tests.context.helpers import qa_rounds


def measure(history: Sequence[Message]) -> int:
    """One token per ten characters: a stand-in counter, so each row's figures are easy to follow."""
    return sum(len(m.content or "") for m in history) // 10


def size(message: Message) -> int:
    return measure([message])


LONG = [Message.system("sys"), *qa_rounds(10, size=200)]  # 10 rounds of ~160 tokens, 1,606 in all
TWO = [Message.system("sys"), *qa_rounds(2, size=200)]
ALONE = [Message.system("sys"), Message.user("只有这一句")]

ROWS = [
    # (name, history, trigger, profile, expected plan)
    ("reference: the last 3 rounds, announced", LONG, 1_000, REFERENCE, SummaryPlan("rounds", 3, None, True)),
    ("reference: no older round, nothing announced", TWO, 1_000, REFERENCE, SummaryPlan("rounds", 3, None, False)),
    ("paicli: a 400-token tail (2 rounds) at a 1K trigger", LONG, 1_000, PAICLI, SummaryPlan("tokens", 3, 17, True)),
    ("paicli: a larger tail at a 2K trigger", LONG, 2_000, PAICLI, SummaryPlan("tokens", 3, 11, True)),
    ("paicli: all but the first round when everything fits", LONG, 4_000, PAICLI, SummaryPlan("tokens", 3, 3, True)),
    ("paicli: nothing to cut away", ALONE, 1_000, PAICLI, SummaryPlan("tokens", 3, None, False)),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "history", "trigger", "profile", "expected"), ROWS, ids=[row[0] for row in ROWS]
)
def test_the_plan_for_each_profile(
    name: str, history: list[Message], trigger: int, profile: CompactionProfile, expected: SummaryPlan
) -> None:
    before = list(history)
    plan = plan_summary(history, trigger, profile, measure, size)
    assert plan == expected, name
    assert history == before  # planning changes nothing
    if plan.cut is not None:  # the kept tail starts at a real user message: tool pairs are never split
        assert history[plan.cut].role == "user"
    assert plan.possible == (profile.summary_tail == "rounds" or plan.cut is not None)
