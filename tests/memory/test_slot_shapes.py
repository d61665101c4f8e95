"""The slot of a fact read from its shape (memshape2): a bound said as a noun or as a clause, a leading condition,
the verb of a passive or a means clause. Each rule stands beside its must-not twin."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.memory.relation import relation
from paicli.memory.slot_bounds import bound_of
from paicli.memory.subject import claim_of

from .helpers import repo_manager


def _chain(tmp_path: Path, *texts: str) -> list[str]:
    tmp_path.mkdir(exist_ok=True)
    mgr = repo_manager(tmp_path)
    for text in texts:
        mgr.store_fact(text)
    return sorted(e.content for e in mgr.list_all() if evolve.is_truth(e))


# ---- a bound: the thing bounded and the bound's direction, as a noun or as a clause ----


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("The maximum upload size is 20 MB.", "Uploads can be at most 50 MB now."),
        ("The maximum queue length is 1000.", "The queue holds no more than 5000 items now."),
        ("The minimum replica count is 2.", "Replicas must be at least 3 now."),
        ("消息队列的最大长度是 1000", "消息队列现在不超过 5000 条"),
        ("导出文件的大小上限是 50 MB", "导出文件现在最多 200 MB"),
    ],
)
def test_a_bound_said_as_a_clause_changes_the_bound_said_as_a_noun(stored: str, incoming: str) -> None:
    assert relation(stored, incoming).kind == "changed"
    assert relation(incoming, stored).kind == "changed"  # either way round


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("The maximum upload size is 20 MB.", "Uploads must be at least 1 KB now."),  # the other direction
        ("The maximum upload size is 20 MB.", "Thumbnails can be at most 200 KB now."),  # another thing
        (
            "The maximum image thumbnail size is 200 KB.",
            "Images can be at most 5 MB now.",
        ),  # two words of its own
        ("消息队列的最大长度是 1000", "死信队列现在不超过 100 条"),
        ("消息队列的最大长度是 1000", "消息队列现在至少 10 条"),
    ],
)
def test_another_thing_or_the_other_direction_is_another_bound(stored: str, incoming: str) -> None:
    assert relation(stored, incoming).kind == "none"


def test_a_bound_reads_its_thing_from_either_form() -> None:
    noun, clause = (
        bound_of("The maximum queue length is 1000."),
        bound_of("The queue holds no more than 5 items."),
    )
    assert noun is not None and clause is not None
    assert (noun.upper, noun.latin, clause.upper, clause.latin) == (
        True,
        {"queue", "length"},
        True,
        {"queue"},
    )
    assert bound_of("The pool holds at least 2 and at most 8 connections.") is None  # both directions
    assert bound_of("Uploads can be at most as large as the disk allows.") is None  # no amount


def test_a_bound_in_another_form_supersedes_through_the_store_and_its_twin_stays(tmp_path: Path) -> None:
    assert _chain(
        tmp_path / "a", "The maximum upload size is 20 MB.", "Uploads can be at most 50 MB now."
    ) == ["Uploads can be at most 50 MB now."]
    kept = _chain(
        tmp_path / "b", "The maximum upload size is 20 MB.", "Thumbnails can be at most 200 KB now."
    )
    assert kept == ["The maximum upload size is 20 MB.", "Thumbnails can be at most 200 KB now."]


# ---- a leading condition clause is part of the fact, not its subject ----


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        (
            "When the smoke test fails, a ticket goes to the QA board.",
            "When the smoke test fails, a ticket goes to the release board now.",
        ),
        ("磁盘告警时，通知发到 运维群", "磁盘告警时，通知现在发到 存储群"),
    ],
)
def test_the_same_condition_with_a_new_consequence_is_a_change(stored: str, incoming: str) -> None:
    assert relation(stored, incoming).kind == "changed"


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        (
            "When the smoke test fails, a ticket goes to the QA board.",
            "When a canary fails, a ticket goes to the SRE board now.",
        ),
        ("磁盘告警时，通知发到 运维群", "证书告警时，通知现在发到 安全群"),
        ("If the nightly job fails, the alert goes to PagerDuty.", "The alert goes to Opsgenie now."),
    ],
)
def test_another_condition_is_another_fact(stored: str, incoming: str) -> None:
    found = relation(stored, incoming)
    assert found.kind == "none" and found.apart


def test_another_condition_keeps_both_facts_through_the_store(tmp_path: Path) -> None:
    texts = ("磁盘告警时，通知发到 运维群", "证书告警时，通知现在发到 安全群")
    assert _chain(tmp_path, *texts) == sorted(texts)


def test_a_condition_without_a_subject_after_it_is_read_as_before() -> None:
    # `部署的时候，用 Helm`: nothing after the clause names a subject, so the clause itself is the topic
    readings = claim_of("部署的时候，用 Helm").readings
    assert readings and all(r.subject is None or not r.subject.condition for r in readings)


# ---- the verb of a passive or of a means clause is part of a bare subject's slot ----


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("Helm charts are linted with kube-linter.", "Helm charts are linted with chart-testing now."),
        ("接口文档用 Swagger 生成", "接口文档现在用 Redocly 生成"),
        (
            "The default branch is set to main.",
            "The default branch is changed to trunk now.",
        ),  # a change verb
    ],
)
def test_the_same_verb_with_a_new_value_is_a_change(stored: str, incoming: str) -> None:
    assert relation(stored, incoming).kind == "changed"


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("Helm charts are linted with kube-linter.", "Helm charts are packaged with Helmfile now."),
        ("Container images are scanned with Trivy.", "Container images are built with Kaniko now."),
        ("接口文档用 Swagger 生成", "接口文档现在用 Spectral 检查"),
    ],
)
def test_another_verb_on_the_same_subject_is_another_fact(stored: str, incoming: str) -> None:
    found = relation(stored, incoming)
    assert found.kind == "none" and found.apart


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        (
            "The SDK reference is built with TypeDoc.",
            "The SDK reference is generated with API Extractor now.",
        ),
        ("安装包用 Gradle 构建", "安装包现在用 Bazel 打包"),
        ("对象存储用的是 MinIO", "对象存储现在用 Ceph"),  # no verb after the name: nothing to tell apart
    ],
)
def test_a_verb_of_making_in_other_words_or_no_verb_is_the_same_slot(stored: str, incoming: str) -> None:
    found = relation(stored, incoming)
    assert found.kind == "changed" and not found.apart


def test_another_verb_keeps_both_facts_through_the_store(tmp_path: Path) -> None:
    texts = ("Helm charts are linted with kube-linter.", "Helm charts are packaged with Helmfile now.")
    assert _chain(tmp_path, *texts) == sorted(texts)


# ---- a manner stopped and replaced; another thing done the same way ----


def test_a_manner_stopped_and_replaced_supersedes_and_another_thing_stays(tmp_path: Path) -> None:
    stored = "Nightly backups are compressed with gzip."
    new = "We stopped compressing nightly backups with gzip; they are compressed with zstd now."
    assert _chain(tmp_path / "a", stored, new) == [new]
    other = "We stopped compressing log archives with gzip; log archives are compressed with xz now."
    assert _chain(tmp_path / "b", stored, other) == sorted([stored, other])


# ---- a component's own setting ----


def test_a_component_keeps_its_own_slot() -> None:
    stored = "The iPad app's minimum OS version is 15."
    assert relation(stored, "The iPad app's minimum OS version is 16 now.").kind == "changed"
    assert relation(stored, "The Mac app's minimum OS version is 12 now.").kind == "none"
