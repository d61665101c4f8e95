"""The compaction ladder as one plan per profile and settings (issue 41, item 4): what each profile's check
before a model call may do, in order, read in one place; the manager walks the ladder it was built with."""

from __future__ import annotations

import pytest

from paicli.config.compaction_profiles import PAICLI, REFERENCE, CompactionProfile
from paicli.config.compaction_values import ClearingValues, CompactionValues
from paicli.context.ladder import Ladder, ladder_for
from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile


@pytest.mark.parametrize(
    ("policy", "clearing", "session_memory", "expected"),
    [
        (PAICLI, True, False, Ladder(True, ("clear", "summary", "window_fit"), "watermark", True, False)),
        (
            PAICLI,
            False,
            True,
            Ladder(True, ("session_memory", "summary", "window_fit"), "watermark", True, False),
        ),
        (REFERENCE, True, False, Ladder(True, ("clear", "summary"), "keep_recent", False, True)),
        (
            REFERENCE,
            True,
            True,
            Ladder(True, ("clear", "session_memory", "summary"), "keep_recent", False, True),
        ),
    ],
    ids=["paicli", "paicli-no-clearing-session-memory", "reference", "reference-session-memory"],
)
def test_each_profile_has_one_ladder(
    policy: CompactionProfile, clearing: bool, session_memory: bool, expected: Ladder
) -> None:
    assert ladder_for(policy, automatic=True, clearing=clearing, session_memory=session_memory) == expected


def test_with_automatic_compaction_off_the_ladder_says_so_and_keeps_its_rungs_for_a_manual_call() -> None:
    ladder = ladder_for(PAICLI, automatic=False, clearing=True, session_memory=False)
    assert not ladder.automatic and ladder.has("clear") and not ladder.has("session_memory")


def test_the_manager_walks_the_ladder_its_settings_give() -> None:
    values = CompactionValues(
        profile="reference", automatic=False, session_memory=True, clearing=ClearingValues(enabled=False)
    )
    manager = AutoCompactionManager(None, ContextProfile.from_window(32_000), values)
    assert manager.ladder == Ladder(False, ("session_memory", "summary"), "keep_recent", False, True)
    assert not manager.automatic
