"""What a compaction check reports beyond its steps: the receipt of a change (what was kept, summarised and
cleared), and the change a level that failed half-way already made."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import replace

from paicli.context.receipts import build_receipt
from paicli.context.types import NO_COMPACTION, CompactionResult, CompactionStep, Strategy
from paicli.llm.messages import Message

log = logging.getLogger(__name__)

Measure = Callable[[Sequence[Message]], int]


def receipted(
    result: CompactionResult,
    before: list[Message],
    history: list[Message],
    measure: Measure,
    *,
    manual: bool,
) -> CompactionResult:
    """`result` with its receipt (what was kept, summarised and cleared; the predicted uncached tokens)."""
    if not result.steps:
        return result
    try:
        receipt = build_receipt(
            before,
            history,
            strategy=result.strategy,
            manual=manual,
            before_tokens=result.before_tokens,
            after_tokens=result.after_tokens,
            measure=measure,
        )
    except Exception:  # a receipt is a record, never a reason to lose the compaction
        log.exception("compaction receipt failed")
        return result
    return replace(result, receipt=receipt)


def partial_change(before: list[Message], history: list[Message], measure: Measure) -> CompactionResult:
    """A level that failed half-way may already have changed the view (clearing runs first): report the
    change so the caller still checkpoints exactly what the model will see."""
    if len(before) == len(history) and all(a is b for a, b in zip(before, history, strict=True)):
        return NO_COMPACTION
    try:
        tokens = (measure(before), measure(history))
    except Exception:
        tokens = (0, 0)
    in_place = len(before) == len(history)
    strategy: Strategy = "tool_result_clearing" if in_place else "full_summary"
    cleared = sum(1 for a, b in zip(before, history, strict=True) if a is not b) if in_place else 0
    step = CompactionStep(strategy, len(before), len(history), tokens[0], tokens[1], cleared)
    return CompactionResult(
        not in_place, strategy, cleared, (step,), "压缩过程中出错，已保留到目前为止的结果"
    )
