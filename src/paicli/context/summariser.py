"""Level 3 as the manager and the window fit both use it: one automatic summary attempt, its backoff, the
clearing of the kept tail in the same pass, and the turn's memories put back after a rebuild.

Built by the manager from its collaborators; serves the manager's one history.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paicli.cancel import CancelToken
from paicli.config.compaction_profiles import CompactionProfile, SummaryTail
from paicli.context import prompts
from paicli.context.backoff import SummaryBackoff
from paicli.context.clearing import ToolResultClearer
from paicli.context.gauge import Gauge
from paicli.context.levels import MIN_SUMMARY_GAIN_RATIO, FullSummary, Measure, SessionMemory, tail_budget
from paicli.context.memory_view import TurnMemory
from paicli.context.profile import ContextProfile
from paicli.context.rounds import choose_cut, removed, unseen_tool_indices
from paicli.context.summary import SharedPrefix, SummaryOutcome
from paicli.context.summary_text import real_user_indices, system_end
from paicli.context.types import CompactionStep
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient

log = logging.getLogger(__name__)

INLINE_FOCUS_ROOM_TOKENS = 200  # a /compact focus added to the summary instruction
SUMMARY_ANNOUNCEMENT = (
    "🗜️ 上下文快满了，正在自动摘要较早的对话；完成后可用 /compact show 查看摘要和保留了哪些内容。"
)

Announce = Callable[[str], None]
Size = Callable[[Message], int]


@dataclass(frozen=True)
class SummaryPlan:
    """Which span an automatic summary replaces, per the profile's tail: `rounds` keeps the last `retain` real
    user rounds (the summary itself finds the split); `tokens` keeps the tail from `cut` on (None: nothing
    can be cut away, so no summary). `announce`: the person is told before the summary's model call."""

    tail: SummaryTail
    retain: int
    cut: int | None = None
    announce: bool = False

    @property
    def possible(self) -> bool:
        return self.tail == "rounds" or self.cut is not None


def tail_cut(history: Sequence[Message], trigger: int, measure: Measure, size: Size) -> int | None:
    """Where a summary sized by tokens splits: the largest recent tail that lands the view near the target."""
    return choose_cut(history, tail_budget(history, trigger, measure), size)


def plan_summary(
    history: Sequence[Message], trigger: int, policy: CompactionProfile, measure: Measure, size: Size
) -> SummaryPlan:
    """Pure: the span a summary of `history` would replace under `policy`."""
    if policy.summary_tail == "rounds":
        rounds = len(real_user_indices(history, system_end(history)))
        return SummaryPlan("rounds", policy.retain_rounds, announce=rounds > policy.retain_rounds)
    cut = tail_cut(history, trigger, measure, size)
    return SummaryPlan("tokens", policy.retain_rounds, cut, announce=cut is not None)


@dataclass(frozen=True)
class SummaryCall:
    """What an automatic summary gets from the call it serves: the client to ask (None: no summary) and where
    the line said before it goes."""

    llm: LLMClient | None
    announce: Announce | None = None


class Summariser:
    def __init__(
        self,
        policy: CompactionProfile,
        gauge: Gauge,
        clearer: ToolResultClearer,
        full: FullSummary,
        session_memory: SessionMemory,
        turn_memory: TurnMemory | None,
        profile: ContextProfile,
    ) -> None:
        self.policy = policy
        self.gauge = gauge
        self.clearer = clearer
        self.full = full
        self.session_memory = session_memory
        self.turn_memory = turn_memory
        self.profile = profile
        # Beyond the reference: after a failed automatic summary, wait for the history to grow before the
        # next attempt instead of paying for a summary (and its repair) before every model call.
        self.backoff = SummaryBackoff()
        # The view and tools of the request about to go out (before this call's compaction): what a summary
        # request shares its prefix with.
        self.sent: tuple[tuple[Message, ...], tuple[Mapping[str, Any], ...]] = ((), ())

    def restore_memory(self, history: list[Message]) -> None:
        if self.turn_memory is None:
            return
        try:
            self.turn_memory.restore(history)
        except Exception:  # memories are a help, never a reason to lose the request
            log.exception("restoring the turn's memories after compaction failed")

    def summarise(
        self, history: list[Message], trigger: int, cancel: CancelToken | None, call: SummaryCall
    ) -> SummaryOutcome:
        """One automatic summary attempt by the call's client (the profile's tail: recent rounds, or chosen by
        tokens); records success or failure."""
        llm = call.llm
        tokens = self.gauge.measure(history)
        plan = plan_summary(history, trigger, self.policy, self.gauge.measure, self.gauge.size)
        if not plan.possible:
            return SummaryOutcome(False, len(history), len(history))
        if plan.announce:
            _announce(call.announce)
        if plan.cut is None:
            outcome = self.full.compact(history, trigger, False, plan.retain, None, cancel, llm=llm)
        else:
            prefix = self.shared_prefix(plan.cut)
            outcome = self.full.compact(
                history, 0, True, plan.retain, None, cancel, plan.cut, prefix, llm=llm
            )
        if outcome.compacted:
            self.backoff.succeeded()
            self.session_memory.clear(history)
            self.restore_memory(history)
        else:
            self.backoff.failed(tokens, outcome.error or "摘要没有让上下文变小")
        return outcome

    def shared_prefix(self, cut: int | None = None) -> SharedPrefix | None:
        """The last request's messages up to `cut` (all of them when None) and its tools, when a summary request
        made of them and the instruction fits the window."""
        messages, tools = self.sent
        if not messages:
            return None
        shared = messages if cut is None else messages[:cut]
        instruction = Message.user(prompts.render("summary-inline.md", focus=""))
        counter, model = self.gauge.counter, self.gauge.model
        size = self.gauge.measure([*shared, instruction])
        size += counter.calibrated(model, counter.count_tools(tools)) + INLINE_FOCUS_ROOM_TOKENS
        if size > self.profile.window - self.profile.buffer_reserve:  # the reserve is the summary's own room
            return None
        return SharedPrefix(shared, tools)

    def clear_rebuilt(self, history: list[Message], trigger: int, steps: list[CompactionStep]) -> int:
        """Beyond the reference: right after a summary the prefix cache is broken from the summary on anyway,
        so the kept tail's seen results are cleared down to clearing's low watermark in the same pass, rather
        than by a second clearing (a second cache break) one or two requests later."""
        if not self.clearer.config.enabled or not self.policy.clear_after_summary:
            return 0
        cleared = self.clearer.clear_down_to(history, self.clearer.watermark(trigger))
        if not cleared.cleared:
            return 0
        steps.append(cleared.step(len(history)))
        return cleared.cleared_count

    def pays(self, history: Sequence[Message], trigger: int) -> bool:
        """Beyond the reference: a summary waits (the window fit still acts if the request would not fit)
        when the latest, unseen results are what put the history over the trigger (once seen, clearing
        removes them at a fraction of a summary's cost), or when it could remove less than
        MIN_SUMMARY_GAIN_RATIO of the trigger."""
        size = self.gauge.size
        unseen = sum(size(history[i]) for i in unseen_tool_indices(history))
        if self.clearer.config.enabled and self.gauge.measure(history) - unseen < trigger:
            return False
        cut = tail_cut(history, trigger, self.gauge.measure, size)
        if cut is None:
            return False
        removable = sum(size(m) for m in removed(history, cut))
        return removable >= trigger * MIN_SUMMARY_GAIN_RATIO


def _announce(announce: Announce | None) -> None:
    if announce is None:
        return
    try:
        announce(SUMMARY_ANNOUNCEMENT)
    except Exception:  # a line on screen is never a reason to lose the summary
        log.exception("announcing the summary failed")
