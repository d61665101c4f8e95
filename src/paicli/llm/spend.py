"""The session's cost: every model call of the session (the agent's, summaries, fact extraction and the memory
judge, Plan and Team members) goes through a `SpendingClient`, which prices its usage with the table for
the client's provider and model. One call that could not be priced (a model no table names, a reply without
usage) leaves the session without a figure: none is better than a wrong one. Calls are priced when a figure is
asked for, so a run that never shows one never loads the price table."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from paicli.llm.messages import Usage
from paicli.llm.metered import MeteredClient
from paicli.llm.protocol import LLMClient


class Price(Protocol):
    @property
    def currency(self) -> str: ...
    def cost(self, usage: Usage) -> float: ...


class PriceTable(Protocol):
    """What the meter asks of the price table (llm/pricing.py)."""

    def price(self, provider: str, model: str) -> Price | None: ...


PRICES_FILE = "prices.json"  # the user's own table in the paicli home (llm/pricing.py reads it)
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
    """Thread-safe: Plan tasks and background side calls record from their own threads. Without a `table`,
    `load` gives it at the first figure (`total`), not at start-up; the calls recorded until then are priced
    in order."""

    table: PriceTable | None = None
    load: Callable[[], PriceTable] | None = field(default=None, repr=False)
    _calls: list[tuple[str, str, Usage | None]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, provider: str, model: str, usage: Usage | None) -> None:
        with self._lock:
            self._calls.append((provider, model, usage))

    def total(self) -> Spend:
        with self._lock:
            calls = list(self._calls)
            if not calls:
                return Spend()
            if self.table is None and self.load is not None:
                self.table = self.load()
            table = self.table
        amounts: dict[str, float] = {}
        priced = 0
        unpriced: dict[str, None] = {}
        for provider, model, usage in calls:
            price = table.price(provider, model) if table is not None else None
            if price is None or usage is None:
                unpriced[f"{provider}/{model}"] = None
                continue
            priced += 1
            amounts[price.currency] = amounts.get(price.currency, 0.0) + price.cost(usage)
        return Spend(tuple(amounts.items()), priced, len(calls) - priced, tuple(unpriced))

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
