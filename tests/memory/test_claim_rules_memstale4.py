"""Issue 37 (memstale4): the claim rules behind the lead's fresh-wording trial. Each test is named for the rule
it proves; subjects and values are my own, not the trial's nor the eval's."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.config.run_values import MemoryValues
from paicli.memory import evolve
from paicli.memory.manager import MemoryManager
from paicli.memory.mentions import corrects_stored
from paicli.memory.relation import relation
from paicli.memory.subject import Relation, claim_of

from .helpers import CLOCK, env, memory


def _reading(text: str) -> tuple[str, str, bool]:
    reading = claim_of(text).readings[0]
    assert reading.subject is not None, text
    return reading.subject.render(), reading.value, reading.negated


@pytest.mark.parametrize(
    ("text", "subject", "value"),
    [("日志保留天数 30", "日志保留天数", "30"), ("worker replicas 6", "worker replicas", "6")],
)
def test_a_label_followed_by_a_number_alone_gives_the_label_that_value(
    text: str, subject: str, value: str
) -> None:
    assert _reading(text) == (subject, value, False)
    assert not claim_of(text).stated  # a bare label is no statement for the extraction gate


@pytest.mark.parametrize("text", ["日志保留天数不是 30", "日志保留天数", "30 60", "保留 v2 30"])
def test_a_bare_label_needs_words_then_exactly_one_number_and_no_denial(text: str) -> None:
    assert not any(r.value == "30" and not r.negated and r.own for r in claim_of(text).readings)


def test_a_bare_label_is_corrected_by_a_statement_naming_only_its_head() -> None:
    assert relation("日志保留天数 30", "日志保留现在是 60").kind == "changed"
    assert relation("日志保留天数 30", "日志保留天数 30").kind == "same"


@pytest.mark.parametrize(
    ("text", "value"),
    [("v5 of the billing API replaced v4", "v5"), ("Valkey for the session store replaced Redis", "valkey")],
)
def test_a_replacing_verb_after_a_value_and_an_of_or_for_phrase_takes_its_subject_from_the_phrase(
    text: str, value: str
) -> None:
    subject, found, negated = _reading(text)
    assert (found, negated) == (value, False)
    assert subject in ("billing api", "session store")


def test_a_subject_in_a_phrase_after_the_new_value_supersedes_the_stored_value() -> None:
    assert (
        relation("The billing API is versioned as v4", "v5 of the billing API replaced v4").kind == "changed"
    )
    assert relation("The search API is versioned as v4", "v5 of the billing API replaced v4").kind == "none"


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The wiki is hosted on Confluence", "confluence"),
        ("The runners are deployed in Frankfurt", "frankfurt"),
    ],
)
def test_a_participle_of_place_after_the_copula_names_the_value(text: str, value: str) -> None:
    assert _reading(text)[1:] == (value, False)


@pytest.mark.parametrize(
    "text", ["The wiki is documented in the handbook", "Bamboo was retired in May", "Bamboo was retired"]
)
def test_a_participle_before_a_determiner_or_a_verb_of_ceasing_is_no_place(text: str) -> None:
    assert all(r.value not in ("handbook", "may") for r in claim_of(text).readings)


def test_a_move_off_the_stored_place_supersedes_a_participle_of_place() -> None:
    assert relation(
        "The wiki is hosted on Confluence", "We moved the wiki off Confluence to Notion"
    ) == Relation("changed", True)


@pytest.mark.parametrize(
    "incoming",
    [
        "Ravi no longer maintains the billing service; Mei does",
        "Ravi isn't maintaining the billing service now",
    ],
)
def test_a_denial_of_the_stored_value_names_the_subject_in_another_inflection(incoming: str) -> None:
    assert corrects_stored("The billing service maintainer is Ravi", incoming)


@pytest.mark.parametrize(
    "incoming",
    [
        "Ravi no longer maintains the billing server; Mei does",  # server is not service
        "Ravi no longer maintains the search service; Mei does",  # another service
        "Ravi maintains the billing service dashboards too",  # no denial, the stored value restated alone
    ],
)
def test_an_inflection_match_never_joins_different_words(incoming: str) -> None:
    assert not corrects_stored("The billing service maintainer is Ravi", incoming)


@pytest.mark.parametrize(
    "chain",
    [
        ("日志保留天数 30", "日志保留现在是 60"),
        ("The billing API is versioned as v4", "v5 of the billing API replaced v4"),
        ("The wiki is hosted on Confluence", "We moved the wiki off Confluence to Notion"),
        ("The billing service maintainer is Ravi", "Ravi no longer maintains the billing service; Mei does"),
    ],
)
def test_each_trial_shape_ends_with_its_last_statement_as_the_only_truth(
    tmp_path: Path, chain: tuple[str, ...]
) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    mgr = MemoryManager(memory(tmp_path / "mem"), root, MemoryValues.parse(env()), clock=CLOCK)
    neighbour = "For the search service, the maintainer is Ravi."  # another owner: never touched
    mgr.store_fact(neighbour)
    for text in chain:
        mgr.store_fact(text)
    assert sorted(e.content for e in mgr.list_all() if evolve.is_truth(e)) == sorted([chain[-1], neighbour])


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("发版负责人 李雷", "发版负责人换成韩梅梅了"),
        ("artifact store Nexus", "The artifact store is Artifactory now."),
    ],
)
def test_a_stored_bare_label_with_a_word_value_is_split_where_the_new_subject_ends(
    stored: str, incoming: str
) -> None:
    assert relation(stored, incoming) == Relation("changed", False)  # never certain: the judge may overrule


@pytest.mark.parametrize(
    "incoming", ["Kronos 项目那边 artifact store 用 Artifactory", "The build cache is S3 now."]
)
def test_a_bare_label_is_split_only_by_the_same_subject_and_owner(incoming: str) -> None:
    assert relation("artifact store Nexus", incoming).kind == "none"


def test_an_unread_sentence_is_no_label_even_when_it_opens_with_the_new_subject() -> None:
    assert (
        relation("The payments team deploys on Fridays", "The payments team is 8 people now.").kind == "none"
    )


def test_a_denial_of_a_bare_labels_value_changes_it() -> None:
    assert relation("artifact store Nexus", "artifact store 不是 Nexus").kind == "changed"
