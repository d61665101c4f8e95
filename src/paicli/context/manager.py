"""AutoCompactionManager (spec 2.1): before every model call, clear old tool results, then summarise if needed.

Level 1 (offload) happens earlier, when a tool result is produced. Thresholds compare the calibrated local
count of the history's messages (spec 1.2: no tools schema) against the profile's trigger.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any, Protocol

from paicli.cancel import CancelToken
from paicli.config import knobs
from paicli.config.env import EnvLookup
from paicli.context.clearing import ClearingConfig, ToolResultClearer
from paicli.context.profile import ContextProfile
from paicli.context.session_memory import SessionMemoryCompactor, daemon_submit, enabled_by_configuration
from paicli.context.status import ContextReport
from paicli.context.summary import (
    DEFAULT_RETAIN_RECENT_ROUNDS,
    ConversationHistoryCompactor,
    SummaryOutcome,
    system_end,
)
from paicli.context.tokens import CALIBRATION_MAX, TokenCounter
from paicli.context.types import NO_COMPACTION, CompactionResult, CompactionStep, Strategy
from paicli.llm.messages import Message, Usage
from paicli.llm.protocol import LLMClient

log = logging.getLogger(__name__)

RETRY_MIN_GROWTH_TOKENS = 2_000

Tools = Sequence[Mapping[str, Any]] | None



def clearing_config(env: EnvLookup) -> ClearingConfig:
    """Level 2's settings, read once from their declarations."""
    return ClearingConfig(
        enabled=knobs.TOOL_RESULT_CLEARING_ENABLED.read(env),
        trigger_tokens_override=knobs.TOOL_RESULT_CLEARING_TRIGGER_TOKENS.read(env),
        keep_recent=knobs.TOOL_RESULT_CLEARING_KEEP.read(env),
        exclude_tools=frozenset(knobs.TOOL_RESULT_CLEARING_EXCLUDE_TOOLS.read(env)),
    )

class FullSummary(Protocol):
    def compact(
        self,
        history: list[Message],
        trigger: int,
        force: bool,
        retain: int,
        focus: str | None = None,
        cancel: CancelToken | None = None,
    ) -> SummaryOutcome: ...

    def set_llm(self, llm: LLMClient | None) -> None: ...


class SessionMemory(Protocol):
    enabled: bool

    def prepare_if_needed(self, history: list[Message], trigger: int) -> bool: ...

    def compact_if_ready(self, history: list[Message], trigger: int) -> bool: ...

    def clear(self, history: list[Message]) -> None: ...

    def set_llm(self, llm: LLMClient | None) -> None: ...


def _result(
    compacted: bool, steps: list[CompactionStep], cleared: int, error: str | None = None
) -> CompactionResult:
    if not steps:
        return CompactionResult(False, "none", 0, (), error)
    strategy: Strategy = steps[-1].strategy
    return CompactionResult(compacted, strategy, cleared, tuple(steps), error)


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
    ) -> None:
        lookup = env or EnvLookup()
        self._llm = llm
        self.counter = counter or TokenCounter.from_env(lookup)
        self.profile = profile or ContextProfile.from_window(None)
        summary_model = knobs.COMPACTION_MODEL.read(lookup)
        self.clearer = clearer or ToolResultClearer(clearing_config(lookup), self.measure)
        self.full: FullSummary = full or ConversationHistoryCompactor(
            llm, self.counter, DEFAULT_RETAIN_RECENT_ROUNDS, summary_model=summary_model, measure=self.measure
        )
        if session_memory is None:
            flag = (
                enabled_by_configuration(lookup) if session_memory_enabled is None else session_memory_enabled
            )
            session_memory = SessionMemoryCompactor(llm, self.measure, flag, daemon_submit, summary_model)
        self.session_memory: SessionMemory = session_memory
        # Beyond the reference: after a failed automatic summary, wait for the history to grow before the
        # next attempt instead of paying for a summary (and its repair) before every model call.
        self._failed_at: dict[int, int] = {}
        self._fit_failed_at: dict[int, int] = {}  # the same, for the window fallback's summary (retain 1)
        self._pending_calibration: tuple[list[Message], Tools, int] | None = None

    @property
    def model(self) -> str:
        return self._llm.model if self._llm is not None else ""

    def measure(self, history: Sequence[Message]) -> int:
        """The figure thresholds compare: the local message count, calibrated for the session model."""
        self._settle_calibration()
        return self.counter.calibrated(self.model, self.counter.count_messages(history))

    def set_llm(self, llm: LLMClient | None) -> None:
        self._llm = llm
        self.full.set_llm(llm)
        self.session_memory.set_llm(llm)

    def set_profile(self, profile: ContextProfile) -> None:
        self.profile = profile

    # -- ContextPort ---------------------------------------------------------------------------------

    def before_call(
        self, history: list[Message], tools: Tools = None, cancel: CancelToken | None = None
    ) -> CompactionResult:
        try:
            if self._clearly_below_thresholds(history, tools):
                return NO_COMPACTION
        except Exception:
            log.exception("context size check failed")
            return NO_COMPACTION
        before = list(history)
        try:
            result = self.compact_if_needed(history, self.profile.compression_trigger_tokens, cancel)
            return self._fit_window(history, tools, result, cancel)
        except Exception:  # compaction must never cost the user a turn
            log.exception("context compaction failed; continuing with the history as it is")
            return self._partial_change(before, history)

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
        return CompactionResult(not in_place, strategy, cleared, (step,), "压缩过程中出错，已保留到目前为止的结果")

    def _fit_window(
        self, history: list[Message], tools: Tools, result: CompactionResult, cancel: CancelToken | None = None
    ) -> CompactionResult:
        """Beyond the reference: a request that would still not fit the window (many tool rounds in the
        retained turns) first loses every older tool result but the newest; if that is not enough, the turns
        before the latest one are summarised (what /compact does), rather than sending a request that must fail."""
        limit = self.profile.window - self.profile.buffer_reserve
        schema = self.counter.calibrated(self.model, self.counter.count_tools(tools))
        if self.measure(history) + schema <= limit:
            return result
        steps = list(result.steps)
        cleared_total, compacted, error = result.cleared_tool_results, result.compacted, result.error
        if self.clearer.config.enabled:
            emergency = ToolResultClearer(replace(self.clearer.config, keep_recent=1), self.measure)
            before_messages = len(history)
            cleared = emergency.clear_now(history)
            if cleared.cleared:
                steps.append(
                    CompactionStep(
                        "tool_result_clearing",
                        before_messages,
                        len(history),
                        cleared.before_tokens,
                        cleared.after_tokens,
                        cleared.cleared_count,
                    )
                )
                cleared_total += cleared.cleared_count
        tokens = self.measure(history)
        failed_at = self._fit_failed_at.get(id(history))
        retry_ok = failed_at is None or tokens >= failed_at + RETRY_MIN_GROWTH_TOKENS
        if tokens + schema > limit and retry_ok:
            outcome = self.full.compact(history, 0, True, 1, None, cancel)
            if outcome.compacted:
                self._failed_at.pop(id(history), None)
                self._fit_failed_at.pop(id(history), None)
                self.session_memory.clear(history)
                steps.append(self._step("full_summary", outcome))
                compacted = True
            elif outcome.error:
                self._fit_failed_at[id(history)] = tokens
                error = outcome.error
        if self.measure(history) + schema > limit:
            log.warning("request may exceed the context window: the latest turn alone is too large")
        if not steps:
            return result
        summaries = [s for s in steps if s.strategy in ("full_summary", "session_memory")]
        strategy: Strategy = summaries[-1].strategy if compacted and summaries else steps[-1].strategy
        return CompactionResult(compacted, strategy, cleared_total, tuple(steps), error)

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
            self.counter.observe(self.model, self.counter.count_request(sent, tools), provider_tokens)

    def compact_now(
        self, history: list[Message], focus: str | None = None, cancel: CancelToken | None = None
    ) -> CompactionResult:
        self.session_memory.clear(history)
        try:
            outcome = self.full.compact(history, 0, True, 1, focus, cancel)
        except Exception as exc:
            log.exception("manual compaction failed")
            return CompactionResult(False, "none", error=f"压缩失败：{exc}")
        if not outcome.compacted:
            return CompactionResult(False, "none", error=outcome.error)
        self._failed_at.pop(id(history), None)
        self._fit_failed_at.pop(id(history), None)
        return _result(True, [self._step("full_summary", outcome)], 0)

    def reset(self, history: list[Message]) -> None:
        self.session_memory.clear(history)
        self._failed_at.pop(id(history), None)
        self._fit_failed_at.pop(id(history), None)

    # -- the reference algorithm ----------------------------------------------------------------------

    def compact_if_needed(
        self, history: list[Message], trigger: int, cancel: CancelToken | None = None
    ) -> CompactionResult:
        if trigger <= 0:
            return NO_COMPACTION
        steps: list[CompactionStep] = []
        count_before = len(history)
        clear = self.clearer.clear_if_needed(history, trigger)
        if clear.cleared:
            steps.append(
                CompactionStep(
                    "tool_result_clearing",
                    count_before,
                    len(history),
                    clear.before_tokens,
                    clear.after_tokens,
                    clear.cleared_count,
                )
            )
        self.session_memory.prepare_if_needed(history, trigger)
        tokens = self.measure(history)
        if tokens < trigger:
            return _result(False, steps, clear.cleared_count)
        messages_before = len(history)
        if self.session_memory.compact_if_ready(history, trigger):
            steps.append(
                CompactionStep("session_memory", messages_before, len(history), tokens, self.measure(history))
            )
            return _result(True, steps, clear.cleared_count)
        failed_at = self._failed_at.get(id(history))
        if failed_at is not None and tokens < failed_at + max(RETRY_MIN_GROWTH_TOKENS, trigger // 20):
            return _result(False, steps, clear.cleared_count)
        outcome = self.full.compact(history, trigger, False, DEFAULT_RETAIN_RECENT_ROUNDS, None, cancel)
        if outcome.compacted:
            self._failed_at.pop(id(history), None)
            self._fit_failed_at.pop(id(history), None)
            self.session_memory.clear(history)
            steps.append(self._step("full_summary", outcome))
            return _result(True, steps, clear.cleared_count)
        if outcome.error:
            self._failed_at[id(history)] = tokens
        return _result(False, steps, clear.cleared_count, outcome.error)

    @staticmethod
    def _step(strategy: Strategy, outcome: SummaryOutcome) -> CompactionStep:
        return CompactionStep(
            strategy,
            outcome.before_messages,
            outcome.after_messages,
            outcome.before_tokens,
            outcome.after_tokens,
        )

    # -- /context helpers -----------------------------------------------------------------------------

    def tool_result_clear_trigger_tokens(self) -> int:
        if not self.clearer.config.enabled:
            return 0
        return self.clearer.trigger_tokens(self.profile.compression_trigger_tokens)

    @property
    def session_memory_enabled(self) -> bool:
        return self.session_memory.enabled

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
