"""What compaction does once a history is past a threshold: the summariser with its full summary, the ladder's
climb and the window fit. `AutoCompactionManager` builds it at the first call that needs it (issue 49), so a
run whose histories never near a threshold never loads any of it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Protocol

from paicli.cancel import CancelToken
from paicli.config.compaction_profiles import CompactionProfile
from paicli.context.clearing import ToolResultClearer
from paicli.context.climb import climb, summary_by_name
from paicli.context.gauge import Gauge
from paicli.context.ladder import Ladder
from paicli.context.levels import NOTE_REQUESTS_RATIO, FullSummary, SessionMemory, Tools
from paicli.context.memory_view import TurnMemory
from paicli.context.outcomes import partial_change, receipted
from paicli.context.profile import ContextProfile
from paicli.context.summariser import Announce, Summariser, SummaryCall
from paicli.context.summary import ConversationHistoryCompactor, SharedPrefix
from paicli.context.summary_text import input_chars_for_window
from paicli.context.tokens import TokenCounter
from paicli.context.types import CompactionResult, SummaryHooks, whole_view
from paicli.context.unseen import Offloader
from paicli.context.window import FitParts, Window, fit_window, manual_only
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient

log = logging.getLogger(__name__)


class Parts(Protocol):
    """What the manager holds and acting reads at each call (the profile changes with a server's window)."""

    @property
    def policy(self) -> CompactionProfile: ...
    @property
    def profile(self) -> ContextProfile: ...
    @property
    def counter(self) -> TokenCounter: ...
    @property
    def gauge(self) -> Gauge: ...
    @property
    def clearer(self) -> ToolResultClearer: ...
    @property
    def offloader(self) -> Offloader | None: ...
    @property
    def ladder(self) -> Ladder: ...


class Acting:
    def __init__(self, parts: Parts, summariser: Summariser) -> None:
        self._parts = parts
        self.summariser = summariser
        self.resize()

    def resize(self) -> None:
        """Follow the manager's profile (a server's smaller window narrows it)."""
        profile = self.summariser.profile = self._parts.profile
        full = self.summariser.full
        if not isinstance(full, ConversationHistoryCompactor):
            return
        # a summary fits the room the profile keeps for it (an 8K window: 2K), never under 1K or over 8K
        full.max_output_tokens = max(1_024, min(8_192, profile.summary_reserve))
        if self._parts.ladder.has("window_fit"):
            full.max_input_chars = input_chars_for_window(profile.window, profile.buffer_reserve)
        full.words_budget = int(profile.compression_trigger_tokens * NOTE_REQUESTS_RATIO)

    def act(
        self,
        history: list[Message],
        tools: Tools,
        cancel: CancelToken | None,
        announce: Announce | None,
        llm: LLMClient | None,
    ) -> CompactionResult:
        """A history past a threshold: the ladder's levels, then the window fit; each change gets its receipt."""
        parts, measure, before = self._parts, self._parts.gauge.measure, list(history)
        if not parts.ladder.automatic:  # lossless offloads only; they get a receipt like any other change
            result = manual_only(self._fit(SummaryCall(llm)), history, self.window(tools))
            return receipted(result, before, history, measure, manual=False)
        call = SummaryCall(llm, announce)
        try:
            trigger = parts.profile.compression_trigger_tokens
            result = climb(parts.ladder, self.summariser, history, trigger, cancel, call)
            if parts.ladder.has("window_fit"):
                result = fit_window(self._fit(call), history, self.window(tools), result, cancel)
        except Exception:  # compaction must never cost the user a turn
            log.exception("context compaction failed; continuing with the history as it is")
            result = partial_change(before, history, measure)
            if any(not step.in_place for step in result.steps):
                self.summariser.restore_memory(history)
        result = receipted(result, before, history, measure, manual=False)
        return whole_view(result) if parts.ladder.whole_view_checkpoints else result

    def _fit(self, call: SummaryCall) -> FitParts:
        parts = self._parts
        return FitParts(parts.profile, parts.clearer, parts.offloader, self.summariser, parts.gauge, call)

    def window(self, tools: Tools) -> Window:
        """The room of a request to the model of the current call."""
        parts = self._parts
        model = parts.gauge.model
        limit = parts.profile.window - parts.profile.buffer_reserve
        schema = parts.counter.for_window(model, parts.counter.count_tools(tools))
        return Window(limit, schema, parts.counter.window_scale(model))

    def summary(
        self,
        history: list[Message],
        focus: str | None,
        cancel: CancelToken | None,
        llm: LLMClient | None,
        prefix: Callable[[], SharedPrefix | None],
    ) -> CompactionResult:
        """A full summary now, whatever the thresholds say (/compact and its preview)."""
        return summary_by_name(self.summariser, history, focus, cancel, llm, prefix)


def build_acting(
    parts: Parts,
    full: FullSummary | None,
    session_memory: SessionMemory,
    turn_memory: TurnMemory | None,
    *,
    summary_model: str | None,
    pinned: Callable[[], str] | None,
    hooks: SummaryHooks | None,
) -> Acting:
    """`full`: the summary the caller gave the manager (tests), or None for the configured one."""
    if full is None:
        full = ConversationHistoryCompactor(
            parts.counter,
            parts.policy.retain_rounds,
            summary_model=summary_model,
            measure=parts.gauge.measure,
            pinned=pinned,
            inline=parts.policy.summary_input == "prefix",
            words_check=parts.policy.check_user_words,
            hooks=hooks,
        )
    policy, gauge, clearer, profile = parts.policy, parts.gauge, parts.clearer, parts.profile
    return Acting(parts, Summariser(policy, gauge, clearer, full, session_memory, turn_memory, profile))
