"""The figures `/context` shows for one history, gathered from the token counter and the profile (the manager
settles its calibration first)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from paicli.context.profile import ContextProfile
from paicli.context.status import ContextReport
from paicli.context.summary_text import system_end
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message


def build_report(
    counter: TokenCounter,
    model: str,
    profile: ContextProfile,
    history: Sequence[Message],
    tools: Sequence[Mapping[str, Any]] | None,
    *,
    compared: int,
    clearing: tuple[int, int],
    session_memory: bool,
    provider: str = "",
    cache_hit_ratio: float | None = None,
) -> ContextReport:
    """`compared`: the figure thresholds compare; `clearing`: level 2's trigger (0: off) and kept results."""
    start = system_end(history)
    system_tokens = counter.count_messages(history[:start])
    conversation_tokens = counter.count_messages(history[start:])
    tools_tokens = counter.count_tools(tools)
    local = system_tokens + tools_tokens + conversation_tokens
    calibration = counter.calibration(model)
    return ContextReport(
        model=model,
        provider=provider,
        window=profile.window,
        system_tokens=system_tokens,
        system_messages=start,
        tools_tokens=tools_tokens,
        tools_count=len(tools or ()),
        conversation_tokens=conversation_tokens,
        conversation_messages=len(history) - start,
        calibrated_tokens=counter.calibrated(model, local),
        calibration_ratio=calibration.ratio if calibration else None,
        provider_prompt_tokens=counter.last_provider_prompt_tokens,
        trigger_tokens=profile.compression_trigger_tokens,
        trigger_ratio=profile.compression_trigger_ratio,
        compared_tokens=compared,
        clear_trigger_tokens=clearing[0],
        clear_keep=clearing[1],
        session_memory_enabled=session_memory,
        mcp_index_enabled=profile.mcp_resource_index_enabled,
        cache_mode=profile.cache_mode,
        cache_hit_ratio=cache_hit_ratio,
        tokenizer=counter.encoding_name,
    )
