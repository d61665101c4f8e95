"""Conversation: one history, its ledger identity and its compaction manager (spec 3.1-3.3, 8.1-8.5).

Every change of the view goes through one method that also records it, so the view and the ledger cannot
drift: plain appends become message entries; anything else (compaction, /clear, resume) also writes a
`view_checkpoint`. Nothing outside this class mutates the history list.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from typing import TYPE_CHECKING, Any, Literal

from paicli.agent.ports import ContextPort, LedgerPort, NullContext, NullLedger
from paicli.cancel import CancelToken
from paicli.context.receipt_events import OBSERVED_EVENT, RECEIPT_EVENT
from paicli.context.types import CompactionResult
from paicli.llm.messages import Message, Usage
from paicli.llm.prefix_cache import History, PrefixValues, prefix_sum
from paicli.llm.protocol import ContextLimit, LLMClient
from paicli.session.ledger_keys import (
    REFS_KEY,
    REPLACED_RESULTS_KEY,
    VIEW_CHECKPOINT_EVENT,
    VIEW_REFERENCE_EVENT,
)

if TYPE_CHECKING:
    from paicli.context.receipts import Receipt  # a compaction's: built by the compaction that writes it

# "react": one compaction event per step with source `automatic:<strategy>` (spec 3.1, ReAct);
# "subagent": source `automatic` and the strategy in the metadata (Plan tasks, Team sub-agents).
CompactionStyle = Literal["react", "subagent"]


@dataclass(frozen=True)
class Identity:
    """Who writes to the ledger: mode `react|plan|team`, actor `agent`, `task:<id>`, `worker-1`, …"""

    mode: str = "react"
    actor: str = "agent"
    compaction_style: CompactionStyle = "react"


def _call_ids(message: Message) -> tuple[str, ...]:
    return tuple(call.id for call in message.tool_calls)


def _text(message: Message) -> str:
    return message.text


def _image_count(message: Message) -> int:
    return len(message.images)


_CALL_IDS = PrefixValues(_call_ids)  # the loop asks after every tool-call response; only new messages cost
_TEXTS = PrefixValues(_text)  # asked before every turn (what memory need not repeat): the join runs in C
_IMAGES = prefix_sum(_image_count)  # asked before every turn; a history without images is not walked


class Conversation:
    """Owns exactly one history; element 0 is the system prompt."""

    def __init__(
        self,
        system_prompt: str,
        *,
        ledger: LedgerPort | None = None,
        identity: Identity | None = None,
        context: ContextPort | None = None,
        attach_source: str = "session_attach",
    ) -> None:
        self.ledger: LedgerPort = ledger or NullLedger()
        self.identity = identity or Identity()
        self.context: ContextPort = context or NullContext()
        self._history = History([Message.system(system_prompt)])
        self.record(attach_source, self._history[0])
        self.last_receipt: Receipt | None = (
            None  # the newest compaction's receipt (observed after its request)
        )
        self._observe_next = False

    # ---- reading ------------------------------------------------------------------------------------

    @property
    def actor(self) -> str:
        return self.identity.actor

    @property
    def system_prompt(self) -> str:
        return self._history[0].text

    def messages(self) -> list[Message]:
        """A copy of the view, system prompt first (what the next request would send)."""
        return list(self._history)

    def request_view(self) -> Sequence[Message]:
        """The live view for a model call (read only by convention; the loop passes it straight to the client)."""
        return self._history

    def __len__(self) -> int:
        return len(self._history)

    def visible_text(self) -> str:
        return "\n".join(_TEXTS.values(self._history)[1:])

    def used_call_ids(self) -> set[str]:
        return set(chain.from_iterable(_CALL_IDS.values(self._history)))

    # ---- changing the view --------------------------------------------------------------------------

    def append(self, message: Message, source: str, metadata: Mapping[str, Any] | None = None) -> Message:
        """Record and append `message`; returns the view's copy (it carries its ledger reference)."""
        sequence = self.record(source, message, metadata)
        stored = _recorded(message, sequence)
        self._history.append(stored)
        return stored

    def append_answer(self, reply: Message, source: str) -> None:
        """The ledger keeps the full reply (reasoning included); the view keeps only its text."""
        sequence = self.record(source, reply)
        self._history.append(_recorded(Message.assistant(reply.content or ""), sequence))

    def set_system_prompt(self, prompt: str, source: str) -> bool:
        """Replace element 0; False (and nothing recorded) when the text is unchanged."""
        if prompt == self._history[0].content:
            return False
        self._history[0] = Message.system(prompt)
        self.record(source, self._history[0])
        return True

    def compact_before_call(
        self,
        tools: Sequence[Mapping[str, Any]] | None,
        cancel: CancelToken | None,
        announce: Callable[[str], None] | None = None,
        *,
        llm: LLMClient | None,
    ) -> CompactionResult:
        """Compaction before a request to `llm` (the loop's client: a summary is asked of the same model)."""
        result = self.context.before_call(self._history, tools, cancel, announce, llm=llm)
        self._record_compaction(result, manual=False)
        return result

    def compact_now(
        self, focus: str | None = None, cancel: CancelToken | None = None, *, llm: LLMClient | None
    ) -> CompactionResult:
        result = self.context.compact_now(self._history, focus, cancel, llm=llm)
        self._record_compaction(result, manual=True)
        return result

    def after_response(
        self, tools: Sequence[Mapping[str, Any]] | None, usage: Usage | None, *, model: str
    ) -> None:
        self.context.after_response(self._history, tools, usage, model=model)
        receipt = self.last_receipt
        if self._observe_next and receipt is not None and usage is not None and usage.prompt_tokens > 0:
            self._observe_next = False
            self.last_receipt = receipt.observed(usage.prompt_tokens, usage.cached_tokens)
            observed = {
                "promptTokens": usage.prompt_tokens,
                "cachedTokens": usage.cached_tokens,
                "uncachedTokens": max(0, usage.prompt_tokens - usage.cached_tokens),
                "predictedUncached": receipt.predicted_uncached,
            }
            self.event(OBSERVED_EVENT, "next_response", observed)

    def context_refused(
        self, limit: ContextLimit, tools: Sequence[Mapping[str, Any]] | None, *, model: str
    ) -> bool:
        """`model`'s server refused the view as too long: its figures go to the compaction manager. True when
        they changed what compaction aims for, so compacting again can make the request fit."""
        return self.context.server_limit(self._history, tools, limit, model=model)

    def prune_images(self, source: str = "view_image_prune") -> int:
        """Spec 8.1: earlier messages keep their text and a note instead of their images, so an image is sent
        with its own turn only; returns how many were taken out (a ledger event says so)."""
        pruned = 0
        if not _IMAGES(self._history):
            return pruned
        for index, message in enumerate(self._history):
            if message.images:
                pruned += len(message.images)
                self._history[index] = message.without_images()
        if pruned:
            self.event("view_image_prune", source, {"images": pruned})
        return pruned

    def drop_from(self, message: Message, source: str) -> bool:
        """Remove `message` (this very object) and everything after it from the view, recording the new view;
        False when it is no longer there (compaction replaced it)."""
        for index in range(len(self._history) - 1, 0, -1):
            if self._history[index] is message:
                del self._history[index:]
                self.checkpoint(source)
                return True
        return False

    def clear(
        self, fresh_system_prompt: str, source: str = "slash_clear", reset_source: str = "history_reset"
    ) -> int:
        """Drop the view (the ledger keeps everything); returns how many messages were discarded."""
        discarded = len(self._history)
        self.context.reset(self._history)
        self._observe_next = False  # the next request is not the one the last receipt predicted
        self.event("history_clear", source, {"discardedViewMessages": discarded})
        self._history[:] = [Message.system(fresh_system_prompt)]
        self.record(reset_source, self._history[0])
        self.checkpoint(source)
        return discarded

    def restore(
        self,
        system_prompt: str,
        messages: Sequence[Message],
        source: str = "session_resumed",
        reference: Mapping[str, Any] | None = None,
    ) -> None:
        """A fresh system prompt followed by a view rebuilt from a ledger. `reference`: the view is the fold of
        this same ledger up to there, so a view_reference names it instead of a checkpoint copying it."""
        self.context.reset(self._history)
        self._observe_next = False
        self._history[:] = [Message.system(system_prompt), *messages]
        self.record("session_attach", self._history[0])
        if reference is not None:
            self.event(VIEW_REFERENCE_EVENT, source, reference)
        else:
            self.checkpoint(source)

    def move_to(self, ledger: LedgerPort) -> None:
        """Go on writing to `ledger`, a copy of this one's entries (/fork): its fold is this view already."""
        self.ledger = ledger

    # ---- recording ----------------------------------------------------------------------------------

    def record(self, source: str, message: Message, metadata: Mapping[str, Any] | None = None) -> int | None:
        """A ledger message entry under this conversation's identity (the view is not touched); its sequence."""
        return self.ledger.append_message(self.identity.mode, self.identity.actor, source, message, metadata)

    def event(self, event: str, source: str, metadata: Mapping[str, Any]) -> None:
        self.ledger.append_event(event, self.identity.mode, self.identity.actor, source, metadata)

    def checkpoint(self, source: str, extra: Mapping[str, Any] | None = None) -> None:
        """The whole view minus the system prompt, so a resume can rebuild it exactly."""
        metadata: dict[str, Any] = dict(extra or {})
        metadata["messages"] = [m.to_json() for m in self._history[1:]]
        refs = [list(m.ref) if m.ref is not None else None for m in self._history[1:]]
        if any(ref is not None for ref in refs):
            metadata[REFS_KEY] = refs  # what each message stands for in the ledger (recall ids)
        self.event(VIEW_CHECKPOINT_EVENT, source, metadata)

    def _record_compaction(self, result: CompactionResult, manual: bool) -> None:
        if not result.steps:
            return
        react = self.identity.compaction_style == "react"
        for step in result.steps:
            metadata: dict[str, Any] = {
                "beforeMessages": step.before_messages,
                "afterMessages": step.after_messages,
            }
            if react:
                metadata |= {"beforeTokens": step.before_tokens, "afterTokens": step.after_tokens}
            else:
                metadata["strategy"] = step.strategy
            if step.cleared_tool_results:
                metadata["clearedToolResults"] = step.cleared_tool_results
            source = "manual" if manual else (f"automatic:{step.strategy}" if react else "automatic")
            self.event("compaction", source, metadata)
        strategy = result.strategy  # a summary followed by its clearing checkpoints as the summary
        source = "manual" if manual else (f"automatic:{strategy}" if react else "automatic")
        if all(step.in_place for step in result.steps):
            self._replaced_results(source, result, {"strategy": strategy})
        else:
            self.checkpoint(source, {"strategy": strategy})
        if result.receipt is not None:
            self.last_receipt = result.receipt
            self._observe_next = True
            self.event(RECEIPT_EVENT, source, result.receipt.to_metadata())

    def _replaced_results(self, source: str, result: CompactionResult, extra: Mapping[str, Any]) -> None:
        """A compact checkpoint for in-place changes: only the new content of each replaced tool result.

        Resume applies it to the view rebuilt so far (session.resume); the whole view is written only where
        the view is rebuilt (summary, fallback, /clear, resume)."""
        ids = {call_id for step in result.steps for call_id in step.replaced_call_ids or ()}
        replaced = {
            m.tool_call_id: m.content or ""
            for m in self._history
            if m.role == "tool" and m.tool_call_id in ids
        }
        self.event(VIEW_CHECKPOINT_EVENT, source, {**extra, REPLACED_RESULTS_KEY: replaced})


def _recorded(message: Message, sequence: int | None) -> Message:
    """The view's copy of a message just written to the ledger: it knows its entry (recall ids)."""
    return message if sequence is None else message.with_ref((sequence, sequence))
