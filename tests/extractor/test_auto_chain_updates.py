"""Issue 37 (memauto3): a chain's update said in passing reaches the store through the automatic path, and the
same words in a turn that is no statement of the user's still store nothing. Each rule sits beside its twin.

The model here quotes a given span of the turn, as a careful extractor would; the rules after it decide."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.testing.scripted_llm import ScriptedLLM
from tests.extractor.quoting import quoting_manager


def _auto(tmp_path: Path, turn: str, quote: str, stored: tuple[str, ...] = ()) -> list[str]:
    """What the automatic path stores when the model quotes `quote` from `turn`, after `stored` were saved."""
    llm = ScriptedLLM()
    mgr = quoting_manager(tmp_path, llm)
    llm.default_reply = lambda _: json.dumps({"facts": [{"quote": quote}]}, ensure_ascii=False)
    for fact in stored:
        assert mgr.store_fact(fact).written
    return [entry.content for entry in mgr.extract_facts_from_user_turn(turn)]


# ---- a temporary-looking word inside the name of the thing that is given a value ----


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("Alert routing is handled by Opsgenie.", "Alert routing is handled by Opsgenie"),
        ("告警规则由 Prometheus 管理", "告警规则由 Prometheus 管理"),
        ("The today's-picks widget is served by the recs service.", "The today's-picks widget is served by the recs service"),
    ],
)  # fmt: skip
def test_a_time_word_inside_the_subjects_name_dates_nothing(tmp_path: Path, turn: str, quote: str) -> None:
    assert _auto(tmp_path, turn, quote) == [quote]


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("Alert routing is handled by Opsgenie today.", "Alert routing is handled by Opsgenie today"),
        ("告警今天由小王处理", "告警今天由小王处理"),
        ("Today's build is served by the recs service.", "Today's build is served by the recs service"),
        ("Today images are pushed to Quay because GHCR is down.", "Today images are pushed to Quay"),
    ],
)
def test_a_time_word_outside_the_name_still_marks_a_one_off(tmp_path: Path, turn: str, quote: str) -> None:
    assert _auto(tmp_path, turn, quote) == []


# ---- the user's own preamble before the update ----

_QUEUE = ("The job queue is Sidekiq",)


@pytest.mark.parametrize(
    ("turn", "quote", "stored"),
    [
        ("Quick note for later: the job queue is Celery now.", "the job queue is Celery now", _QUEUE),
        ("Worth remembering: the job queue is Celery now.", "the job queue is Celery now", _QUEUE),
        ("Update, default branch: develop", "default branch: develop", ("Default branch: master",)),
        ("顺便记一下：缓存服务现在用 Redis 7", "缓存服务现在用 Redis 7", ("缓存服务用的是 Memcached",)),
        ("Honestly we're not using Celery for the job queue anymore.", "we're not using Celery for the job queue anymore", ("The job queue is Celery",)),
    ],
)  # fmt: skip
def test_an_update_after_the_users_own_preamble_is_stored(
    tmp_path: Path, turn: str, quote: str, stored: tuple[str, ...]
) -> None:
    assert _auto(tmp_path, turn, quote, stored) == [quote]


@pytest.mark.parametrize(
    ("turn", "quote", "stored"),
    [
        ("Error while running: the job queue is Celery now.", "the job queue is Celery now", _QUEUE),
        ("Note from the vendor: the job queue is Celery now.", "the job queue is Celery now", _QUEUE),
        ("The vendor says: the job queue is Celery now.", "the job queue is Celery now", _QUEUE),
        ("Update the README, the job queue is Celery now.", "the job queue is Celery now", _QUEUE),
        ("记住：缓存服务现在用 Redis 7", "缓存服务现在用 Redis 7", ("缓存服务用的是 Memcached",)),
        ("Apparently the job queue is Celery now.", "the job queue is Celery now", _QUEUE),
        ("Supposedly the job queue is Celery now.", "the job queue is Celery now", _QUEUE),
        ("Hopefully the job queue is Celery by then.", "the job queue is Celery by then", _QUEUE),
    ],
)  # fmt: skip
def test_a_source_a_request_or_a_hedge_before_the_update_still_stores_nothing(
    tmp_path: Path, turn: str, quote: str, stored: tuple[str, ...]
) -> None:
    assert _auto(tmp_path, turn, quote, stored) == []


def test_an_adverb_before_a_bare_noun_may_be_the_subjects_own_word(tmp_path: Path) -> None:
    # `Nightly builds`: a quote cut after `Nightly` loses part of its subject; the whole sentence is kept
    turn = "Nightly builds run on Buildkite."
    assert _auto(tmp_path, turn, "builds run on Buildkite") == []
    assert _auto(tmp_path / "whole", turn, "Nightly builds run on Buildkite") == [
        "Nightly builds run on Buildkite"
    ]


# ---- a bare note whose value is an identifier ----

_REGION = ("Primary region: eu-west-1",)


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("Primary region: us-east-2", "Primary region: us-east-2"),
        ("Heads-up — primary region: us-east-2", "primary region: us-east-2"),
    ],
)
def test_a_bare_note_with_a_hyphenated_identifier_is_stored(tmp_path: Path, turn: str, quote: str) -> None:
    assert _auto(tmp_path, turn, quote, _REGION) == [quote]


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("Here is what the script printed:\n```\nprimary region: ap-south-1\n```", "primary region: ap-south-1"),
        ("> primary region: ap-south-1\nis that stale?", "primary region: ap-south-1"),
        ("Is the primary region: us-east-2?", "primary region: us-east-2"),
        ("Bob: we moved the primary region to us-east-2\nAlice: ok", "we moved the primary region to us-east-2"),
    ],
)  # fmt: skip
def test_the_same_note_in_output_a_quote_a_question_or_a_transcript_stores_nothing(
    tmp_path: Path, turn: str, quote: str
) -> None:
    assert _auto(tmp_path, turn, quote, _REGION) == []


# ---- the chain as a whole: A, then B in passing, then B is over ----


def test_an_update_in_passing_then_its_denial_leave_only_the_denial_true(tmp_path: Path) -> None:
    llm = ScriptedLLM()
    mgr = quoting_manager(tmp_path, llm)
    assert mgr.store_fact("缓存服务用的是 Memcached").written
    for turn, quote in (
        ("顺便记一下：缓存服务现在用 Redis 7", "缓存服务现在用 Redis 7"),
        ("对了，缓存服务已经不用 Redis 了", "缓存服务已经不用 Redis 了"),
    ):
        llm.default_reply = lambda _, q=quote: json.dumps({"facts": [{"quote": q}]}, ensure_ascii=False)
        assert [e.content for e in mgr.extract_facts_from_user_turn(turn)] == [quote]
    live = [e.content for e in mgr.store.get_all(mgr.project_key) if evolve.is_truth(e)]
    assert live == ["缓存服务已经不用 Redis 了"]


# ---- a second clause joined by a coordinator is a clause of its own ----


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("The ORM is SQLAlchemy, and migrations are done with Alembic.", "migrations are done with Alembic"),
        ("ORM 用的是 SQLAlchemy，另外数据库迁移用 Alembic", "数据库迁移用 Alembic"),
        ("Big change after the refactor: the ORM is Tortoise, and the migrations tool is Aerich.", "the migrations tool is Aerich"),
    ],
)  # fmt: skip
def test_a_coordinated_clause_is_quoted_on_its_own(tmp_path: Path, turn: str, quote: str) -> None:
    assert _auto(tmp_path, turn, quote) == [quote]


@pytest.mark.parametrize(
    "turn",
    [
        "If the ORM is SQLAlchemy, and migrations are done with Alembic, we are fine.",
        "The README says the ORM is SQLAlchemy, and migrations are done with Alembic.",
        "Please fix the ORM, and migrations are done with Alembic.",
        "Today the ORM is broken, and migrations are done with Alembic.",
        "If the ORM is SQLAlchemy and migrations are done with Alembic, we are fine.",
    ],
)
def test_a_coordinated_clause_inside_a_condition_a_source_a_request_or_a_one_off_stores_nothing(
    tmp_path: Path, turn: str
) -> None:
    assert _auto(tmp_path, turn, "migrations are done with Alembic") == []


# ---- the order a turn's quotes are written in ----


def _chain(tmp_path: Path, stored: str, turn: str, quotes: list[str]) -> tuple[list[str], list[str]]:
    llm = ScriptedLLM()
    mgr = quoting_manager(tmp_path, llm)
    assert mgr.store_fact(stored).written
    llm.default_reply = lambda _: json.dumps({"facts": [{"quote": q} for q in quotes]}, ensure_ascii=False)
    saved = [e.content for e in mgr.extract_facts_from_user_turn(turn)]
    return saved, [e.content for e in mgr.store.get_all(mgr.project_key) if evolve.is_truth(e)]


@pytest.mark.parametrize(
    ("stored", "turn", "quotes", "live"),
    [
        ("CI runs on Jenkins", "CI runs on GitHub Actions now, we moved off Jenkins.", ["CI runs on GitHub Actions now", "we moved off Jenkins"], ["CI runs on GitHub Actions now"]),
        ("缓存用 Memcached", "缓存现在用 Redis，不再用 Memcached 了", ["缓存现在用 Redis", "不再用 Memcached 了"], ["缓存现在用 Redis"]),
    ],
)  # fmt: skip
def test_the_new_value_of_a_turn_is_written_after_its_denial_of_the_old(
    tmp_path: Path, stored: str, turn: str, quotes: list[str], live: list[str]
) -> None:
    saved, truths = _chain(tmp_path, stored, turn, quotes)
    assert saved == quotes  # reported in the turn's order
    assert truths == live


def test_a_denial_of_another_subject_in_the_turn_stays_a_truth_of_its_own(tmp_path: Path) -> None:
    quotes = ["The ORM is Tortoise now", "we dropped Celery for background jobs"]
    saved, truths = _chain(tmp_path, "The ORM is SQLAlchemy", "The ORM is Tortoise now, and we dropped Celery for background jobs.", quotes)  # fmt: skip
    assert saved == quotes
    assert sorted(truths) == sorted(quotes)


# ---- a request for the listener's attention hands over the statement after it ----

_TRACKER = ("The error tracker is Sentry",)


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("Please note the error tracker is Rollbar now.", "the error tracker is Rollbar now"),
        ("Please note: the error tracker is Rollbar now.", "the error tracker is Rollbar now"),
        (
            "Keep in mind we are not on Sentry for errors these days.",
            "we are not on Sentry for errors these days",
        ),
    ],
)
def test_an_update_after_a_request_for_attention_is_stored(tmp_path: Path, turn: str, quote: str) -> None:
    assert _auto(tmp_path, turn, quote, _TRACKER) == [quote]


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("Please note down that the error tracker is Rollbar now.", "the error tracker is Rollbar now"),
        ("Please check whether the error tracker is Rollbar now.", "the error tracker is Rollbar now"),
        ("Please note the following: the error tracker is Rollbar now.", "the error tracker is Rollbar now"),
        ("Please note the error tracker is Rollbar today.", "the error tracker is Rollbar today"),
        ("Keep in mind the error tracker might be Rollbar soon.", "the error tracker might be Rollbar soon"),
    ],
)  # fmt: skip
def test_a_task_material_a_one_off_or_a_guess_after_please_stores_nothing(
    tmp_path: Path, turn: str, quote: str
) -> None:
    assert _auto(tmp_path, turn, quote, _TRACKER) == []


# ---- short labels of the user's own announcements ----

_STAGING = ("The staging database is Postgres 13",)
_STAGING_ZH = ("预发数据库是 Postgres 13",)


@pytest.mark.parametrize(
    ("label", "quote", "stored"),
    [
        ("Just a quick one: ", "The staging database is Aurora now", _STAGING),
        ("Context: ", "The staging database is Aurora now", _STAGING),
        ("Good news: ", "The staging database is Aurora now", _STAGING),
        ("FWIW ", "The staging database is Aurora now", _STAGING),
        ("有个变化：", "预发数据库现在是 Aurora", _STAGING_ZH),
        ("补充一点：", "预发数据库现在是 Aurora", _STAGING_ZH),
        ("小提示：", "预发数据库现在是 Aurora", _STAGING_ZH),
    ],
)
def test_an_update_under_the_users_own_short_label_is_stored(
    tmp_path: Path, label: str, quote: str, stored: tuple[str, ...]
) -> None:
    assert _auto(tmp_path, label + quote, quote, stored) == [quote]


@pytest.mark.parametrize(
    ("label", "quote", "stored"),
    [
        ("Bob: ", "The staging database is Aurora now", _STAGING),
        ("News from the vendor: ", "The staging database is Aurora now", _STAGING),
        ("Context below: ", "The staging database is Aurora now", _STAGING),
        ("Some context from the logs: ", "The staging database is Aurora now", _STAGING),
        ("张伟：", "预发数据库现在是 Aurora", _STAGING_ZH),
        ("日志提示：", "预发数据库现在是 Aurora", _STAGING_ZH),
        ("下面是更新：", "预发数据库现在是 Aurora", _STAGING_ZH),
    ],
)
def test_the_same_update_under_a_speaker_or_a_source_stores_nothing(
    tmp_path: Path, label: str, quote: str, stored: tuple[str, ...]
) -> None:
    assert _auto(tmp_path, label + quote, quote, stored) == []
