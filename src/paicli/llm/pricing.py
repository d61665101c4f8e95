"""The price table: what a call of a provider's model costs, from the shipped `prices.json` and the user's
`prices.json` in the paicli home (same layout; its models of a provider are looked at first). Pure apart from
reading the two files; a model no table names has no price, so no figure is shown rather than a wrong one."""

from __future__ import annotations

import fnmatch
import json
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from paicli.llm.messages import Usage
from paicli.llm.spend import PRICES_FILE

_SHIPPED = Path(__file__).with_name(PRICES_FILE)
_PER = 1_000_000  # prices are per million tokens


class _ModelRow(BaseModel):
    # the two rows are only ever validated inside _PriceFile: no validators of their own at import (issue 49)
    model_config = ConfigDict(extra="ignore", defer_build=True)
    input: float = Field(ge=0)
    output: float = Field(ge=0)
    cached_input: float | None = Field(default=None, ge=0)


class _ProviderRows(BaseModel):
    model_config = ConfigDict(extra="ignore", defer_build=True)
    currency: str = Field(min_length=1)
    models: dict[str, _ModelRow] = Field(default_factory=dict)


class _PriceFile(BaseModel):
    model_config = ConfigDict(extra="ignore")
    providers: dict[str, _ProviderRows] = Field(default_factory=dict)


@dataclass(frozen=True)
class Price:
    """Per million tokens, in `currency`; cached input falls back to the input rate when none is listed."""

    currency: str
    input: float
    cached_input: float
    output: float

    def cost(self, usage: Usage) -> float:
        cached = min(max(usage.cached_tokens, 0), max(usage.prompt_tokens, 0))
        fresh = max(usage.prompt_tokens, 0) - cached
        return (
            fresh * self.input + cached * self.cached_input + max(usage.completion_tokens, 0) * self.output
        ) / _PER


@dataclass(frozen=True)
class PriceTable:
    rows: tuple[tuple[str, str, Price], ...] = ()  # (provider, model glob, price), first match wins

    def price(self, provider: str, model: str) -> Price | None:
        lowered = model.lower()
        for name, pattern, price in self.rows:
            if name == provider and fnmatch.fnmatchcase(lowered, pattern.lower()):
                return price
        return None

    def before(self, other: PriceTable) -> PriceTable:
        """This table's rows looked at first, then `other`'s."""
        return PriceTable(self.rows + other.rows)


def parse_prices(text: str) -> PriceTable:
    """A `prices.json` text; raises ValueError with what is wrong."""
    try:
        parsed = _PriceFile.model_validate(json.loads(text))
    except (ValueError, ValidationError) as error:
        raise ValueError(str(error).splitlines()[0]) from error
    rows: list[tuple[str, str, Price]] = []
    for provider, table in parsed.providers.items():
        for pattern, row in table.models.items():
            cached = row.cached_input if row.cached_input is not None else row.input
            rows.append((provider, pattern, Price(table.currency, row.input, cached, row.output)))
    return PriceTable(tuple(rows))


def shipped_prices() -> PriceTable:
    return parse_prices(_SHIPPED.read_text(encoding="utf-8"))


def load_prices(home: Path) -> tuple[PriceTable, str]:
    """The shipped table under the user's overrides, and a notice when the user's file could not be used
    (the shipped prices then stand alone)."""
    shipped = shipped_prices()
    path = home / PRICES_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return shipped, ""
    except OSError as error:
        return shipped, f"⚠️ 价格表 {path} 无法读取，已忽略: {error}"
    try:
        return parse_prices(text).before(shipped), ""
    except ValueError as error:
        return shipped, f"⚠️ 价格表 {path} 格式不对，已忽略（使用内置价格）: {error}"
