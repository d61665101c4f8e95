"""Compaction receipts: what one compaction kept verbatim, summarised and cleared (with recall ids) and what
it costs the next request (the uncached tokens it re-sends: predicted here, observed from `usage` later).

The conversation writes each receipt to the ledger (`compaction_receipt`, then `compaction_receipt_observed`
after the next response), so `/compact show` and a resumed session read the same record. Pure.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic.alias_generators import to_camel

from paicli.context.offload import OFFLOAD_PREFIX
from paicli.context.recall_ids import format_ref, span
from paicli.llm.messages import Message

Measure = Callable[[Sequence[Message]], int]
ItemKind = Literal["cleared", "offloaded"]


class _Model(BaseModel):
    model_config = ConfigDict(
        frozen=True, alias_generator=to_camel, populate_by_name=True, extra="ignore", defer_build=True
    )  # built with the first receipt (a compaction), not at import


class ReplacedItem(_Model):
    """One tool result replaced in place: its recall id ('' without a ledger), its tool, its original size."""

    id: str = ""
    tool: str = ""
    chars: int = 0
    kind: ItemKind = "cleared"


class Receipt(_Model):
    strategy: str
    manual: bool = False
    before_tokens: int = 0
    after_tokens: int = 0
    before_messages: int = 0
    after_messages: int = 0
    replaced: tuple[ReplacedItem, ...] = ()
    summarised_id: str = ""  # the span the summary (or fallback note) replaced, as a recall id
    summarised_messages: int = 0
    summarised_user_turns: int = 0
    kept_messages: int = 0  # messages of the view kept byte for byte (system prompt not counted)
    kept_id: str = ""
    summary: str = ""  # the text that replaced them (summary or note), as the model sees it
    predicted_uncached: int = 0  # tokens from the first changed message on: not in the provider's cache
    observed_prompt: int | None = None
    observed_cached: int | None = None

    @property
    def observed_uncached(self) -> int | None:
        if self.observed_prompt is None:
            return None
        return max(0, self.observed_prompt - (self.observed_cached or 0))

    @property
    def cleared(self) -> tuple[ReplacedItem, ...]:
        return tuple(item for item in self.replaced if item.kind == "cleared")

    def to_metadata(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True)

    def observed(self, prompt_tokens: int, cached_tokens: int) -> Receipt:
        return self.model_copy(update={"observed_prompt": prompt_tokens, "observed_cached": cached_tokens})


def receipt_from(metadata: Any) -> Receipt | None:
    """A receipt read back from a ledger event (None when the metadata is not one)."""
    try:
        return Receipt.model_validate(metadata)
    except ValidationError:
        return None


def _first_change(before: Sequence[Message], after: Sequence[Message]) -> int:
    for index, message in enumerate(after):
        if index >= len(before) or before[index] is not message:
            return index
    return len(after)


def _tool_names(history: Sequence[Message]) -> dict[str, str]:
    return {call.id: call.name for m in history if m.role == "assistant" for call in m.tool_calls}


def _replaced(before: Sequence[Message], after: Sequence[Message]) -> list[ReplacedItem]:
    originals = {m.tool_call_id: m for m in before if m.role == "tool" and m.tool_call_id}
    names = _tool_names(before)
    kept = {id(m) for m in before}
    items: list[ReplacedItem] = []
    for message in after:
        original = originals.get(message.tool_call_id or "")
        if message.role != "tool" or id(message) in kept or original is None:
            continue
        content = message.content or ""
        kind: ItemKind = "offloaded" if content.startswith(OFFLOAD_PREFIX) else "cleared"
        ref = format_ref(message.ref) if message.ref else ""
        tool = names.get(message.tool_call_id or "", "")
        items.append(ReplacedItem(id=ref, tool=tool, chars=len(original.content or ""), kind=kind))
    return items


def build_receipt(
    before: Sequence[Message],
    after: Sequence[Message],
    *,
    strategy: str,
    manual: bool,
    before_tokens: int,
    after_tokens: int,
    measure: Measure,
) -> Receipt:
    """What changed from `before` to `after` (the view around one compaction check), by message identity."""
    start = 1 if after and after[0].role == "system" else 0
    after_ids = {id(m) for m in after}
    remaining_calls = {m.tool_call_id for m in after if m.role == "tool"}
    removed = [
        m
        for m in before[start:]
        if id(m) not in after_ids and not (m.role == "tool" and m.tool_call_id in remaining_calls)
    ]
    before_ids = {id(m) for m in before}
    kept = [m for m in after[start:] if id(m) in before_ids]
    heads = [m for m in after[start:] if id(m) not in before_ids and m.role == "user"]
    summarised = span(removed)
    kept_span = span(kept)
    first = _first_change(before, after)
    return Receipt(
        strategy=strategy,
        manual=manual,
        before_tokens=before_tokens,
        after_tokens=after_tokens,
        before_messages=len(before),
        after_messages=len(after),
        replaced=tuple(_replaced(before, after)),
        summarised_id=format_ref(summarised) if summarised else "",
        summarised_messages=len(removed),
        summarised_user_turns=sum(1 for m in removed if m.role == "user"),
        kept_messages=len(kept),
        kept_id=format_ref(kept_span) if kept_span else "",
        summary=heads[0].content or "" if heads and removed else "",
        predicted_uncached=measure(after[first:]) if first < len(after) else 0,
    )
