"""Issue 37 (memstale3): grammar rules of the claim parser for wordings the earlier rounds never met. Each test
is named for the rule it proves; the subjects and values are not the eval's."""

from __future__ import annotations

import pytest

from paicli.memory.relation import relation
from paicli.memory.subject import Relation, claim_of

STORED_EN = "The message queue is Kafka."
STORED_ZH = "缓存服务用 Redis"


def _reading(text: str) -> tuple[str, str, bool]:
    reading = claim_of(text).readings[0]
    assert reading.subject is not None, text
    return reading.subject.render(), reading.value, reading.negated


@pytest.mark.parametrize(
    "text", ["The message queue has become Pulsar.", "The message queue has remained Pulsar."]
)
def test_a_perfect_auxiliary_before_a_linking_verb_leaves_the_linking_verb_the_predicate(text: str) -> None:
    assert _reading(text) == ("message queue", "pulsar", False)
    assert relation(STORED_EN, text) == Relation("changed", True)


@pytest.mark.parametrize(
    "text", ["Pulsar is now the message queue.", "Pulsar is currently the message queue."]
)
def test_an_adverb_between_the_copula_and_the_determiner_keeps_the_sentence_reversible(text: str) -> None:
    assert any(
        r.reverse and r.subject is not None and r.subject.render() == "message queue" and r.value == "pulsar"
        for r in claim_of(text).readings
    )
    assert relation(STORED_EN, text).kind == "changed"


def test_a_verbless_change_to_a_value_names_its_subject_after_for() -> None:
    assert _reading("Back to Kafka for the message queue.") == ("message queue", "kafka", False)
    assert relation("The message queue is Pulsar.", "Back to Kafka for the message queue.").kind == "changed"
    assert not claim_of("Back to the drawing board.").readings  # no `for the S`: no claim


@pytest.mark.parametrize(
    "text",
    [
        "From this sprint on the message queue is Pulsar.",
        "Starting next week the message queue is Pulsar.",
        "Since Monday the message queue is Pulsar.",
    ],
)
def test_an_english_time_frame_that_opens_the_clause_is_no_part_of_the_subject(text: str) -> None:
    assert _reading(text) == ("message queue", "pulsar", False)
    assert relation(STORED_EN, text) == Relation("changed", True)


def test_a_chinese_verb_of_changing_without_a_complement_names_the_new_value() -> None:
    assert _reading("缓存服务换 Memcached") == ("缓存服务", "memcached", False)
    assert relation(STORED_ZH, "Redis 下线了，缓存服务换 Memcached").kind == "changed"
    assert all(r.value != "了" for r in claim_of("缓存服务换了个新的").readings)  # 换 + aspect: no value


@pytest.mark.parametrize("text", ["缓存服务停止使用 Redis", "缓存服务已经停止 Redis 了"])
def test_a_chinese_verb_of_ceasing_denies_the_value_after_it(text: str) -> None:
    subject, value, negated = _reading(text)
    assert (subject, value, negated) == ("缓存服务", "redis", True)
    assert relation(STORED_ZH, text).kind == "changed"


def test_a_subject_before_the_disposal_ba_makes_its_object_the_old_value() -> None:
    claim = claim_of("缓存服务把 Redis 换成了 Memcached")
    assert _reading("缓存服务把 Redis 换成了 Memcached") == ("缓存服务", "memcached", False)
    assert "redis" in claim.denied
    assert _reading("缓存服务这边已经把 Redis 撤掉了") == ("缓存服务", "redis", True)
    # no subject before 把: its object is the subject, as before
    assert _reading("我们把缓存服务换成 Memcached") == ("缓存服务", "memcached", False)


@pytest.mark.parametrize(
    ("text", "subject", "new", "old"),
    [
        ("Memcached替代Redis做缓存服务", "缓存服务", "memcached", "redis"),
        ("16替代8做工作线程数", "工作线程数", "16", "8"),
    ],
)
def test_a_chinese_verb_of_replacing_is_a_predicate_and_its_role_names_the_subject(
    text: str, subject: str, new: str, old: str
) -> None:
    claim = claim_of(text)
    assert _reading(text) == (subject, new, False)
    assert old in claim.denied


@pytest.mark.parametrize(
    "text", ["The message queue we picked is Pulsar.", "The message queue they chose runs on Pulsar."]
)
def test_a_relative_clause_after_the_subject_is_no_part_of_it(text: str) -> None:
    assert _reading(text) == ("message queue", "pulsar", False)
    assert relation(STORED_EN, text) == Relation("changed", True)


@pytest.mark.parametrize(
    "text",
    ["The message queue is Pulsar instead of Kafka.", "The message queue is now Pulsar rather than Kafka."],
)
def test_a_value_followed_by_instead_of_or_rather_than_replaces_what_follows(text: str) -> None:
    assert _reading(text) == ("message queue", "pulsar", False)
    assert "kafka" in claim_of(text).denied
    assert relation(STORED_EN, text).kind == "changed"


@pytest.mark.parametrize(
    "text", ["The message queue — no longer Kafka.", "Message queue — not Kafka any longer."]
)
def test_a_verbless_denial_after_a_dash_takes_the_subject_before_the_dash(text: str) -> None:
    claim = claim_of(text)
    assert _reading(text) == ("message queue", "kafka", True)
    assert claim.stated  # it links a subject to a value: a statement the extraction may keep
    assert relation(STORED_EN, text).kind == "changed"
    # another project's queue is another subject: the denial does not reach it
    assert relation("For the Orion project, the message queue is Kafka.", text).kind == "none"


@pytest.mark.parametrize(
    "text",
    ["The message queue hasn't been Kafka for a while.", "The message queue hadn't been Kafka for weeks."],
)
def test_a_negative_perfect_contraction_denies_and_a_duration_after_for_names_no_subject(text: str) -> None:
    assert _reading(text) == ("message queue", "kafka", True)
    assert relation(STORED_EN, text) == Relation("changed", True)


def test_a_value_ends_at_a_duration_after_for() -> None:
    assert _reading("The message queue is Pulsar for now.") == ("message queue", "pulsar", False)
    # `for the S` still names the subject
    assert _reading("We're back to Kafka for the message queue.") == ("message queue", "kafka", False)


def test_an_as_for_topic_gives_its_subject_to_the_clause_after_it() -> None:
    text = "As for the on-call owner, it's Li Lei."
    assert _reading(text) == ("on call owner", "lilei", False)
    assert relation(text, "On-call owner is Han Mei since Monday.").kind == "changed"


def test_a_copula_before_a_chinese_verb_of_replacing_stays_the_predicate() -> None:
    claim = claim_of("缓存服务用 Memcached 替换了 Redis")
    assert _reading("缓存服务用 Memcached 替换了 Redis") == ("缓存服务", "memcached", False)
    assert "redis" in claim.denied


def test_a_verbless_return_names_its_subject_before_back_to() -> None:
    assert _reading("message queue back to Kafka 了") == ("message queue", "kafka", False)
    assert relation("message queue 是 Pulsar", "message queue back to Kafka 了") == Relation("changed", True)


def test_a_value_that_is_back_as_the_subject_reads_both_ways() -> None:
    text = "Kafka is back as the message queue."
    assert any(r.reverse and r.value == "kafka" for r in claim_of(text).readings)
    assert relation("The message queue is Pulsar.", text).kind == "changed"


@pytest.mark.parametrize("text", ["缓存服务不会再是 Redis 了", "缓存服务不要再用 Redis 了"])
def test_a_chinese_negative_modal_denies_the_value(text: str) -> None:
    assert _reading(text) == ("缓存服务", "redis", True)
    assert relation(STORED_ZH, text).kind == "changed"


@pytest.mark.parametrize(
    ("text", "old"),
    [("缓存服务并非 Redis，而是 Memcached", "redis"), ("cache not Redis，而是 Memcached", "redis")],
)
def test_a_verbless_denial_with_a_contrast_names_the_old_and_the_new_value(text: str, old: str) -> None:
    claim = claim_of(text)
    assert old in claim.denied
    assert any(r.value == "memcached" and not r.negated for r in claim.readings)


def test_a_verb_of_ceasing_followed_by_a_particle_of_motion_is_a_return() -> None:
    text = "We've gone back to Kafka for the message queue."
    assert _reading(text) == ("message queue", "kafka", False)
    assert relation("The message queue isn't Kafka, it's Pulsar.", text) == Relation("changed", True)
    assert _reading("Kafka is gone from the message queue.")[1:] == ("kafka", True)


def test_a_chinese_verb_of_changing_glued_to_its_object_is_split() -> None:
    text = "Redis 下线了，缓存服务换飞书缓存"
    assert any(
        r.subject is not None and r.subject.render() == "缓存服务" and r.value == "飞书缓存"
        for r in claim_of(text).readings
    )


@pytest.mark.parametrize(
    "text", ["ok so back to Kafka for the message queue", "Okay, the message queue is Kafka."]
)
def test_a_discourse_marker_before_a_statement_is_no_part_of_it(text: str) -> None:
    assert _reading(text) == ("message queue", "kafka", False)
