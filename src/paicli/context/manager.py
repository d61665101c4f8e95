"""AutoCompactionManager (spec 2.1): before every model call, clear old tool results, then summarise if needed.

Level 1 (offload) happens earlier, when a tool result is produced. Thresholds compare the calibrated local
count of the history's messages (spec 1.2: no tools schema) against the profile's trigger. A request that
would still not fit the window goes through the fit in window.py.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from paicli.cancel import CancelToken
from paicli.config.env import EnvLookup
from paicli.context import compaction_profile, prompts
from paicli.context.backoff import SummaryBackoff
from paicli.context.clearing import ToolResultClearer
from paicli.context.compaction_profile import CompactionProfile, clearing_config
from paicli.context.levels import (
    MIN_SUMMARY_GAIN_RATIO,
    FullSummary,
    SessionMemory,
    Tools,
    result_of,
    tail_budget,
)
from paicli.context.memory_view import TurnMemory
from paicli.context.profile import ContextProfile
from paicli.context.rounds import choose_cut, removed, unseen_tool_indices
from paicli.context.session_memory import SessionMemoryCompactor, daemon_submit, enabled_by_configuration
from paicli.context.status import ContextFigure, ContextReport, context_figure
from paicli.context.summary import (
    ConversationHistoryCompactor,
    SharedPrefix,
    SummaryOutcome,
    input_chars_for_window,
    system_end,
)
from paicli.context.tokens import CALIBRATION_MAX, TokenCounter
from paicli.context.types import NO_COMPACTION, CompactionResult, CompactionStep, Strategy, whole_view
from paicli.context.unseen import Offloader
from paicli.context.window import Window, fit_window
from paicli.llm.messages import Message, Usage
from paicli.llm.protocol import LLMClient

log = logging.getLogger(__name__)

INLINE_FOCUS_ROOM_TOKENS = 200  # a /compact focus added to the summary instruction


class AutoCompactionManager:
    """One per history owner (ReAct agent, each Plan task, each Team sub-agent). Satisfies ContextPort."""

    def __init__(
        self,
        llm: LLMClient | None,
        counter: TokenCounter | None = None,
        profile: ContextProfile | None = None,
        env: EnvLookup | None = None,
        *,
        clearer: ToolResultClearer | None = None,
        full: FullSummary | None = None,
        session_memory: SessionMemory | None = None,
        session_memory_enabled: bool | None = None,
        policy: CompactionProfile | None = None,
        summary_model: str | None = None,  # Settings.compaction_model_setting; None: the session model
    ) -> None:
        lookup = env or EnvLookup()
        self._llm = llm
        self.policy = policy or compaction_profile.from_env(lookup)
        self.counter = counter or TokenCounter.from_env(lookup)
        # what thresholds compare: the reference's estimator, uncalibrated, or the session's counter
        self._thresholds = TokenCounter("heuristic") if self.policy.estimator == "reference" else self.counter
        self.profile = profile or ContextProfile.from_window(None)
        self.clearer = clearer or ToolResultClearer(clearing_config(lookup, self.policy), self.measure)
        self.full: FullSummary = full or ConversationHistoryCompactor(
            llm,
            self.counter,
            self.policy.retain_rounds,
            summary_model=summary_model,
            measure=self.measure,
        )
        if session_memory is None:
            flag = (
                enabled_by_configuration(lookup) if session_memory_enabled is None else session_memory_enabled
            )
            session_memory = SessionMemoryCompactor(llm, self.measure, flag, daemon_submit, summary_model)
        self.session_memory: SessionMemory = session_memory
        # Beyond the reference: after a failed automatic summary, wait for the history to grow before the
        # next attempt instead of paying for a summary (and its repair) before every model call.
        self.backoff = SummaryBackoff()
        self._size_summary_input()
        if isinstance(self.full, ConversationHistoryCompactor):
            self.full.inline_enabled = self.policy.summary_input == "prefix"
        # The view and tools of the request about to go out (before this call's compaction): what a summary
        # request shares its prefix with.
        self._sent: tuple[tuple[Message, ...], tuple[Mapping[str, Any], ...]] = ((), ())
        self.offloader: Offloader | None = (
            None  # set by the composer: offloads unseen results that cannot fit
        )
        self.turn_memory: TurnMemory | None = None  # set for memory placement `turn` (see memory_view)
        self._pending_calibration: tuple[list[Message], Tools, int] | None = None

    @property
    def model(self) -> str:
        return self._llm.model if self._llm is not None else ""

    def measure(self, history: Sequence[Message]) -> int:
        """The figure thresholds compare: the local message count, calibrated for the session model."""
        if self._thresholds is not self.counter:
            return self._thresholds.count_messages(history)
        self._settle_calibration()
        return self.counter.calibrated(self.model, self.counter.count_messages(history))

    def set_llm(self, llm: LLMClient | None) -> None:
        self._llm = llm
        self.full.set_llm(llm)
        self.session_memory.set_llm(llm)

    def set_profile(self, profile: ContextProfile) -> None:
        self.profile = profile
        self._size_summary_input()

    def _size_summary_input(self) -> None:
        if isinstance(self.full, ConversationHistoryCompactor) and self.policy.window_fit:
            self.full.max_input_chars = input_chars_for_window(
                self.profile.window, self.profile.buffer_reserve
            )

    # -- ContextPort ---------------------------------------------------------------------------------

    def before_call(
        self, history: list[Message], tools: Tools = None, cancel: CancelToken | None = None
    ) -> CompactionResult:
        self._sent = (tuple(history), tuple(tools or ()))
        try:
            if self._clearly_below_thresholds(history, tools):
                return NO_COMPACTION
        except Exception:
            log.exception("context size check failed")
            return NO_COMPACTION
        before = list(history)
        try:
            result = self.compact_if_needed(history, self.profile.compression_trigger_tokens, cancel)
            if self.policy.window_fit:
                result = fit_window(self, history, self._window(tools), result, cancel)
        except Exception:  # compaction must never cost the user a turn
            log.exception("context compaction failed; continuing with the history as it is")
            result = self._partial_change(before, history)
            if any(not step.in_place for step in result.steps):
                self.restore_memory(history)
        return whole_view(result) if self.policy.full_view_checkpoints else result

    def _window(self, tools: Tools) -> Window:
        limit = self.profile.window - self.profile.buffer_reserve
        schema = self.counter.for_window(self.model, self.counter.count_tools(tools))
        return Window(limit, schema, self.counter.window_scale(self.model))

    def _partial_change(self, before: list[Message], history: list[Message]) -> CompactionResult:
        """A level that failed half-way may already have changed the view (clearing runs first): report the
        change so the caller still checkpoints exactly what the model will see."""
        if len(before) == len(history) and all(a is b for a, b in zip(before, history, strict=True)):
            return NO_COMPACTION
        try:
            tokens = (self.measure(before), self.measure(history))
        except Exception:
            tokens = (0, 0)
        in_place = len(before) == len(history)
        strategy: Strategy = "tool_result_clearing" if in_place else "full_summary"
        cleared = sum(1 for a, b in zip(before, history, strict=True) if a is not b) if in_place else 0
        step = CompactionStep(strategy, len(before), len(history), tokens[0], tokens[1], cleared)
        return CompactionResult(
            not in_place, strategy, cleared, (step,), "压缩过程中出错，已保留到目前为止的结果"
        )

    # -- shared with the window fit (window.FitHost) ------------------------------------------------

    def restore_memory(self, history: list[Message]) -> None:
        if self.turn_memory is None:
            return
        try:
            self.turn_memory.restore(history)
        except Exception:  # memories are a help, never a reason to lose the request
            log.exception("restoring the turn's memories after compaction failed")

    def summarise(self, history: list[Message], trigger: int, cancel: CancelToken | None) -> SummaryOutcome:
        """One automatic summary attempt (the profile's tail: recent rounds, or chosen by tokens); records
        success or failure."""
        tokens = self.measure(history)
        if self.policy.summary_tail == "rounds":
            outcome = self.full.compact(history, trigger, False, self.policy.retain_rounds, None, cancel)
        else:
            cut = choose_cut(history, tail_budget(history, trigger, self.measure), self._size)
            if cut is None:
                return SummaryOutcome(False, len(history), len(history))
            prefix = self._shared_prefix(cut)
            outcome = self.full.compact(
                history, 0, True, self.policy.retain_rounds, None, cancel, cut, prefix
            )
        if outcome.compacted:
            self.backoff.succeeded(id(history))
            self.session_memory.clear(history)
            self.restore_memory(history)
        else:
            self.backoff.failed(id(history), tokens, outcome.error or "摘要没有让上下文变小")
        return outcome

    def _shared_prefix(self, cut: int | None = None) -> SharedPrefix | None:
        """The last request's messages up to `cut` (all of them when None) and its tools, when a summary request
        made of them and the instruction fits the window."""
        messages, tools = self._sent
        if not messages:
            return None
        shared = messages if cut is None else messages[:cut]
        instruction = Message.user(prompts.render("summary-inline.md", focus=""))
        size = self.measure([*shared, instruction])
        size += (
            self.counter.calibrated(self.model, self.counter.count_tools(tools)) + INLINE_FOCUS_ROOM_TOKENS
        )
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

    def _summary_pays(self, history: Sequence[Message], trigger: int) -> bool:
        """Beyond the reference: a summary waits (the window fit still acts if the request would not fit)
        when the latest, unseen results are what put the history over the trigger (once seen, clearing
        removes them at a fraction of a summary's cost), or when it could remove less than
        MIN_SUMMARY_GAIN_RATIO of the trigger."""
        unseen = sum(self._size(history[i]) for i in unseen_tool_indices(history))
        if self.clearer.config.enabled and self.measure(history) - unseen < trigger:
            return False
        cut = choose_cut(history, tail_budget(history, trigger, self.measure), self._size)
        if cut is None:
            return False
        removable = sum(self._size(m) for m in removed(history, cut))
        return removable >= trigger * MIN_SUMMARY_GAIN_RATIO

    def _size(self, message: Message) -> int:
        return self.measure([message])

    def _clearly_below_thresholds(self, history: Sequence[Message], tools: Tools) -> bool:
        """Short histories skip exact counting (and loading the tokenizer): twice the byte bound (the largest
        calibration ratio) is still under every threshold, so no level could act."""
        bound = CALIBRATION_MAX * TokenCounter.upper_bound(history, tools)
        trigger = self.profile.compression_trigger_tokens
        limits = [trigger, self.profile.window - self.profile.buffer_reserve]
        if self.clearer.config.enabled:
            limits.append(self.clearer.trigger_tokens(trigger))
        if self.session_memory.enabled:
            limits.append(int(trigger * 0.6))
        return bound < min(limits)

    def after_response(self, history: Sequence[Message], tools: Tools, usage: Usage | None) -> None:
        """Calibration is settled lazily: the exact count of the request waits until a threshold needs it."""
        if usage is None or usage.prompt_tokens <= 0:
            return
        sent = list(history)
        if sent and sent[-1].role == "assistant":
            sent = sent[:-1]  # the response itself was already appended: it was not part of the request
        self._pending_calibration = (sent, list(tools) if tools else None, usage.prompt_tokens)
        self.counter.last_provider_prompt_tokens = usage.prompt_tokens

    def _settle_calibration(self) -> None:
        pending, self._pending_calibration = self._pending_calibration, None
        if pending is not None:
            sent, tools, provider_tokens = pending
            schema = self.counter.count_tools(tools)
            local = self.counter.count_messages(sent) + schema
            self.counter.observe(self.model, local, provider_tokens, schema)

    def compact_now(
        self, history: list[Message], focus: str | None = None, cancel: CancelToken | None = None
    ) -> CompactionResult:
        self.session_memory.clear(history)
        self._sent = (tuple(history), self._sent[1])
        try:
            outcome = self.full.compact(history, 0, True, 1, focus, cancel, None, self._shared_prefix())
        except Exception as exc:
            log.exception("manual compaction failed")
            return CompactionResult(False, "none", error=f"压缩失败：{exc}")
        if not outcome.compacted:
            return CompactionResult(False, "none", error=outcome.error)
        self.backoff.succeeded(id(history))
        self.restore_memory(history)
        return result_of(True, [outcome.step("full_summary")], 0)

    def reset(self, history: list[Message]) -> None:
        self.session_memory.clear(history)
        self.backoff.succeeded(id(history))
        if self.turn_memory is not None:
            self.turn_memory.forget()

    # -- the reference algorithm ----------------------------------------------------------------------

    def compact_if_needed(
        self, history: list[Message], trigger: int, cancel: CancelToken | None = None
    ) -> CompactionResult:
        """The reference ladder (spec 2.1) with cache-aware depths: clearing goes down to its low watermark,
        and a summary keeps a tail sized so the result lands near SUMMARY_TARGET_RATIO of the trigger."""
        if trigger <= 0:
            return NO_COMPACTION
        steps: list[CompactionStep] = []
        if self.policy.clearing_depth == "watermark":
            clear = self.clearer.clear_if_needed(history, trigger)
        else:
            clear = self.clearer.clear_if_needed_reference(history, trigger)
        if clear.cleared:
            steps.append(clear.step(len(history)))
        self.session_memory.prepare_if_needed(history, trigger)
        tokens = self.measure(history)
        if tokens < trigger:
            return result_of(False, steps, clear.cleared_count)
        messages_before = len(history)
        if self.session_memory.compact_if_ready(history, trigger):
            self.restore_memory(history)
            steps.append(
                CompactionStep("session_memory", messages_before, len(history), tokens, self.measure(history))
            )
            cleared = self.clear_rebuilt(history, trigger, steps)
            return result_of(True, steps, clear.cleared_count + cleared)
        if self.policy.summary_gates and (
            not self.backoff.allowed(id(history), tokens, trigger) or not self._summary_pays(history, trigger)
        ):
            return result_of(False, steps, clear.cleared_count)
        outcome = self.summarise(history, trigger, cancel)
        if outcome.compacted:
            steps.append(outcome.step("full_summary"))
            cleared = self.clear_rebuilt(history, trigger, steps)
            return result_of(True, steps, clear.cleared_count + cleared)
        return result_of(False, steps, clear.cleared_count, outcome.error)

    # -- /context helpers -----------------------------------------------------------------------------

    def tool_result_clear_trigger_tokens(self) -> int:
        if not self.clearer.config.enabled:
            return 0
        return self.clearer.trigger_tokens(self.profile.compression_trigger_tokens)

    @property
    def session_memory_enabled(self) -> bool:
        return self.session_memory.enabled

    def figure(self, history: Sequence[Message], tools: Tools) -> ContextFigure:
        """The context figure the status bar shows; the same as /context's bar and total line."""
        self._settle_calibration()
        return context_figure(self.counter, self.model, self.profile.window, history, tools)

    def context_report(
        self,
        history: Sequence[Message],
        tools: Tools,
        *,
        provider: str = "",
        cache_hit_ratio: float | None = None,
    ) -> ContextReport:
        self._settle_calibration()
        start = system_end(history)
        system_tokens = self.counter.count_messages(history[:start])
        conversation_tokens = self.counter.count_messages(history[start:])
        tools_tokens = self.counter.count_tools(tools)
        local = system_tokens + tools_tokens + conversation_tokens
        calibration = self.counter.calibration(self.model)
        return ContextReport(
            model=self.model,
            provider=provider,
            window=self.profile.window,
            system_tokens=system_tokens,
            system_messages=start,
            tools_tokens=tools_tokens,
            tools_count=len(tools or ()),
            conversation_tokens=conversation_tokens,
            conversation_messages=len(history) - start,
            calibrated_tokens=self.counter.calibrated(self.model, local),
            calibration_ratio=calibration.ratio if calibration else None,
            provider_prompt_tokens=self.counter.last_provider_prompt_tokens,
            trigger_tokens=self.profile.compression_trigger_tokens,
            trigger_ratio=self.profile.compression_trigger_ratio,
            compared_tokens=self.measure(history),
            clear_trigger_tokens=self.tool_result_clear_trigger_tokens(),
            clear_keep=self.clearer.config.keep_recent,
            session_memory_enabled=self.session_memory_enabled,
            mcp_index_enabled=self.profile.mcp_resource_index_enabled,
            cache_mode=self.profile.cache_mode,
            cache_hit_ratio=cache_hit_ratio,
            tokenizer=self.counter.encoding_name,
        )
