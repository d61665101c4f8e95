"""Values describing what a compaction check did (shared by the manager, the loop, the ledger and the UI)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal, NamedTuple

if TYPE_CHECKING:
    from paicli.context.receipts import Receipt

Strategy = Literal[
    "none", "tool_result_clearing", "tool_result_offload", "session_memory", "full_summary", "dropped_rounds"
]
# Strategies that rewrite results in place (message count, roles and ids unchanged); the others rebuild the view.
IN_PLACE_STRATEGIES = frozenset({"tool_result_clearing", "tool_result_offload"})


def _unchanged(focus: str | None) -> str | None:
    return focus


def _nothing() -> None:
    return None


class SummaryHooks(NamedTuple):
    """PreCompact / PostCompact (tools/hooks.py), given to a summary at construction: text the summary must
    keep joins its focus; `after` hears that one was made."""

    focus: Callable[[str | None], str | None] = _unchanged
    after: Callable[[], None] = _nothing


@dataclass(frozen=True)
class CompactionStep:
    """One change of the model's view: the ledger writes one `compaction` event per step."""

    strategy: Strategy
    before_messages: int
    after_messages: int
    before_tokens: int
    after_tokens: int
    cleared_tool_results: int = 0
    # in-place steps: the tool calls whose results were replaced (None: not known, checkpoint the whole view)
    replaced_call_ids: tuple[str, ...] | None = None

    @property
    def in_place(self) -> bool:
        return self.strategy in IN_PLACE_STRATEGIES and self.replaced_call_ids is not None


@dataclass(frozen=True)
class CompactionResult:
    compacted: bool  # a summary replaced old turns
    strategy: Strategy
    cleared_tool_results: int = 0
    steps: tuple[CompactionStep, ...] = ()
    error: str | None = None  # why a requested/attempted summary was abandoned (history untouched)
    notice: str | None = None  # one line for the user when a fallback changed the view (e.g. summary failed)
    receipt: Receipt | None = None  # what was kept, summarised and cleared, and the predicted cost
    stop: str | None = None  # the request would not fit the window and must not be sent: why (for the user)

    @property
    def changed(self) -> bool:
        return bool(self.steps)

    @property
    def before_tokens(self) -> int:
        return self.steps[0].before_tokens if self.steps else 0

    @property
    def after_tokens(self) -> int:
        return self.steps[-1].after_tokens if self.steps else 0


NO_COMPACTION = CompactionResult(False, "none")


def whole_view(result: CompactionResult) -> CompactionResult:
    """`result` with every step checkpointed as the whole view (the reference writes full-view checkpoints)."""
    if all(step.replaced_call_ids is None for step in result.steps):
        return result
    steps = tuple(replace(step, replaced_call_ids=None) for step in result.steps)
    return replace(result, steps=steps)
