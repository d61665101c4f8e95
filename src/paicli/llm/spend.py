"""The session's cost: every model call of the session (the agent's, summaries, fact extraction and the memory
judge, Plan and Team members) goes through a `SpendingClient`, which prices its usage with the table for
the client's provider and model. One call that could not be priced (a model no table names, a reply without
usage) leaves the session without a figure: none is better than a wrong one."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from paicli.llm.messages import Usage
from paicli.llm.metered import MeteredClient
from paicli.llm.pricing import PriceTable
from paicli.llm.protocol import LLMClient

_SYMBOLS = {"CNY": "¥", "USD": "$"}


@dataclass(frozen=True)
class Spend:
    amounts: tuple[tuple[str, float], ...] = ()  # (currency, amount), in the order first spent
    priced_calls: int = 0
    unpriced_calls: int = 0
    unpriced: tuple[str, ...] = ()  # `provider/model` of the calls that could not be priced, each once

    @property
    def known(self) -> bool:
        """A figure can be shown: every call was priced."""
        return self.unpriced_calls == 0

    def text(self) -> str:
        """`¥0.0123` (two currencies after a /model switch: `¥0.0123 + $0.0040`); "" when unknown."""
        if not self.known or not self.amounts:
            return ""
        return " + ".join(_money(currency, amount) for currency, amount in self.amounts)

    def as_json(self) -> dict[str, float] | None:
        """`{"CNY": 0.0123}` for `-p` JSON; None when unknown."""
        if not self.known:
            return None
        return {currency: round(amount, 8) for currency, amount in self.amounts}


def _money(currency: str, amount: float) -> str:
    symbol = _SYMBOLS.get(currency)
    figure = f"{amount:.4f}" if amount < 1 else f"{amount:.2f}"
    return f"{symbol}{figure}" if symbol else f"{figure} {currency}"


@dataclass
class SpendMeter:
    """Thread-safe: Plan tasks and background side calls record from their own threads."""

    table: PriceTable
    _amounts: dict[str, float] = field(default_factory=dict)
    _priced: int = 0
    _unpriced: int = 0
    _unpriced_names: dict[str, None] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, provider: str, model: str, usage: Usage | None) -> None:
        price = self.table.price(provider, model)
        with self._lock:
            if price is None or usage is None:
                self._unpriced += 1
                self._unpriced_names[f"{provider}/{model}"] = None
                return
            self._priced += 1
            self._amounts[price.currency] = self._amounts.get(price.currency, 0.0) + price.cost(usage)

    def total(self) -> Spend:
        with self._lock:
            return Spend(
                tuple(self._amounts.items()), self._priced, self._unpriced, tuple(self._unpriced_names)
            )

    def client(self, inner: LLMClient, provider: str) -> SpendingClient:
        return SpendingClient(inner, self, provider)


class SpendingClient(MeteredClient):
    """A metered client whose sink prices each call's usage for the model that made it."""

    def __init__(self, inner: LLMClient, meter: SpendMeter, provider: str) -> None:
        super().__init__(inner, lambda usage: meter.record(provider, inner.model, usage))
        self._meter = meter
        self._provider = provider

    def with_model(self, model: str) -> SpendingClient:
        return SpendingClient(self._inner.with_model(model), self._meter, self._provider)
