"""When a failed automatic summary may be tried again (for the one history its manager serves). Pure state,
no clock.

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
        self._failure: Failure | None = None

    def allowed(self, tokens: int, trigger: int) -> bool:
        failure = self._failure
        if failure is None:
            return True
        step: int = max(RETRY_MIN_GROWTH_TOKENS, trigger // 20) << min(failure.count - 1, MAX_DOUBLINGS)
        return tokens >= failure.tokens + step

    def failed(self, tokens: int, reason: str) -> None:
        previous = self._failure
        self._failure = Failure((previous.count if previous else 0) + 1, tokens, reason)

    def succeeded(self) -> None:
        self._failure = None

    def last_reason(self) -> str | None:
        return self._failure.reason if self._failure else None

    def rebased(self, tokens: int) -> None:
        """The view shrank without a summary (fallback): measure the next growth from the new size."""
        failure = self._failure
        if failure is not None:
            self._failure = Failure(failure.count, min(failure.tokens, tokens), failure.reason)
