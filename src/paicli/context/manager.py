"""AutoCompactionManager (spec 2.1): before every model call, clear old tool results, then summarise if needed.

Level 1 (offload) happens earlier, when a tool result is produced. Thresholds compare the calibrated local
count of the history's messages (spec 1.2: no tools schema) against the profile's trigger. A request that
would still not fit the window goes through the fit in window.py. What acts past a threshold (acting.py) is
built at the first call that needs it (issue 49).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from paicli.cancel import CancelToken
from paicli.config.compaction_profiles import CompactionProfile
from paicli.config.compaction_values import CompactionValues
from paicli.context import compaction_profile
from paicli.context.clearing import ToolResultClearer
from paicli.context.compaction_profile import clearing_config
from paicli.context.gauge import Gauge
from paicli.context.ladder import ladder_for
from paicli.context.profile import ContextProfile
from paicli.context.session_memory import SessionMemoryCompactor, Submit, daemon_submit
from paicli.context.tokens import CALIBRATION_MAX, TokenCounter
from paicli.context.types import (
    NO_COMPACTION,
    CompactionResult,
    SummaryHooks,
)
from paicli.context.unseen import Offloader
from paicli.deferred import Deferred
from paicli.llm.messages import Message, Usage
from paicli.llm.protocol import ContextLimit, LLMClient

if TYPE_CHECKING:
    from paicli.context.acting import Acting
    from paicli.context.backoff import SummaryBackoff
    from paicli.context.levels import FullSummary, SessionMemory, Tools
    from paicli.context.memory_view import TurnMemory
    from paicli.context.status import ContextFigure, ContextReport  # the status bar and /context only
    from paicli.context.summariser import Announce, Summariser

log = logging.getLogger(__name__)


Due = Literal["", "compact", "manual"]


class AutoCompactionManager:
    """One per conversation (the ReAct agent's, each Plan task's, each Team member's), with every collaborator
    given at construction. Satisfies ContextPort.

    The plan of each call is the ladder (pure, per profile); this executor holds no model: every call names the
    client it serves (`llm`, or `model` for figures), so a /model switch or a Plan/Team loop with a model of its
    own can never compact or calibrate with another client."""

    def __init__(
        self,
        counter: TokenCounter | None = None,
        profile: ContextProfile | None = None,
        values: CompactionValues | None = None,
        *,
        offloader: Offloader | None = None,
        turn_memory: TurnMemory | None = None,
        clearer: ToolResultClearer | None = None,
        full: FullSummary | None = None,
        session_memory: SessionMemory | None = None,
        submit: Submit = daemon_submit,
        policy: CompactionProfile | None = None,
        summary_model: str | None = None,  # Settings.compaction_model_setting; None: the session model
        on_server_window: Callable[[int], None] | None = None,  # hears a window learned from a refusal
        pinned: Callable[[], str] | None = None,  # the pin block (context/pins.py), for the summary it builds
        summary_hooks: SummaryHooks | None = None,  # PreCompact / PostCompact, for the summary it builds
        meter: Callable[[LLMClient], LLMClient] | None = None,  # how a call's client is wrapped for summaries
    ) -> None:
        values = values or CompactionValues()
        self._meter = meter
        self.policy = policy or compaction_profile.for_values(values)
        self.counter = counter or TokenCounter.configured()
        self.gauge = Gauge(self.counter, self.policy.estimator == "reference")
        self._trigger = values.trigger
        self.profile = self._with_trigger(profile or ContextProfile.from_window(None))
        # offloads unseen results that cannot fit the window (never clears them)
        self.offloader = offloader
        measure = self.gauge.measure
        self.clearer = clearer or ToolResultClearer(clearing_config(values.clearing, self.policy), measure)
        if session_memory is None:
            session_memory = SessionMemoryCompactor(measure, values.session_memory, submit, summary_model)
        self._session_memory, self._turn_memory = session_memory, turn_memory
        self.ladder = ladder_for(
            self.policy,
            automatic=values.automatic,
            clearing=self.clearer.config.enabled,
            session_memory=session_memory.enabled,
        )
        self._on_server_window = on_server_window
        # the view and tools of the request about to go out: what a summary request shares its prefix with
        self._sent: tuple[tuple[Message, ...], tuple[Mapping[str, Any], ...]] = ((), ())

        def build() -> Acting:
            from paicli.context.acting import build_acting

            acting = build_acting(
                self,
                full,
                session_memory,
                turn_memory,
                summary_model=summary_model,
                pinned=pinned,
                hooks=summary_hooks,
            )
            acting.summariser.sent = self._sent
            return acting

        self._acting = Deferred(build)

    @property
    def automatic(self) -> bool:
        """The AUTO_COMPACT setting: off, nothing is cleared or summarised automatically and a request that
        would not fit is not sent."""
        return self.ladder.automatic

    @property
    def summariser(self) -> Summariser:
        """Built at its first use: the first call past a threshold, /compact, or a look at its parts."""
        return self._acting.get().summariser

    @property
    def full(self) -> FullSummary:
        return self.summariser.full

    @property
    def session_memory(self) -> SessionMemory:
        return self._session_memory

    @property
    def turn_memory(self) -> TurnMemory | None:
        return self._turn_memory

    @property
    def backoff(self) -> SummaryBackoff:
        return self.summariser.backoff

    def measure(self, history: Sequence[Message], model: str) -> int:
        """The figure thresholds compare: the local message count, calibrated for `model`. Pure: the
        provider's last figure is folded in before compaction compares anything (see Gauge)."""
        with self.gauge.keyed(model):
            return self.gauge.measure(history)

    def _summary_client(self, llm: LLMClient | None) -> LLMClient | None:
        if llm is None or self._meter is None:
            return llm
        return self._meter(llm)

    def _narrow(self, profile: ContextProfile) -> None:
        """The window a server enforces: every threshold of this history follows it from now on."""
        self.profile = self._with_trigger(profile)
        acting = self._acting.built
        if acting is not None:
            acting.resize()

    def _with_trigger(self, profile: ContextProfile) -> ContextProfile:
        """The configured trigger, unless the profile was built with one."""
        if profile.trigger is not None or self._trigger is None:
            return profile
        return replace(profile, trigger=self._trigger)

    # -- ContextPort ---------------------------------------------------------------------------------

    def before_call(
        self,
        history: list[Message],
        tools: Tools = None,
        cancel: CancelToken | None = None,
        announce: Announce | None = None,
        *,
        llm: LLMClient | None,
    ) -> CompactionResult:
        """`llm`: the client the request goes to; figures are calibrated for its model and any summary is
        asked of it (None: nothing is summarised)."""
        with self.gauge.keyed(_model_of(llm)):
            return self._before_call(history, tools, cancel, announce, self._summary_client(llm))

    def _before_call(
        self,
        history: list[Message],
        tools: Tools,
        cancel: CancelToken | None,
        announce: Announce | None,
        llm: LLMClient | None,
    ) -> CompactionResult:
        self._sent = (tuple(history), tuple(tools or ()))
        built = self._acting.built
        if built is not None:
            built.summariser.sent = self._sent
        try:
            if self._clearly_below_thresholds(history, tools):
                return NO_COMPACTION
            self.gauge.settle_for_thresholds()
        except Exception:
            log.exception("context size check failed")
            return NO_COMPACTION
        return self._acting.get().act(history, tools, cancel, announce, llm)

    def _clearly_below_thresholds(self, history: Sequence[Message], tools: Tools) -> bool:
        """Short histories skip exact counting (and loading the tokenizer): twice the byte bound (the largest
        calibration ratio) is still under every threshold, so no level could act."""
        bound = CALIBRATION_MAX * TokenCounter.upper_bound(history, tools)
        trigger = self.profile.compression_trigger_tokens
        limits = [trigger, self.profile.window - self.profile.buffer_reserve]
        if not self.ladder.automatic:  # only the window itself matters
            return bound < limits[1]
        if self.ladder.has("clear"):
            limits.append(self.clearer.trigger_tokens(trigger))
        if self.ladder.has("session_memory"):
            limits.append(int(trigger * 0.6))
        return bound < min(limits)

    def after_response(
        self, history: Sequence[Message], tools: Tools, usage: Usage | None, *, model: str
    ) -> None:
        """Calibration (for `model`, which answered) is settled lazily: the exact count of the request waits
        until a threshold needs it."""
        if usage is None or usage.prompt_tokens <= 0:
            return
        sent = list(history)
        if sent and sent[-1].role == "assistant":
            sent = sent[:-1]  # the response itself was already appended: it was not part of the request
        self.gauge.note_usage(model, sent, tools, usage.prompt_tokens)

    def server_limit(
        self, history: Sequence[Message], tools: Tools, limit: ContextLimit, *, model: str
    ) -> bool:
        """A refusal by `model`'s server as too long: its count of the request calibrates ours, a smaller
        window than ours becomes the window (and `on_server_window` hears it). True when the view now exceeds
        what a request may take, so compaction will act on it."""
        with self.gauge.keyed(model):
            return self._server_limit(history, tools, limit)

    def _server_limit(self, history: Sequence[Message], tools: Tools, limit: ContextLimit) -> bool:
        if limit.prompt_tokens:
            self.gauge.note_usage(self.gauge.model, list(history), tools, limit.prompt_tokens)
            self.gauge.settle()
        if limit.window and limit.window < self.profile.window:
            self._narrow(ContextProfile(limit.window, self.profile.cache_mode, self.profile.trigger))
            if self._on_server_window is not None:
                self._on_server_window(limit.window)
        return self._acting.get().window(tools).exceeded(self.gauge.measure(history))

    def compact_now(
        self,
        history: list[Message],
        focus: str | None = None,
        cancel: CancelToken | None = None,
        *,
        llm: LLMClient | None,
    ) -> CompactionResult:
        """/compact: a summary by `llm` now, whatever the thresholds say."""
        acting, before = self._acting.get(), list(history)
        summariser = acting.summariser
        with self.gauge.keyed(_model_of(llm)):
            self.session_memory.clear(history)
            self.gauge.settle_for_thresholds()
            summariser.sent = (tuple(history), summariser.sent[1])
            llm = self._summary_client(llm)
            result = acting.summary(history, focus, cancel, llm, summariser.shared_prefix)
            if not result.compacted:
                return result
            self.backoff.succeeded()
            summariser.restore_memory(history)
            from paicli.context.outcomes import receipted  # the receipt's model loads with a compaction

            return receipted(result, before, history, self.gauge.measure, manual=True)

    def preview(
        self,
        history: Sequence[Message],
        focus: str | None = None,
        cancel: CancelToken | None = None,
        *,
        llm: LLMClient | None,
    ) -> CompactionResult:
        """What `compact_now` would make of `history`, on a copy: the history, the memory state and the backoff
        are left as they are (`/compact --preview`)."""
        copy, acting = list(history), self._acting.get()
        summariser = acting.summariser
        with self.gauge.keyed(_model_of(llm)):
            sent = summariser.sent
            summariser.sent = (tuple(history), sent[1])
            try:
                prefix = summariser.shared_prefix()
            finally:
                summariser.sent = sent
            llm = self._summary_client(llm)
            result = acting.summary(copy, focus, cancel, llm, lambda: prefix)
            if not result.compacted:
                return result
            from paicli.context.outcomes import receipted

            return receipted(result, list(history), copy, self.gauge.measure, manual=True)

    def reset(self, history: list[Message]) -> None:
        self.session_memory.clear(history)
        acting = self._acting.built  # none built yet: no failure to forget
        if acting is not None:
            acting.summariser.backoff.succeeded()
        if self.turn_memory is not None:
            self.turn_memory.forget()

    # -- /context helpers -----------------------------------------------------------------------------

    def tool_result_clear_trigger_tokens(self) -> int:
        if not self.clearer.config.enabled:
            return 0
        return self.clearer.trigger_tokens(self.profile.compression_trigger_tokens)

    @property
    def session_memory_enabled(self) -> bool:
        return self.session_memory.enabled

    def due(self, history: Sequence[Message], tools: Tools, *, model: str) -> Due:
        """What happens to this history before the next request to `model`: "compact" (a level acts on it
        first, so the figure shown now is not what will be sent), "manual" (it would not fit and automatic
        compaction is off: the next turn stops and names /compact), or "" (it goes as it is)."""
        if self._clearly_below_thresholds(history, tools):
            return ""
        self.gauge.settle_for_thresholds()
        messages = self.measure(history, model)
        over = messages + self.counter.count_tools(tools) > self.profile.window - self.profile.buffer_reserve
        if not self.ladder.automatic:
            return "manual" if over else ""
        return "compact" if over or messages >= self.profile.compression_trigger_tokens else ""

    def figure(self, history: Sequence[Message], tools: Tools, *, model: str) -> ContextFigure:
        """The context figure the status bar shows for a request to `model`; the same as /context's bar and
        total line."""
        from paicli.context.status import context_figure  # the figures load with the first one shown

        self.gauge.settle()
        return context_figure(self.counter, model, self.profile.window, history, tools)

    def context_report(
        self,
        history: Sequence[Message],
        tools: Tools,
        *,
        model: str,
        provider: str = "",
        cache_hit_ratio: float | None = None,
    ) -> ContextReport:
        from paicli.context.status_report import build_report

        self.gauge.settle()
        return build_report(
            self.counter,
            model,
            self.profile,
            history,
            tools,
            compared=self.measure(history, model),
            clearing=(self.tool_result_clear_trigger_tokens(), self.clearer.config.keep_recent),
            session_memory=self.session_memory_enabled,
            provider=provider,
            cache_hit_ratio=cache_hit_ratio,
        )


def _model_of(llm: LLMClient | None) -> str:
    return llm.model if llm is not None else ""
