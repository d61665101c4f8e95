"""The figure every threshold compares: the local count of a view's messages, calibrated for the model of the call.

The gauge holds no model of its own: each call of the compaction manager names the model it serves
(`keyed`), so a switch of model between two calls can never calibrate with the previous one. `measure` is
pure. What the provider reported for a request waits (`note_usage`, with the model it was for) until `settle`
folds it into that model's calibration: the exact count of that request is only paid for when a threshold
needs it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message

Tools = Sequence[Mapping[str, Any]] | None


class Gauge:
    def __init__(self, counter: TokenCounter, reference_estimator: bool) -> None:
        self.counter = counter
        # the reference's estimator (spec 1.1), uncalibrated; or the session's counter
        self._thresholds = TokenCounter("heuristic") if reference_estimator else counter
        self._model = ""  # the model of the call in progress (`keyed`); none outside a call
        self._pending: tuple[str, list[Message], list[Mapping[str, Any]] | None, int] | None = None

    @property
    def model(self) -> str:
        """The model whose calibration the figures use: the one the current call named."""
        return self._model

    @contextmanager
    def keyed(self, model: str) -> Iterator[Gauge]:
        """Figures inside the block are for `model`; the key before it comes back after it."""
        previous, self._model = self._model, model
        try:
            yield self
        finally:
            self._model = previous

    def measure(self, history: Sequence[Message]) -> int:
        if self._thresholds is not self.counter:
            return self._thresholds.count_messages(history)
        return self.counter.calibrated(self._model, self.counter.count_messages(history))

    def size(self, message: Message) -> int:
        return self.measure([message])

    def note_usage(self, model: str, sent: list[Message], tools: Tools, provider_tokens: int) -> None:
        self._pending = (model, sent, list(tools) if tools else None, provider_tokens)
        self.counter.last_provider_prompt_tokens = provider_tokens

    def settle(self) -> None:
        """Fold the provider's last figure into the calibration of the model it was for (once)."""
        pending, self._pending = self._pending, None
        if pending is not None:
            model, sent, tools, provider_tokens = pending
            schema = self.counter.count_tools(tools)
            local = self.counter.count_messages(sent) + schema
            self.counter.observe(model, local, provider_tokens, schema)

    def settle_for_thresholds(self) -> None:
        """Before thresholds are compared: only the calibrated counter needs the provider's figure."""
        if self._thresholds is self.counter:
            self.settle()
