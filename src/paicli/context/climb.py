"""The executor of a compaction plan: one history climbs the ladder (context/ladder.py) with the client of
the call it serves, or a summary is asked for by name (/compact and its preview). No model is held here:
every function is given the one to use.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from paicli.cancel import CancelToken
from paicli.context.ladder import Ladder
from paicli.context.levels import result_of
from paicli.context.summariser import Summariser, SummaryCall
from paicli.context.summary import SharedPrefix
from paicli.context.types import NO_COMPACTION, CompactionResult, CompactionStep
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient

log = logging.getLogger(__name__)


def climb(
    ladder: Ladder,
    summariser: Summariser,
    history: list[Message],
    trigger: int,
    cancel: CancelToken | None,
    call: SummaryCall,
) -> CompactionResult:
    """The ladder's rungs up to the summary (spec 2.1), with the profile's depths: clearing to its depth, a
    prepared session-memory summary, then one summary attempt by the call's client (gated when the ladder
    says so)."""
    if trigger <= 0:
        return NO_COMPACTION
    clearer, memory, measure = summariser.clearer, summariser.session_memory, summariser.gauge.measure
    steps: list[CompactionStep] = []
    # level 2 as a plan (pure, per the profile's depth), then applied
    clear = clearer.apply(history, clearer.plan(history, trigger, ladder.clearing_depth))
    if clear.cleared:
        steps.append(clear.step(len(history)))
    ready = ladder.has("session_memory")
    if ready:
        memory.prepare_if_needed(history, trigger, call.llm)
    tokens = measure(history)
    if tokens < trigger:
        return result_of(False, steps, clear.cleared_count)
    messages_before = len(history)
    if ready and memory.compact_if_ready(history, trigger):
        summariser.restore_memory(history)
        steps.append(
            CompactionStep("session_memory", messages_before, len(history), tokens, measure(history))
        )
        cleared = summariser.clear_rebuilt(history, trigger, steps)
        return result_of(True, steps, clear.cleared_count + cleared)
    if ladder.gated_summary and (
        not summariser.backoff.allowed(tokens, trigger) or not summariser.pays(history, trigger)
    ):
        return result_of(False, steps, clear.cleared_count)
    outcome = summariser.summarise(history, trigger, cancel, call)
    if outcome.compacted:
        steps.append(outcome.step("full_summary"))
        cleared = summariser.clear_rebuilt(history, trigger, steps)
        return result_of(True, steps, clear.cleared_count + cleared)
    return result_of(False, steps, clear.cleared_count, outcome.error)


def summary_by_name(
    summariser: Summariser,
    history: list[Message],
    focus: str | None,
    cancel: CancelToken | None,
    llm: LLMClient | None,
    prefix: Callable[[], SharedPrefix | None],
) -> CompactionResult:
    """A summary of everything but the last round, asked for by the person (thresholds do not matter); the
    result names why it failed, if it did."""
    try:
        outcome = summariser.full.compact(history, 0, True, 1, focus, cancel, None, prefix(), llm=llm)
    except Exception as exc:
        log.exception("manual compaction failed")
        return CompactionResult(False, "none", error=f"压缩失败：{exc}")
    if not outcome.compacted:
        return CompactionResult(False, "none", error=outcome.error)
    return result_of(True, [outcome.step("full_summary")], 0)
