"""Issue 37 (memauto4): the automatic path keeps a plain statement of a change however the user frames it — their
own label before it, a time that dates it, a second fact beside it — and the same framing around a question, a
plan, a condition, a one-off remark, someone else's words or a task still stores nothing. Each rule sits beside
its twin; the wordings are not those of the dev round (`dev15auto`).

The model here quotes a given span of the turn, as a careful extractor would; the rules after it decide."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.memory.extract_framing import framing_label
from paicli.memory.extract_rules import judge_quotes, safe_input, worth_asking
from paicli.memory.extract_statement import reads_as_statement
from paicli.memory.subject import claim_of
from paicli.testing.scripted_llm import ScriptedLLM
from tests.extractor.quoting import quoting_manager


def _auto(tmp_path: Path, turn: str, quote: str, stored: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """(what the automatic path wrote, the truths afterwards) when the model quotes `quote` from `turn`."""
    llm = ScriptedLLM()
    mgr = quoting_manager(tmp_path, llm)
    llm.default_reply = lambda _: json.dumps({"facts": [{"quote": quote}]}, ensure_ascii=False)
    for fact in stored:
        assert mgr.store_fact(fact).written
    written = [entry.content for entry in mgr.extract_facts_from_user_turn(turn)]
    truths = [e.content for e in mgr.store.get_all(mgr.project_key) if evolve.is_truth(e)]
    return written, truths


def _reason(turn: str, quote: str) -> str | None:
    return judge_quotes([quote], safe_input(turn), True, None)[0].reason


_TRACKER = ("Incidents are tracked in Opsgenie",)
_WIKI = ("运维手册放在 Confluence",)


# ---- the user's own framing before the update: a phrase of theirs, not a name or a source ----


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("Just to tie this off: incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
        ("A small follow-up on the tooling — incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
        ("Picking up what I mentioned earlier: incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
    ],
)  # fmt: skip
def test_an_english_framing_phrase_before_the_update_is_the_users_own(
    tmp_path: Path, turn: str, quote: str
) -> None:
    written, truths = _auto(tmp_path, turn, quote, _TRACKER)
    assert written == [quote]
    assert truths == [quote]  # the update superseded the stored value


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("Priya: incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
        ("The on-call handbook says: incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
        ("From the vendor's changelog: incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
        ("Output while syncing: incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
        ("Rewrite this more formally: incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
        ("Just to tie this off: we might track incidents in incident.io soon.", "we might track incidents in incident.io soon"),
        ("Just to tie this off: are incidents tracked in incident.io now?", "are incidents tracked in incident.io now"),
    ],
)  # fmt: skip
def test_a_name_a_source_a_task_or_a_non_statement_under_the_label_stores_nothing(
    tmp_path: Path, turn: str, quote: str
) -> None:
    written, truths = _auto(tmp_path, turn, quote, _TRACKER)
    assert written == []
    assert truths == list(_TRACKER)


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("交代一下：运维手册挪到飞书知识库了", "运维手册挪到飞书知识库了"),
        ("多说一句——运维手册挪到飞书知识库了", "运维手册挪到飞书知识库了"),
        ("通报个变化：运维手册挪到飞书知识库了", "运维手册挪到飞书知识库了"),
    ],
)
def test_a_chinese_act_of_telling_before_the_update_is_the_users_own(
    tmp_path: Path, turn: str, quote: str
) -> None:
    written, truths = _auto(tmp_path, turn, quote, _WIKI)
    assert written == [quote]
    assert truths == [quote]


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("润色一下：运维手册挪到飞书知识库了", "运维手册挪到飞书知识库了"),
        ("用两句话概括一下：运维手册挪到飞书知识库了", "运维手册挪到飞书知识库了"),
        ("王磊：运维手册挪到飞书知识库了", "运维手册挪到飞书知识库了"),
        ("交代一下：运维手册可能要挪到飞书知识库", "运维手册可能要挪到飞书知识库"),
    ],
)
def test_a_task_a_name_or_a_plan_under_a_chinese_label_stores_nothing(
    tmp_path: Path, turn: str, quote: str
) -> None:
    written, truths = _auto(tmp_path, turn, quote, _WIKI)
    assert written == []
    assert truths == list(_WIKI)


@pytest.mark.parametrize(
    ("label", "own"),
    [
        ("Quick recap for the team", True),
        ("Update on the runners", True),
        ("Update the runners", False),  # a task verb and its object
        ("Message from Dana", False),  # a name after a source preposition
        ("the deploy script printed", False),  # a clause telling another's words
        ("what I said before was wrong", True),  # the user's own saying reports nothing new here
        ("说明一下", True),
        ("引用一下", False),  # a source verb
        ("检查一下", False),  # a task verb
        ("翻一下", False),  # a one-syllable verb with 一下: the colloquial order
        ("领导说一下", False),  # a subject before the act: someone else speaks
    ],
)
def test_framing_is_read_from_the_labels_shape(label: str, own: bool) -> None:
    assert framing_label(label) is own


def test_the_users_own_saying_is_no_report_but_a_saying_with_content_is() -> None:
    own = "Correction to what I said before: the on-call rota lives in PagerDuty."
    assert _reason(own, "the on-call rota lives in PagerDuty") is None
    reported = "我之前说值班表放在 PagerDuty 是错的，别管它。"
    assert _reason(reported, "值班表放在 PagerDuty") is not None


def test_a_noun_of_doubt_is_no_hedge_but_the_verb_is() -> None:
    plain = "For the avoidance of doubt, the on-call rota lives in PagerDuty."
    assert _reason(plain, "the on-call rota lives in PagerDuty") is None
    hedge = "I doubt the on-call rota lives in PagerDuty."
    assert _reason(hedge, "I doubt the on-call rota lives in PagerDuty") == "speculative"


# ---- two facts joined without a comma: each clause is the user's ----


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("The docs site builds with MkDocs and incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
        ("We pin Python 3.12 plus incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
    ],
)  # fmt: skip
def test_a_clause_after_a_whole_clause_and_a_coordinator_is_kept(
    tmp_path: Path, turn: str, quote: str
) -> None:
    written, truths = _auto(tmp_path, turn, quote, _TRACKER)
    assert written == [quote]
    assert truths == [quote]


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("Both the docs and incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
        ("If the docs build and incidents are tracked in incident.io we are done.", "incidents are tracked in incident.io"),
        ("The docs site builds with MkDocs and we might track incidents in incident.io.", "we might track incidents in incident.io"),
        ("The vendor wrote that the docs build and incidents are tracked in incident.io now.", "incidents are tracked in incident.io now"),
    ],
)  # fmt: skip
def test_a_coordinated_noun_a_condition_a_plan_or_a_report_stores_nothing(
    tmp_path: Path, turn: str, quote: str
) -> None:
    written, truths = _auto(tmp_path, turn, quote, _TRACKER)
    assert written == []
    assert truths == list(_TRACKER)


# ---- a time that dates the change opens the sentence ----


def test_an_opening_time_without_a_comma_leaves_the_subject_alone() -> None:
    readings = claim_of("从 4.2 版本起网关跑在 Envoy 上").readings
    assert readings and readings[0].subject is not None and readings[0].subject.han == "网关"
    dated = claim_of("这个季度开始网关跑在 Envoy 上").readings
    assert dated and dated[0].subject is not None and dated[0].subject.han == "网关"


def test_an_update_dated_at_its_start_supersedes_and_a_one_off_does_not(tmp_path: Path) -> None:
    stored = ("网关跑在 Nginx 上",)
    quote = "从 4.2 版本起网关跑在 Envoy 上"
    written, truths = _auto(tmp_path / "a", quote, quote, stored)
    assert written == [quote] and truths == [quote]
    one_off = "今天网关临时跑在 Caddy 上"
    written, truths = _auto(tmp_path / "b", one_off, one_off, stored)
    assert written == [] and truths == list(stored)


# ---- a passive without `by` names where a thing is done, not who does it ----


def test_a_passive_with_a_place_is_a_value_and_one_with_by_a_duty() -> None:
    placed = claim_of("Schema changes are reviewed in GitLab").readings[0]
    assert placed.subject is not None and placed.subject.latin == ("schema", "changes")
    assert placed.value == "gitlab" and not placed.subject.duty
    held = claim_of("Schema changes are reviewed by Lena").readings[0]
    assert held.subject is not None and held.subject.duty and held.value == "lena"


def test_a_passive_update_with_a_place_supersedes(tmp_path: Path) -> None:
    stored = ("Schema changes are reviewed in GitHub",)
    quote = "schema changes are reviewed in GitLab now"
    written, truths = _auto(tmp_path, quote, quote, stored)
    assert written == [quote] and truths == [quote]


# ---- what makes a clause read as a statement: closed classes, not cue words ----


@pytest.mark.parametrize(
    ("clause", "statement"),
    [
        ("Single sign-on goes through Okta", True),
        ("Single sign-on through Okta", False),  # no finite verb: a fragment
        ("灰度发布走 Argo Rollouts", True),
        ("灰度发布的走势图", False),  # 走 inside a noun
    ],
)
def test_a_preposition_or_a_coverb_completes_a_statement(clause: str, statement: bool) -> None:
    assert reads_as_statement(clause) is statement
    assert worth_asking(safe_input(clause + "。")) is statement
