"""A session's compaction profile: a row of the table in config/compaction_profiles.py (chosen once per manager
by knobs.COMPACTION_PROFILE), with the settings that may override a field of it. Pure.
"""

from __future__ import annotations

from dataclasses import replace

from paicli.config.compaction_profiles import (
    PAICLI,
    CompactionProfile,
    MemoryPlacement,
    SummaryInput,
    profile_named,
)
from paicli.config.compaction_values import ClearingValues, CompactionValues
from paicli.context.clearing import ClearingConfig


def for_values(values: CompactionValues) -> CompactionProfile:
    """The session's profile; the summary-input and memory-placement settings, when set, still win."""
    profile = profile_named(values.profile)
    if values.summary_input is not None:
        summary_input: SummaryInput = "transcript" if values.summary_input == "transcript" else "prefix"
        profile = replace(profile, summary_input=summary_input)
    if values.memory_placement is not None:
        placement: MemoryPlacement = "system" if values.memory_placement == "system" else "turn"
        profile = replace(profile, memory_placement=placement)
    return profile


def clearing_config(values: ClearingValues, policy: CompactionProfile = PAICLI) -> ClearingConfig:
    """Level 2's settings with the profile's part of them."""
    return ClearingConfig(
        enabled=values.enabled,
        trigger_tokens_override=values.trigger_tokens_override,
        keep_recent=values.keep_recent,
        exclude_tools=values.exclude_tools,
        protect_unseen=policy.protect_unseen,
        short_placeholder=policy.short_placeholder,
    )
