"""The figure every threshold compares: the local count of a view's messages, calibrated for the session model.

`measure` is pure. What the provider reported for the last request waits (`note_usage`) until `settle` folds
it into the calibration: the exact count of that request is only paid for when a threshold needs it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient

Tools = Sequence[Mapping[str, Any]] | None


class Gauge:
    def __init__(
        self, counter: TokenCounter, reference_estimator: bool, llm: LLMClient | None = None
    ) -> None:
        self.counter = counter
        # the reference's estimator (spec 1.1), uncalibrated; or the session's counter
        self._thresholds = TokenCounter("heuristic") if reference_estimator else counter
        self.llm = llm  # whose model the calibration is for
        self._pending: tuple[list[Message], list[Mapping[str, Any]] | None, int] | None = None

    @property
    def model(self) -> str:
        return self.llm.model if self.llm is not None else ""

    def measure(self, history: Sequence[Message]) -> int:
        if self._thresholds is not self.counter:
            return self._thresholds.count_messages(history)
        return self.counter.calibrated(self.model, self.counter.count_messages(history))

    def size(self, message: Message) -> int:
        return self.measure([message])

    def note_usage(self, sent: list[Message], tools: Tools, provider_tokens: int) -> None:
        self._pending = (sent, list(tools) if tools else None, provider_tokens)
        self.counter.last_provider_prompt_tokens = provider_tokens

    def settle(self) -> None:
        """Fold the provider's last figure into the calibration (once)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            sent, tools, provider_tokens = pending
            schema = self.counter.count_tools(tools)
            local = self.counter.count_messages(sent) + schema
            self.counter.observe(self.model, local, provider_tokens, schema)

    def settle_for_thresholds(self) -> None:
        """Before thresholds are compared: only the calibrated counter needs the provider's figure."""
        if self._thresholds is self.counter:
            self.settle()
