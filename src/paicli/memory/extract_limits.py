"""Which submitted turns automatic extraction looks at at all (spec 5.2 step 1: the length range).

Apart from the rules on purpose: this gate is all a turn out of range needs, so such a turn (a greeting) never
loads the extraction rules and the claim grammar behind them (issue 49)."""

from __future__ import annotations

from paicli.context.estimate import utf16_len

MIN_INPUT = 5
MAX_INPUT = 4000


def input_in_range(text: str | None) -> bool:
    return text is not None and MIN_INPUT <= utf16_len(text) <= MAX_INPUT
