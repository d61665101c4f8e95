"""Issue 37 (memdeny3): a denial that names only the value, or names it first, retires the one current truth that
holds that value, decided against the scope's truths as a whole (`value_denial.py`). Each rule stands beside a
twin that must retire nothing. Subjects and values are my own, not the eval's."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.memory.denial import denies
from paicli.memory.value_denial import retired

from .helpers import NOW, entry, memory

PROJECT = "/work/value-denial-demo"


def _truths(tmp_path: Path, chain: list[str]) -> list[str]:
    """Writes the statements in order (one second apart, as /save would) and returns the live truths."""
    store = memory(tmp_path / "memory")
    for step, text in enumerate(chain):
        store.write(entry(text, "project", PROJECT, when=NOW + timedelta(seconds=step)))
    return [e.content for e in store.get_all(PROJECT) if evolve.is_truth(e)]


# --- only the value --------------------------------------------------------------------------------------------

ORCHESTRATOR = "Data pipelines are orchestrated by Dagster."


@pytest.mark.parametrize(
    "denial",
    [
        "Dagster was dropped.",
        "We gave up on Dagster.",
        "Dagster got pulled from the stack.",
        "We've stopped paying for Dagster.",
        "Dagster 也停用了",
        "Dagster 下线了",
        "Nobody uses Dagster anymore.",
        "Dagster 已经没人用了",
        "Dagster was shut off.",
    ],
)
def test_a_denial_of_the_value_alone_retires_its_one_holder(tmp_path: Path, denial: str) -> None:
    assert _truths(tmp_path, [ORCHESTRATOR, denial]) == [denial]


@pytest.mark.parametrize(
    "look_alike",
    [
        "Do we still use Dagster?",
        "We plan to drop Dagster next quarter.",
        "If Dagster breaks again we'll drop it.",
        "打算不用 Dagster 了",
        "要是 Dagster 再出问题就下线它",
        "We don't use Airflow anymore.",
    ],
)
def test_a_question_a_plan_a_condition_or_another_value_retires_nothing(
    tmp_path: Path, look_alike: str
) -> None:
    assert _truths(tmp_path, [ORCHESTRATOR, look_alike]) == [ORCHESTRATOR, look_alike]


def test_a_value_held_by_two_truths_is_ambiguous_when_the_denial_names_no_subject(tmp_path: Path) -> None:
    lineage = "Asset lineage is tracked in Dagster."
    assert _truths(tmp_path, [ORCHESTRATOR, lineage, "Dagster was dropped."]) == [
        ORCHESTRATOR,
        lineage,
        "Dagster was dropped.",
    ]


def test_of_two_holders_only_the_one_whose_words_the_denial_names_is_retired(tmp_path: Path) -> None:
    lineage = "Asset lineage is tracked in Dagster."
    denial = "Dagster no longer orchestrates our data pipelines."
    assert _truths(tmp_path, [ORCHESTRATOR, lineage, denial]) == [lineage, denial]


# --- the value first --------------------------------------------------------------------------------------------

DASHBOARD = "The metrics dashboard is Grafana."


@pytest.mark.parametrize(
    "denial",
    [
        "Grafana is no longer our metrics dashboard.",
        "Grafana got retired; dashboards live in Superset now.",
        "Grafana was replaced, the dashboards are in Superset now.",
    ],
)
def test_a_denial_with_the_value_as_its_grammatical_subject_retires_the_truth(
    tmp_path: Path, denial: str
) -> None:
    assert _truths(tmp_path, [DASHBOARD, denial]) == [denial]


def test_the_value_first_about_another_subject_retires_nothing(tmp_path: Path) -> None:
    denial = "We don't use Grafana for on-call alerts."
    assert _truths(tmp_path, [DASHBOARD, denial]) == [DASHBOARD, denial]


def test_a_passive_that_brings_the_value_in_is_no_denial() -> None:
    assert not denies("The release is signed off by Grafana.", "grafana")
    assert denies("Grafana got pulled from production.", "grafana")
    assert not denies("Grafana was migrated from Kibana.", "grafana")
    assert not denies("Kibana was replaced by Grafana.", "grafana")  # the replaced one is Kibana
    assert denies("Kibana was replaced by Grafana.", "kibana")


# --- a Chinese verb around the value, a broader subject -----------------------------------------------------------

QUEUE = "后台的消息队列是 RocketMQ"


@pytest.mark.parametrize("denial", ["后台不用 RocketMQ 了，换成 Pulsar", "后台的队列不走 RocketMQ 了"])
def test_a_part_of_the_stored_subject_with_the_value_as_an_object_retires_it(
    tmp_path: Path, denial: str
) -> None:
    assert _truths(tmp_path, [QUEUE, denial]) == [denial]


def test_a_subject_the_segmenter_cuts_into_characters_still_names_the_stored_one(tmp_path: Path) -> None:
    scheduler = "后端的任务调度是 Quartz"
    denial = "后端不用 Quartz 了，换成 Temporal"
    assert _truths(tmp_path, [scheduler, denial]) == [denial]
    assert _truths(tmp_path / "twin", [scheduler, "报表不用 Quartz 了"]) == [scheduler, "报表不用 Quartz 了"]


@pytest.mark.parametrize("denial", ["报表服务不用 RocketMQ 了", "后台是不是不用 RocketMQ 了？"])
def test_another_subject_or_a_question_with_that_value_retires_nothing(tmp_path: Path, denial: str) -> None:
    assert _truths(tmp_path, [QUEUE, denial]) == [QUEUE, denial]


# `消息队列不走 A 了` names the subject but not the component that owns the stored one (memdeny4): it retires
# that fact while it is the scope's only one on the subject; beside our own queue it may be about ours
def test_a_denial_without_the_owner_retires_a_component_fact_only_when_nothing_else_is_on_its_subject(
    tmp_path: Path,
) -> None:
    denial = "消息队列不走 RocketMQ 了"
    assert _truths(tmp_path, [QUEUE, denial]) == [denial]
    ours = "消息队列是 Kafka"
    assert _truths(tmp_path / "twin", [QUEUE, ours, denial]) == [QUEUE, ours, denial]


# --- the policy alone ---------------------------------------------------------------------------------------------


def test_another_version_of_the_stored_value_is_not_its_denial() -> None:
    truths = [("a", "The service runtime is Node 20.")]
    assert retired(truths, "We no longer run Node 18.") == []
    assert retired(truths, "We no longer run Node 20.") == ["a"]


def test_a_value_in_the_stored_subject_is_not_the_value_denied() -> None:
    truths = [("a", "Grafana alerts go to PagerDuty.")]
    assert retired(truths, "Grafana is gone.") == []
    assert retired(truths, "PagerDuty is gone.") == ["a"]


def test_a_bare_denial_leaves_a_component_fact_when_another_truth_is_on_its_subject() -> None:
    truths = [("a", "移动端的推送服务是极光"), ("b", "推送服务是个推")]
    assert retired(truths, "极光下线了") == []
    assert retired(truths, "移动端不用极光了") == ["a"]
    assert retired(truths[:1], "极光下线了") == ["a"]  # the scope's one fact on that subject (memdeny4)


def test_a_denial_naming_the_subject_but_not_the_owner_leaves_another_projects_fact() -> None:
    truths = [("a", "Vega 项目那边的推送服务是极光")]
    assert retired(truths, "推送服务不用极光了") == []
    assert retired(truths, "Vega 项目的推送服务不用极光了") == ["a"]
