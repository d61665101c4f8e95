"""The context levels' settings (offload, clearing, summaries), parsed once into typed values: the compaction
manager and the offloader are built with these and never see the environment lookup. Each default is the
knob's own, so a component built without values behaves as an unconfigured session."""

from __future__ import annotations

from dataclasses import dataclass

from paicli.config import knobs, knobs_compaction
from paicli.config.knob_types import Lookup


@dataclass(frozen=True)
class ClearingValues:
    """Level 2: clearing old tool results."""

    enabled: bool = knobs_compaction.TOOL_RESULT_CLEARING_ENABLED.default
    trigger_tokens_override: int = knobs_compaction.TOOL_RESULT_CLEARING_TRIGGER_TOKENS.default
    keep_recent: int = knobs_compaction.TOOL_RESULT_CLEARING_KEEP.default
    exclude_tools: frozenset[str] = frozenset()

    @classmethod
    def parse(cls, env: Lookup) -> ClearingValues:
        return cls(
            knobs_compaction.TOOL_RESULT_CLEARING_ENABLED.read(env),
            knobs_compaction.TOOL_RESULT_CLEARING_TRIGGER_TOKENS.read(env),
            knobs_compaction.TOOL_RESULT_CLEARING_KEEP.read(env),
            frozenset(knobs_compaction.TOOL_RESULT_CLEARING_EXCLUDE_TOOLS.read(env)),
        )


@dataclass(frozen=True)
class CompactionValues:
    """What one compaction manager is configured with. `summary_input` and `memory_placement` are None when
    unset: the profile's own choice stands; set, they win over it."""

    profile: str = knobs.COMPACTION_PROFILE.default
    summary_input: str | None = None
    memory_placement: str | None = None
    automatic: bool = knobs_compaction.AUTO_COMPACT.default == "on"
    trigger: float | None = knobs_compaction.COMPACTION_TRIGGER.default
    session_memory: bool = knobs_compaction.SESSION_MEMORY_COMPACTION_ENABLED.default
    clearing: ClearingValues = ClearingValues()

    @classmethod
    def parse(cls, env: Lookup) -> CompactionValues:
        summary_input = knobs.COMPACTION_SUMMARY_INPUT
        placement = knobs.MEMORY_PLACEMENT
        return cls(
            knobs.COMPACTION_PROFILE.read(env),
            summary_input.read(env) if env.get(summary_input.key) is not None else None,
            placement.read(env) if env.get(placement.key) is not None else None,
            knobs_compaction.AUTO_COMPACT.read(env) == "on",
            knobs_compaction.COMPACTION_TRIGGER.read(env),
            knobs_compaction.SESSION_MEMORY_COMPACTION_ENABLED.read(env),
            ClearingValues.parse(env),
        )


@dataclass(frozen=True)
class OffloadValues:
    """Level 1: oversized tool results go to a file. `threshold_chars` 0: derived from the trigger."""

    enabled: bool = knobs_compaction.TOOL_OFFLOAD_ENABLED.default
    threshold_chars: int = knobs_compaction.TOOL_OFFLOAD_THRESHOLD_CHARS.default

    @classmethod
    def parse(cls, env: Lookup) -> OffloadValues:
        return cls(
            knobs_compaction.TOOL_OFFLOAD_ENABLED.read(env),
            knobs_compaction.TOOL_OFFLOAD_THRESHOLD_CHARS.read(env),
        )
