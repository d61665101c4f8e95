"""The compaction profiles are one frozen table: the setting's choices and each profile's default memory
placement are read from it, never spelled again beside it."""

from __future__ import annotations

import dataclasses

import pytest

from paicli.config import knobs
from paicli.config.compaction_profiles import PAICLI, PROFILES
from paicli.config.settings import load_settings
from tests.context.conftest import MakeEnv


def test_the_setting_offers_exactly_the_profiles_of_the_table() -> None:
    assert knobs.COMPACTION_PROFILE.allowed == " / ".join(PROFILES)
    assert knobs.COMPACTION_PROFILE.default == PAICLI.name == next(iter(PROFILES))


@pytest.mark.parametrize("name", list(PROFILES))
def test_each_profile_places_memories_where_its_row_says_unless_set(make_env: MakeEnv, name: str) -> None:
    base = {
        "PAICLI_BASE_URL": "http://127.0.0.1:9/v1",
        "PAICLI_MODEL": "m",
        "PAICLI_COMPACTION_PROFILE": name,
    }
    assert load_settings(make_env(**base)).memory_placement == PROFILES[name].memory_placement
    for placement in ("system", "turn"):
        chosen = load_settings(make_env(**base, PAICLI_MEMORY_PLACEMENT=placement))
        assert chosen.memory_placement == placement


def test_a_profile_is_a_frozen_row() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        PAICLI.window_fit = False  # type: ignore[misc]
