"""The price table and the session's cost meter (pure, plus the two files it reads)."""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path

import pytest

from paicli.llm import pricing
from paicli.llm.messages import Usage
from paicli.llm.pricing import Price, load_prices, parse_prices, shipped_prices
from paicli.llm.spend import Spend, SpendMeter
from paicli.testing.scripted_llm import ScriptedLLM


def table_text(provider: str, currency: str, models: dict[str, dict[str, float]]) -> str:
    return json.dumps({"providers": {provider: {"currency": currency, "models": models}}})


def test_cached_input_is_priced_at_the_cache_rate() -> None:
    price = Price("CNY", input=2.0, cached_input=0.2, output=3.0)
    usage = Usage(prompt_tokens=1_000_000, completion_tokens=500_000, cached_tokens=400_000)
    assert price.cost(usage) == pytest.approx(0.6 * 2.0 + 0.4 * 0.2 + 0.5 * 3.0)


def test_a_row_without_a_cache_rate_prices_cached_input_as_input() -> None:
    table = parse_prices(table_text("acme", "USD", {"m1": {"input": 1.0, "output": 4.0}}))
    price = table.price("acme", "M1")
    assert price == Price("USD", 1.0, 1.0, 4.0)


def test_models_match_by_glob_first_match_wins_and_only_for_their_provider() -> None:
    text = json.dumps(
        {
            "providers": {
                "acme": {
                    "currency": "USD",
                    "models": {"m-mini*": {"input": 1, "output": 1}, "m-*": {"input": 5, "output": 5}},
                }
            }
        }
    )
    table = parse_prices(text)
    assert table.price("acme", "m-mini-2025") == Price("USD", 1, 1, 1)
    assert table.price("acme", "m-large") == Price("USD", 5, 5, 5)
    assert table.price("other", "m-large") is None
    assert table.price("acme", "x") is None


def test_the_shipped_table_names_its_sources_and_prices_the_reference_currencies() -> None:
    raw = json.loads(Path(pricing.__file__).with_name("prices.json").read_text(encoding="utf-8"))
    for provider in raw["providers"].values():
        assert provider["source"].startswith("https://") and provider["checked"]
    table = shipped_prices()
    deepseek = table.price("deepseek", "deepseek-chat")
    openai = table.price("openai", "gpt-4o-mini")
    assert deepseek is not None and deepseek.currency == "CNY"
    assert openai is not None and openai.currency == "USD"
    assert table.price("deepseek", "deepseek-unheard-of") is None


def test_user_prices_override_the_shipped_ones(tmp_path: Path) -> None:
    (tmp_path / "prices.json").write_text(
        table_text("deepseek", "CNY", {"deepseek-chat": {"input": 9, "cached_input": 1, "output": 9}})
    )
    table, notice = load_prices(tmp_path)
    assert notice == ""
    assert table.price("deepseek", "deepseek-chat") == Price("CNY", 9, 1, 9)
    assert table.price("openai", "gpt-4o-mini") == shipped_prices().price("openai", "gpt-4o-mini")


@pytest.mark.parametrize(
    "text",
    [
        "{not json",
        json.dumps({"providers": {"x": {"currency": "CNY", "models": {"m": {"input": -1, "output": 1}}}}}),
    ],
)
def test_a_broken_user_file_is_named_and_the_shipped_prices_stand(tmp_path: Path, text: str) -> None:
    (tmp_path / "prices.json").write_text(text)
    table, notice = load_prices(tmp_path)
    assert "prices.json" in notice and "已忽略" in notice
    assert table == shipped_prices()


def test_spend_sums_every_call_per_currency() -> None:
    table = parse_prices(
        json.dumps(
            {
                "providers": {
                    "a": {"currency": "CNY", "models": {"m": {"input": 1e6, "output": 2e6}}},
                    "b": {"currency": "USD", "models": {"n": {"input": 1e6, "output": 0}}},
                }
            }
        )
    )
    meter = SpendMeter(table)
    meter.record("a", "m", Usage(3, 1, 0))
    meter.record("a", "m", Usage(2, 0, 0))
    meter.record("b", "n", Usage(4, 9, 0))
    spent = meter.total()
    assert spent.known and spent.priced_calls == 3
    assert dict(spent.amounts) == pytest.approx({"CNY": 3 + 2 + 2, "USD": 4})
    assert spent.text() == "¥7.00 + $4.00"
    assert spent.as_json() == {"CNY": 7.0, "USD": 4.0}


def test_one_unpriced_call_leaves_no_figure() -> None:
    meter = SpendMeter(parse_prices(table_text("a", "CNY", {"m": {"input": 1, "output": 1}})))
    meter.record("a", "m", Usage(10, 10, 0))
    meter.record("a", "unknown-model", Usage(10, 10, 0))
    spent = meter.total()
    assert not spent.known and spent.text() == "" and spent.as_json() is None
    assert spent.unpriced == ("a/unknown-model",)
    no_usage = SpendMeter(meter.table)
    no_usage.record("a", "m", None)  # a reply without usage cannot be priced either
    assert no_usage.total().as_json() is None


def test_small_amounts_keep_four_decimals() -> None:
    assert Spend((("CNY", 0.01234),), 1).text() == "¥0.0123"
    assert Spend((("EUR", 0.5),), 1).text() == "0.5000 EUR"


def test_the_spending_client_prices_its_calls_and_those_of_its_other_models() -> None:
    table = parse_prices(
        table_text("p", "CNY", {"main": {"input": 1e6, "output": 0}, "light": {"input": 2e6, "output": 0}})
    )
    meter = SpendMeter(table)
    light = ScriptedLLM(["二"], model_name="light", usage=Usage(5, 0, 0))
    client = meter.client(_Main(["一"], model_name="main", usage=Usage(5, 0, 0), light=light), "p")
    client.chat([])
    client.with_model("light").chat([])
    assert light.calls == 1
    assert dict(meter.total().amounts) == pytest.approx({"CNY": 5 * 1 + 5 * 2})


@dataclass
class _Main(ScriptedLLM):
    light: ScriptedLLM | None = None

    def with_model(self, model: str) -> ScriptedLLM:
        assert self.light is not None and model == self.light.model
        return self.light


def test_the_meter_is_safe_from_parallel_calls() -> None:
    meter = SpendMeter(parse_prices(table_text("a", "CNY", {"m": {"input": 1e6, "output": 0}})))

    def spend() -> None:
        for _ in range(500):
            meter.record("a", "m", Usage(1, 0, 0))

    threads = [threading.Thread(target=spend) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert meter.total().priced_calls == 2000
    assert dict(meter.total().amounts)["CNY"] == pytest.approx(2000)
