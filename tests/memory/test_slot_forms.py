"""The same subject or value said in another form is the same slot; a form that names another thing is not
(issue 37, memshape). Each rule stands beside its must-not twin."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.memory.manager import MemoryManager
from paicli.memory.relation import relation
from paicli.memory.subject import claim_of

from .helpers import repo_manager


def _truths(mgr: MemoryManager) -> list[str]:
    return sorted(e.content for e in mgr.list_all() if evolve.is_truth(e))


def _chain(tmp_path: Path, *texts: str) -> list[str]:
    mgr = repo_manager(tmp_path)
    for text in texts:
        mgr.store_fact(text)
    return _truths(mgr)


# ---- a subject with part of its modifier dropped ----


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("灰度发布的持续时间是 2 小时", "灰度时间改成 4 小时"),
        ("The staging cluster's node count is 3.", "The cluster node count is 5 now."),
        ("search 服务的 QPS 上限是 200", "服务 QPS 上限现在是 300"),
    ],
)
def test_a_subject_without_part_of_its_modifier_is_the_same_slot(stored: str, incoming: str) -> None:
    assert relation(stored, incoming).kind == "changed"


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("灰度发布的持续时间是 2 小时", "回滚时间改成 4 小时"),  # a word the long form lacks
        ("The staging cluster's node count is 3.", "The production node count is 5 now."),
        ("search 服务的 QPS 上限是 200", "index 服务 QPS 上限现在是 300"),
        ("测试环境的域名是 t.example.cn", "预发环境的域名现在是 p.example.cn"),
    ],
)
def test_a_shorter_subject_with_a_word_of_its_own_is_another_thing(stored: str, incoming: str) -> None:
    assert relation(stored, incoming).kind == "none"


def test_a_modifier_dropped_in_part_supersedes_through_the_store(tmp_path: Path) -> None:
    assert _chain(tmp_path, "灰度发布的持续时间是 2 小时", "灰度时间改成 4 小时") == ["灰度时间改成 4 小时"]


# ---- a subject that adds a qualifier names a narrower thing ----


def test_a_subject_with_a_qualifier_added_is_a_narrower_thing(tmp_path: Path) -> None:
    found = relation("The request timeout is 30 seconds.", "The upload request timeout is 120 seconds now.")
    assert (found.kind, found.apart, found.narrower) == ("none", True, True)
    kept = _chain(
        tmp_path, "The request timeout is 30 seconds.", "The upload request timeout is 120 seconds now."
    )
    assert kept == ["The request timeout is 30 seconds.", "The upload request timeout is 120 seconds now."]


def test_the_shorter_subject_corrects_the_qualified_one() -> None:
    found = relation("The upload request timeout is 60 seconds.", "The request timeout is 90 seconds now.")
    assert found.kind == "changed" and not found.narrower


def test_a_qualified_name_the_truths_own_history_used_is_no_narrower_thing(tmp_path: Path) -> None:
    kept = _chain(
        tmp_path,
        "The upload request timeout is 60 seconds.",
        "The request timeout is 90 seconds now.",
        "The upload request timeout is 45 seconds now.",
    )
    assert kept == ["The upload request timeout is 45 seconds now."]


def test_the_stored_value_among_the_new_subjects_words_is_no_qualifier() -> None:
    found = relation("The session store is Redis.", "We replaced the old session store Redis with Valkey.")
    assert found.kind == "changed" and not found.narrower


# ---- the value as a verb on one side, a noun or gerund on the other ----


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("Python wheels are vendored.", "We stopped vendoring Python wheels."),
        ("Translations are synced by polling.", "We stopped polling translations."),
        ("Release notes are written by hand.", "We stopped writing release notes by hand."),
    ],
)
def test_a_doing_said_over_in_its_gerund_corrects_the_passive_that_holds_it(
    stored: str, incoming: str
) -> None:
    assert relation(stored, incoming).kind in ("corrects", "changed")


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("Python wheels are vendored.", "We stopped vendoring Rust crates."),
        ("Translations are synced by polling.", "We stopped polling the status page."),
    ],
)
def test_the_same_doing_over_for_another_thing_leaves_the_stored_fact(stored: str, incoming: str) -> None:
    assert relation(stored, incoming).kind == "none"


def test_a_value_left_unchanged_before_a_noun_is_a_modifier_not_a_doing() -> None:
    stored = "The branching model is now trunk-based."
    assert relation(stored, "We've dropped trunk-based branching.").kind == "corrects"


def test_a_passive_means_after_by_is_its_value(tmp_path: Path) -> None:
    kept = _chain(
        tmp_path, "Tags are merged by squashing.", "We stopped squashing; tags are merged by rebasing now."
    )
    assert kept == ["We stopped squashing; tags are merged by rebasing now."]


def test_an_ending_verbs_agent_is_no_value() -> None:
    values = {r.value for r in claim_of("Kafka was retired by the infra team.").readings}
    assert "theinfrateam" not in values and "infrateam" not in values
    assert claim_of("Translations are synced by polling.").readings[0].value == "polling"


# ---- a limit has a direction ----


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("The maximum payload size is 5 MB.", "The minimum payload size is 1 KB now."),
        ("最大重试次数是 3", "每个请求现在至少重试 1 次"),
        ("The maximum worker count is 8.", "At least 2 workers run now."),
    ],
)
def test_an_upper_and_a_lower_bound_are_two_slots(stored: str, incoming: str) -> None:
    assert relation(stored, incoming).apart


def test_an_upper_bound_said_as_a_verb_still_corrects_the_maximum(tmp_path: Path) -> None:
    assert not relation("The maximum payload size is 5 MB.", "Payloads are capped at 8 MB now.").apart
    kept = _chain(tmp_path, "The maximum payload size is 5 MB.", "Payloads are capped at 8 MB now.")
    assert kept == ["Payloads are capped at 8 MB now."]


def test_a_span_in_minutes_is_no_lower_bound() -> None:
    assert not relation("The maximum session length is 8 hours.", "Sessions now end after 90 min.").apart
