"""Beyond the reference: what happens when a request would not fit the window.

The ladder (clear, then summarise at the trigger) runs first. A request that would still not fit loses every
tool result the model has already seen; results it has not seen are offloaded if they alone are too big; then
the earlier rounds (of this turn too) are summarised, or, when no summary can be had, dropped into a
mechanical note. What still does not fit is logged with its cause.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from paicli.cancel import CancelToken
from paicli.config import knobs_compaction
from paicli.context.clearing import ToolResultClearer
from paicli.context.fallback import MAX_CARRIED_CHARS, NoteBudget, fold_rounds
from paicli.context.gauge import Gauge
from paicli.context.levels import (
    NOTE_REQUESTS_RATIO,
    NOTE_ROOM_TOKENS,
    UNSEEN_SHARE,
    tail_budget,
)
from paicli.context.profile import ContextProfile
from paicli.context.rounds import choose_cut
from paicli.context.rounds import rebuild as rounds_rebuild
from paicli.context.statements import Listing
from paicli.context.summariser import Summariser, SummaryCall
from paicli.context.tokens import MESSAGE_OVERHEAD
from paicli.context.types import NO_COMPACTION, CompactionResult, CompactionStep
from paicli.context.unseen import Offloader, Size, minimal_tail, offload_unseen
from paicli.llm.messages import Message

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class FitParts:
    """The collaborators the fit uses: the manager's own, handed over (the fit never calls the manager)."""

    profile: ContextProfile
    clearer: ToolResultClearer
    offloader: Offloader | None
    summariser: Summariser
    gauge: Gauge
    call: SummaryCall  # the client of the call the fit serves, for its summary

    def measure(self, history: Sequence[Message]) -> int:
        return self.gauge.measure(history)


@dataclass(frozen=True)
class Window:
    """The tokens a request may take (`limit`), of which the tools schema takes `schema`. Message figures are
    multiplied by `scale` so that a calibration that shrinks the count never makes the check under-count by
    more than tokens.WINDOW_COUNT_FLOOR."""

    limit: int
    schema: int
    scale: float = 1.0

    @property
    def room(self) -> int:
        """What the messages may take (in the figures `measure` gives)."""
        return int((self.limit - self.schema) / self.scale)

    def exceeded(self, message_tokens: int) -> bool:
        return message_tokens * self.scale + self.schema > self.limit


def fit_window(
    fit: FitParts,
    history: list[Message],
    window: Window,
    result: CompactionResult,
    cancel: CancelToken | None = None,
) -> CompactionResult:
    """`result` (what the ladder did) extended by the steps the fit took; `result` itself when none."""
    if not window.exceeded(fit.measure(history)):
        return result
    steps = list(result.steps)
    _clear_seen(fit, history, steps)
    _offload_unseen(fit, history, window, steps)
    error, notice = result.error, None
    if window.exceeded(fit.measure(history)) and error is None:
        error = _summarise(fit, history, cancel, steps)
    if window.exceeded(fit.measure(history)):
        dropped = _drop_rounds(fit, history, window.room)
        if dropped is not None:
            steps.append(dropped[0])
            notice = _fallback_notice(fit, dropped[1], error)
    if window.exceeded(fit.measure(history)):
        log.warning(
            "request may exceed the context window (%d > %d tokens): %s",
            fit.measure(history) + window.schema,
            window.limit,
            _overflow_cause(fit, history, window),
        )
    if len(steps) == len(result.steps):
        return result
    cleared_total = sum(s.cleared_tool_results for s in steps)
    compacted = any(s.strategy in ("full_summary", "session_memory") for s in steps)
    return CompactionResult(compacted, steps[-1].strategy, cleared_total, tuple(steps), error, notice)


def manual_only(fit: FitParts, history: list[Message], window: Window) -> CompactionResult:
    """Automatic compaction off (the AUTO_COMPACT setting): nothing is cleared or summarised automatically. Results the model has not seen
    are still offloaded when they alone crowd the request (lossless: a preview and the file stay); a request
    that would still not fit is not sent, and the turn stops with a message that names /compact."""
    if not window.exceeded(fit.measure(history)):
        return NO_COMPACTION
    steps: list[CompactionStep] = []
    _offload_unseen(fit, history, window, steps)
    tokens = fit.measure(history)
    stop = None
    if window.exceeded(tokens):
        needed = int(tokens * window.scale) + window.schema
        stop = (
            f"⛔ 下一个请求放不进上下文窗口（约 {needed:,} / {window.limit:,} tokens），而自动压缩已关闭"
            f"（{knobs_compaction.AUTO_COMPACT.key}=off），所以这次没有发送。请先用 /compact 压缩较早的对话（或 /clear 清空），再继续。"
        )
        log.warning("request not sent: %d > %d tokens with automatic compaction off", needed, window.limit)
    if not steps and stop is None:
        return NO_COMPACTION
    strategy = steps[-1].strategy if steps else "none"
    return CompactionResult(False, strategy, 0, tuple(steps), stop=stop)


def _clear_seen(fit: FitParts, history: list[Message], steps: list[CompactionStep]) -> None:
    if fit.clearer.config.enabled:
        cleared = fit.clearer.clear_all_seen(history)
        if cleared.cleared:
            steps.append(cleared.step(len(history)))


def _offload_unseen(
    fit: FitParts, history: list[Message], window: Window, steps: list[CompactionStep]
) -> None:
    """Results the model has not seen cannot be cleared; when they alone crowd the request, offload them."""
    if fit.offloader is None:
        return
    size = _sizer(fit)
    crowd, share = minimal_tail(history, size) + window.schema, window.limit * UNSEEN_SHARE
    if crowd <= share:
        return
    excess = crowd - int(share)
    before = fit.measure(history)
    ids = offload_unseen(history, excess, fit.offloader, size)
    if ids:
        after = fit.measure(history)
        steps.append(CompactionStep("tool_result_offload", len(history), len(history), before, after, 0, ids))


def _summarise(
    fit: FitParts, history: list[Message], cancel: CancelToken | None, steps: list[CompactionStep]
) -> str | None:
    """One summary attempt unless a recent failure says wait; returns why it failed, if it says."""
    trigger, summariser = fit.profile.compression_trigger_tokens, fit.summariser
    if not summariser.backoff.allowed(fit.measure(history), trigger):
        return None
    outcome = summariser.summarise(history, trigger, cancel, fit.call)
    if outcome.compacted:
        steps.append(outcome.step("full_summary"))
        summariser.clear_rebuilt(history, trigger, steps)
        return None
    return outcome.error or None


def _drop_rounds(fit: FitParts, history: list[Message], room: int) -> tuple[CompactionStep, Listing] | None:
    """`room`: tokens the request may take. The note lists the user's requests within a share of the trigger
    (and what the kept tail leaves of the room); an earlier summary's other sections get what is left."""
    trigger = fit.profile.compression_trigger_tokens
    cut = choose_cut(history, tail_budget(history, trigger, fit.measure), _sizer(fit))
    if cut is None:
        return None
    before_messages, before = len(history), fit.measure(history)
    kept = fit.measure(rounds_rebuild(history, cut, []))
    free = max(0, room - kept - NOTE_ROOM_TOKENS)
    requests = min(free, int(trigger * NOTE_REQUESTS_RATIO))
    budget = NoteBudget(requests, max(0, min(MAX_CARRIED_CHARS, free - requests)))
    history[:], listing = fold_rounds(history, cut, budget, _text_size(fit))
    fit.summariser.restore_memory(history)  # before measuring, so the window check counts the memories too
    after = fit.measure(history)
    fit.summariser.backoff.rebased(after)
    fit.summariser.session_memory.clear(history)
    return CompactionStep("dropped_rounds", before_messages, len(history), before, after), listing


def _text_size(fit: FitParts) -> Callable[[str], int]:
    return lambda text: fit.gauge.measure([Message.user(text)]) - MESSAGE_OVERHEAD


def _fallback_notice(fit: FitParts, listing: Listing, error: str | None) -> str:
    """One line; it says the user's words were kept verbatim only when every one of them was."""
    reason = error or fit.summariser.backoff.last_reason() or "摘要暂不可用"
    if listing.complete:
        kept = "你说过的话按原文保留"
    else:
        parts = [f"{listing.listed - listing.shortened} 条保留原文"]
        if listing.shortened:
            parts.append(f"{listing.shortened} 条只保留开头")
        if listing.left_out:
            parts.append(f"{listing.left_out} 条因篇幅没有列出")
        kept = "你说过的话：" + "，".join(parts)
    return (
        f"⚠️ 自动摘要没有完成（{reason}）。为了不超出上下文窗口，已清理较早的工具结果，"
        f"并把最早的几轮对话折叠成一份记录（{kept}）；完整内容仍保存在会话记录里。"
    )


def _overflow_cause(fit: FitParts, history: Sequence[Message], window: Window) -> str:
    if minimal_tail(history, _sizer(fit)) + window.schema > window.limit:
        return "the latest user message and the unseen tool results alone do not fit"
    return "earlier rounds could neither be summarised nor dropped"


def _sizer(fit: FitParts) -> Size:
    return fit.gauge.size
