"""When a failed automatic summary may be tried again (per history). Pure state, no clock.

After a failure the next attempt waits until the history has grown by a step that doubles with every
consecutive failure (capped), so a dead summary model costs a handful of requests per session, not one per
model call. A success forgets the failures. Meanwhile the deterministic fallback keeps requests in the window.
"""

from __future__ import annotations

from dataclasses import dataclass

RETRY_MIN_GROWTH_TOKENS = 2_000
MAX_DOUBLINGS = 5


@dataclass(frozen=True)
class Failure:
    count: int
    tokens: int
    reason: str


class SummaryBackoff:
    def __init__(self) -> None:
        self._failures: dict[int, Failure] = {}

    def allowed(self, key: int, tokens: int, trigger: int) -> bool:
        failure = self._failures.get(key)
        if failure is None:
            return True
        step: int = max(RETRY_MIN_GROWTH_TOKENS, trigger // 20) << min(failure.count - 1, MAX_DOUBLINGS)
        return tokens >= failure.tokens + step

    def failed(self, key: int, tokens: int, reason: str) -> None:
        previous = self._failures.get(key)
        self._failures[key] = Failure((previous.count if previous else 0) + 1, tokens, reason)

    def succeeded(self, key: int) -> None:
        self._failures.pop(key, None)

    def last_reason(self, key: int) -> str | None:
        failure = self._failures.get(key)
        return failure.reason if failure else None

    def rebased(self, key: int, tokens: int) -> None:
        """The view shrank without a summary (fallback): measure the next growth from the new size."""
        failure = self._failures.get(key)
        if failure is not None:
            self._failures[key] = Failure(failure.count, min(failure.tokens, tokens), failure.reason)
