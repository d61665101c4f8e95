"""Values describing what a compaction check did (shared by the manager, the loop, the ledger and the UI)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Strategy = Literal["none", "tool_result_clearing", "session_memory", "full_summary"]


@dataclass(frozen=True)
class CompactionStep:
    """One change of the model's view: the ledger writes one `compaction` event per step."""

    strategy: Strategy
    before_messages: int
    after_messages: int
    before_tokens: int
    after_tokens: int
    cleared_tool_results: int = 0


@dataclass(frozen=True)
class CompactionResult:
    compacted: bool  # a summary replaced old turns
    strategy: Strategy
    cleared_tool_results: int = 0
    steps: tuple[CompactionStep, ...] = ()
    error: str | None = None  # why a requested/attempted summary was abandoned (history untouched)

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
