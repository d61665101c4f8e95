"""What the manager plugs together: the level protocols, the depth watermarks, the tail they keep."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from paicli.cancel import CancelToken
from paicli.context.rounds import system_end
from paicli.context.summary import SharedPrefix, SummaryOutcome
from paicli.context.types import CompactionResult, CompactionStep, Strategy
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient

# Watermarks (beyond the reference, whose thresholds still decide *when* a level fires): a summary or the
# fallback keeps a recent tail so that the view lands near SUMMARY_TARGET_RATIO of the trigger, leaving
# SUMMARY_ROOM_RATIO for the summary text; the next summary is then many turns away. Clearing's own low
# watermark is in clearing.LOW_WATERMARK_RATIO. Unseen results are offloaded when, with the system prompt and
# the latest user message, they would take more than UNSEEN_SHARE of the request limit.
SUMMARY_TARGET_RATIO = 0.5
SUMMARY_ROOM_RATIO = 0.1
UNSEEN_SHARE = 0.75
MIN_SUMMARY_GAIN_RATIO = 0.25
NOTE_ROOM_TOKENS = 300  # the fallback note's own lines (header, counts) and its acknowledgement
NOTE_REQUESTS_RATIO = (
    0.2  # the user's requests a fallback note keeps verbatim: up to this share of the trigger
)

Tools = Sequence[Mapping[str, Any]] | None
Measure = Callable[[Sequence[Message]], int]


class FullSummary(Protocol):
    def compact(
        self,
        history: list[Message],
        trigger: int,
        force: bool,
        retain: int,
        focus: str | None = None,
        cancel: CancelToken | None = None,
        cut: int | None = None,
        prefix: SharedPrefix | None = None,
        *,
        llm: LLMClient | None,
    ) -> SummaryOutcome: ...


class SessionMemory(Protocol):
    enabled: bool

    def prepare_if_needed(self, history: list[Message], trigger: int, llm: LLMClient | None) -> bool: ...

    def compact_if_ready(self, history: list[Message], trigger: int) -> bool: ...

    def clear(self, history: list[Message]) -> None: ...


def result_of(
    compacted: bool, steps: list[CompactionStep], cleared: int, error: str | None = None
) -> CompactionResult:
    if not steps:
        return CompactionResult(False, "none", 0, (), error)
    rebuilt = [step for step in steps if not step.in_place and step.strategy != "tool_result_clearing"]
    strategy: Strategy = (rebuilt or steps)[-1].strategy  # a summary followed by its clearing is a summary
    return CompactionResult(compacted, strategy, cleared, tuple(steps), error)


def tail_budget(history: Sequence[Message], trigger: int, measure: Measure) -> int:
    """Tokens of recent messages kept verbatim by a summary or fallback: what is left of the post-summary
    target once the system prompt and room for the summary itself are counted."""
    system = measure(history[: system_end(history)])
    return max(0, int(trigger * (SUMMARY_TARGET_RATIO - SUMMARY_ROOM_RATIO)) - system)
