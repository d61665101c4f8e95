"""Writes one loop's history changes to the session ledger (spec 3.1-3.3)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from paicli.agent.ports import LedgerPort
from paicli.context.types import CompactionResult
from paicli.llm.messages import Message

VIEW_CHECKPOINT_EVENT = "view_checkpoint"
REPLACED_RESULTS_KEY = "replacedResults"  # a compact view_checkpoint: {tool_call_id: new content}


class HistoryRecorder:
    """Binds a ledger to a loop's mode and actor, so every append carries the same attribution."""

    def __init__(self, ledger: LedgerPort, mode: str = "react", actor: str = "agent") -> None:
        self.ledger = ledger
        self.mode = mode
        self.actor = actor

    def message(self, source: str, message: Message, metadata: Mapping[str, Any] | None = None) -> None:
        self.ledger.append_message(self.mode, self.actor, source, message, metadata)

    def event(self, event: str, source: str, metadata: Mapping[str, Any]) -> None:
        self.ledger.append_event(event, self.mode, self.actor, source, metadata)

    def checkpoint(self, source: str, history: Sequence[Message], extra: Mapping[str, Any] | None = None) -> None:
        """The whole view minus the system prompt, so /resume can rebuild it exactly."""
        view = history[1:] if history and history[0].role == "system" else history
        metadata: dict[str, Any] = dict(extra or {})
        metadata["messages"] = [m.to_json() for m in view]
        self.event(VIEW_CHECKPOINT_EVENT, source, metadata)

    def compaction(self, result: CompactionResult, history: Sequence[Message], manual: bool) -> None:
        if not result.steps:
            return
        for step in result.steps:
            source = "manual" if manual else f"automatic:{step.strategy}"
            metadata: dict[str, Any] = {
                "beforeMessages": step.before_messages,
                "afterMessages": step.after_messages,
                "beforeTokens": step.before_tokens,
                "afterTokens": step.after_tokens,
            }
            if step.cleared_tool_results:
                metadata["clearedToolResults"] = step.cleared_tool_results
            self.event("compaction", source, metadata)
        last = result.steps[-1]
        source = "manual" if manual else f"automatic:{last.strategy}"
        if all(step.in_place for step in result.steps):
            self.replaced_results(source, history, result, {"strategy": last.strategy})
        else:
            self.checkpoint(source, history, {"strategy": last.strategy})

    def replaced_results(
        self, source: str, history: Sequence[Message], result: CompactionResult, extra: Mapping[str, Any]
    ) -> None:
        """A compact checkpoint for in-place changes: only the new content of each replaced tool result.

        Resume applies it to the view rebuilt so far (session.resume); the whole view is written only where
        the view is rebuilt (summary, fallback, /clear, resume)."""
        ids = {call_id for step in result.steps for call_id in step.replaced_call_ids or ()}
        replaced = {m.tool_call_id: m.content or "" for m in history if m.role == "tool" and m.tool_call_id in ids}
        self.event(VIEW_CHECKPOINT_EVENT, source, {**extra, REPLACED_RESULTS_KEY: replaced})
