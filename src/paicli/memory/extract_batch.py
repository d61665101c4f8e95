"""The batch an extractor model answers (spec 5.4): its strict JSON shape, and the rule over the batch as a whole.

Per-quote rules live in `extract_rules`; this module knows only the batch.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

MAX_FACTS = 3


def parse_quotes(raw: str | None) -> list[str] | None:
    """The strict batch shape `{"facts":[{"quote":"…"}]}` (≤ 3 items, no extra keys); None = whole batch rejected."""
    try:
        root = json.loads(raw or "")
    except ValueError:
        return None
    if not isinstance(root, dict) or list(root) != ["facts"] or not isinstance(root["facts"], list):
        return None
    items = root["facts"]
    if len(items) > MAX_FACTS:
        return None
    quotes: list[str] = []
    for item in items:
        if not isinstance(item, dict) or list(item) != ["quote"] or not isinstance(item["quote"], str):
            return None
        quotes.append(item["quote"])
    return quotes


@dataclass(frozen=True)
class Verdict:
    quote: str
    reason: str | None  # None = accepted

    @property
    def accepted(self) -> bool:
        return self.reason is None


def without_parts(verdicts: list[Verdict]) -> list[Verdict]:
    """A kept quote that lies inside another kept quote of the same batch says nothing the longer one does not
    (`我是后端工程师` in `我是后端工程师，主要写 Go`): only the longer one is saved."""
    kept = [v.quote for v in verdicts if v.accepted]
    return [
        Verdict(v.quote, "part_of_another")
        if v.accepted and any(v.quote != other and v.quote in other for other in kept)
        else v
        for v in verdicts
    ]
