"""The facts session of bench_longsession (issue 38): plain facts, two differently worded sets, five
summarisers, and verdicts that fail when a row loses facts or never reaches a summary."""

from __future__ import annotations

import re

import pytest
from evals.bench_longsession import Spec, facts_specs
from evals.longsession_facts import (
    FACT_SETS,
    FACT_TURNS,
    HEADINGS,
    HELD_OUT,
    REMEMBER_PREFIX,
    SUMMARISERS,
    TUNING,
    facts_kept,
    summary_reply,
    turn_text,
)
from evals.longsession_measure import Figures
from evals.longsession_report import table, verdicts

from paicli.testing.openai_server import Reply

RULE_WORDS = ("不要", "禁止", "每次", "记住", "约定", "必须", "务必", "不能", "统一", "固定", "始终", "总是")
RULE_WORDS += ("以后", "一律", "只用", "要求", "决定", "always", "never", "must", "remember")


@pytest.mark.parametrize("facts", [TUNING, HELD_OUT], ids=["tuning", "held-out"])
def test_fifteen_plain_facts_in_both_languages_each_with_its_own_value(facts: tuple) -> None:
    assert len(facts) == 15
    assert all(fact.check in fact.statement for fact in facts)
    assert not [f.statement for f in facts if any(w in f.statement.lower() for w in RULE_WORDS)]
    assert len({fact.check for fact in facts}) == 15
    han = sum(1 for f in facts if re.search(r"[\u4e00-\u9fff]", f.statement))
    assert 5 <= han <= 10  # mixed: Chinese and English statements


def test_the_held_out_set_shares_no_value_or_statement_with_the_tuning_set() -> None:
    assert not {f.check for f in TUNING} & {f.check for f in HELD_OUT}
    assert not {f.statement for f in TUNING} & {f.statement for f in HELD_OUT}


def test_facts_are_stated_early_and_each_turn_text_is_unique() -> None:
    texts = [turn_text(turn, TUNING) for turn in range(1, 61)]
    assert len(set(texts)) == 60
    stated = [t for t in texts if any(f.statement in t for f in TUNING)]
    assert len(stated) == 15 and max(FACT_TURNS) <= 20
    probe = turn_text(FACT_TURNS[0], TUNING, REMEMBER_PREFIX)
    assert probe.replace(REMEMBER_PREFIX, "") == turn_text(FACT_TURNS[0], TUNING)


def summary_body(facts: str) -> dict:
    return {"messages": [{"role": "user", "content": f"【上下文整理请求，不是新任务】\n{facts}"}]}


def test_the_summarisers_keep_fail_or_lose_the_facts_as_named() -> None:
    shown = summary_body("\n".join(f.statement for f in TUNING))
    ok = summary_reply("ok", shown, TUNING)
    assert isinstance(ok, str) and facts_kept(ok, TUNING) == 15
    assert all(heading in ok for heading in HEADINGS)
    hollow = summary_reply("hollow", shown, TUNING)
    assert isinstance(hollow, str) and all(h in hollow for h in HEADINGS) and facts_kept(hollow, TUNING) == 0
    garbage = summary_reply("garbage", shown, TUNING)
    assert isinstance(garbage, str) and not any(h in garbage for h in HEADINGS)
    cut = summary_reply("cut45", shown, TUNING)
    assert isinstance(cut, Reply) and cut.finish_reason == "length"
    assert cut.content is not None and len(cut.content) < 0.5 * len(ok)
    failing = summary_reply("failing", shown, TUNING)
    assert isinstance(failing, Reply) and failing.status == 500


def test_the_facts_rows_cover_every_summariser_both_sets_and_the_wording_probe() -> None:
    specs = facts_specs()
    assert {(s.facts, s.summariser) for s in specs if not s.prefix} == {
        (name, mode) for name in FACT_SETS for mode in SUMMARISERS
    }
    assert [s for s in specs if s.prefix] == [Spec("failing", "tuning", REMEMBER_PREFIX)]
    assert Spec("ok", "held-out").checks() == tuple(f.check for f in HELD_OUT)


def facts_row(summariser: str, kept: int, summaries: int = 3, l3: int = 1, prefix: str = "") -> Figures:
    return Figures(
        16_000,
        summariser,
        scenario="tuning",
        prefix=prefix,
        prompt=10_000,
        cached=9_000,
        facts_retained=kept,
        facts_total=15,
        summary_requests=summaries,
        l3=l3,
        turns=60,
    )


def test_facts_verdicts_fail_below_fourteen_without_summaries_or_when_wording_changes_the_outcome() -> None:
    runs = [
        facts_row("failing", 15),
        facts_row("hollow", 5),
        facts_row("garbage", 14, summaries=0),
        facts_row("ok", 15, l3=0),
        facts_row("failing", 13, prefix=REMEMBER_PREFIX),
    ]
    lines = verdicts(runs)
    assert (True, "user facts kept @16K tuning failing: 15/15 (target >= 14)") in lines
    assert (False, "user facts kept @16K tuning hollow: 5/15 (target >= 14)") in lines
    assert (False, "summaries requested @16K tuning garbage: 0 (target > 0)") in lines
    assert (False, "summaries made @16K tuning ok: 0 (target > 0)") in lines
    assert (
        False,
        "wording probe @16K tuning failing +prefix: 13/15 with the prefix, 15/15 without (target: equal)",
    ) in lines
    header = table(runs)[0].split()
    assert header[:2] == ["16K", "facts"] and "hollow" in header
