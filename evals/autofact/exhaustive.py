"""The strongest offline attack: try every verbatim span of a negative case's safe input as a quote.

Any span the rules accept is a write that some extractor model could get through. Independent of how an
adversary ranks its candidates, so it complements `--adversarial`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from evals.autofact.scoring import Case
from paicli.memory.extract_rules import (
    MAX_QUOTE,
    MIN_QUOTE,
    analyze,
    hardened_reason,
    input_in_range,
    java_trim,
    reference_reason,
    safe_input,
    worth_asking,
)


@dataclass(frozen=True)
class SpanAttack:
    case: Case
    tried: int
    accepted: tuple[str, ...]


def accepted_spans(text: str, max_len: int = MAX_QUOTE, hardened: bool = True) -> tuple[int, list[str]]:
    """(spans tried, spans accepted) over every substring of the safe input up to `max_len` characters."""
    if not input_in_range(text):
        return 0, []
    safe = safe_input(text, hardened)
    if not worth_asking(safe, hardened):
        return 0, []
    analysis = analyze(safe) if hardened else None
    seen: set[str] = set()
    accepted: list[str] = []
    for start in range(len(safe)):
        for end in range(start + MIN_QUOTE, min(len(safe), start + max_len) + 1):
            quote = java_trim(safe[start:end])
            if quote in seen:
                continue
            seen.add(quote)
            if reference_reason(quote, safe, hardened=hardened) is not None:
                continue
            if analysis is None or hardened_reason(quote, analysis) is None:
                accepted.append(quote)
    return len(seen), accepted


def attack(cases: Sequence[Case], max_len: int = MAX_QUOTE, hardened: bool = True) -> list[SpanAttack]:
    results = []
    for case in cases:
        if case.negative:
            tried, accepted = accepted_spans(case.input, max_len, hardened)
            results.append(SpanAttack(case, tried, tuple(accepted)))
    return results
