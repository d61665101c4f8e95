"""Issue 37: corrections in any wording. The claim grammar reads verbs of ceasing on either side of a value,
replacing verbs whose subject is the new value, role clauses and time adverbials; what it cannot place, the value
slots (`mentions.py`) still catch; the store ends every chain with one truth."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.config.run_values import MemoryValues
from paicli.memory import evolve
from paicli.memory.manager import MemoryManager
from paicli.memory.mentions import corrects_stored
from paicli.memory.relation import relation
from paicli.memory.subject import claim_of

from .helpers import CLOCK, env, memory


def _main(text: str) -> tuple[str, str, bool]:
    """(subject, value, negated) of the fact's first reading."""
    reading = claim_of(text).readings[0]
    assert reading.subject is not None, text
    return reading.subject.render(), reading.value, reading.negated


@pytest.mark.parametrize(
    ("text", "subject", "value", "negated"),
    [
        ("构建工具方面，Maven 已经停用了", "构建工具", "maven", True),  # a verb of ceasing after the value
        ("线程池那个 64 废弃了", "线程池", "64", True),
        ("staging cluster 这边 k8s-old 已经 deprecated 了", "staging cluster", "k8s-old", True),
        ("Redis has been dropped as the session store.", "session store", "redis", True),
        ("Redis was removed from the session store.", "session store", "redis", True),
        ("Session store: Redis is out, Valkey is in.", "session store", "redis", True),
        ("For the session store, Redis no longer applies.", "session store", "redis", True),
        ("Memcached 不再作为会话存储", "会话存储", "memcached", True),  # a role word, negated
        ("Valkey replaced Redis as the session store.", "session store", "valkey", False),
        ("Valkey took over from Redis as the session store.", "session store", "valkey", False),
        ("Valkey 取代了 Redis，成为新的会话存储", "会话存储", "valkey", False),  # the role clause names the S
        ("会话存储用 Valkey 替换了 Redis", "会话存储", "valkey", False),
        ("Our session store has always been Redis.", "session store", "redis", False),
        ("The session store is Valkey since Monday.", "session store", "valkey", False),
        ("The session store is Valkey these days.", "session store", "valkey", False),
        ("会话存储最近改成了 Valkey", "会话存储", "valkey", False),  # a time adverb is no part of the subject
    ],
)
def test_the_grammar_reads_the_value_and_whether_it_is_over(
    text: str, subject: str, value: str, negated: bool
) -> None:
    assert _main(text) == (subject, value, negated)


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("Valkey replaced Redis as the session store.", "redis"),
        ("Valkey took over from Redis as the session store.", "redis"),
        ("Valkey 取代了 Redis，成为新的会话存储", "redis"),
        ("会话存储用 Valkey 替换了 Redis", "redis"),
    ],
)
def test_a_replacing_verb_denies_its_object(text: str, gone: str) -> None:
    assert gone in claim_of(text).denied


def test_a_segmenter_that_glues_the_subjects_last_character_to_the_verb_still_matches() -> None:
    # jieba cuts `代码评审人切到` as 代码 / 评审 / 人切 / 到: the subject comes out as `代码评审`
    assert relation("代码评审人切到赵磊了", "评审人改为陈静").kind == "changed"
    assert relation("前端版本是 18", "后端版本是 20").kind == "none"  # two characters are never cut that way


@pytest.mark.parametrize(
    "incoming",
    [
        "We replaced the old session store Redis with Valkey.",
        "Session store, formerly Redis: Valkey.",
        "Heads up about the session store: Redis is not used anymore.",
    ],
)
def test_a_correction_the_parser_cannot_place_is_found_by_the_stored_value(incoming: str) -> None:
    assert corrects_stored("The session store is Redis.", incoming)


@pytest.mark.parametrize(
    ("stored", "incoming"),
    [
        ("The session store is Redis.", "The session store is Redis, not Memcached."),  # restates it
        ("The session store is Redis.", "The cache layer no longer uses Redis."),  # another subject
        ("For the billing service, the session store is Redis.", "We replaced Redis with Valkey."),
        ("The session store is Redis.", "For the billing service, the session store dropped Redis."),
        ("The session store is Redis.", "Redis and the session store are documented in the wiki."),
    ],
)
def test_the_stored_value_alone_is_no_correction(stored: str, incoming: str) -> None:
    assert not corrects_stored(stored, incoming)


def _manager(tmp_path: Path) -> MemoryManager:
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    return MemoryManager(memory(tmp_path / "mem"), root, MemoryValues.parse(env()), clock=CLOCK)


def _truths(mgr: MemoryManager) -> list[str]:
    return sorted(e.content for e in mgr.list_all() if evolve.is_truth(e))


@pytest.mark.parametrize(
    "chain",
    [
        ("The session store is Redis.", "Valkey replaced Redis as the session store."),
        ("会话存储是 Redis", "Valkey 取代了 Redis，成为新的会话存储"),
        ("会话存储是 Redis", "会话存储那个 Redis 废弃了"),
        ("The session store is Redis.", "Redis has been dropped as the session store."),
        ("The session store is Redis.", "For the session store, Redis no longer applies."),
        ("session store 是 Redis", "session store 这边 Redis 已经 deprecated 了"),
        (
            "The session store is Redis.",
            "We replaced the old session store Redis with Valkey.",
            "The session store is KeyDB now.",
        ),
        (
            "Session store = Redis",
            "Session store: Redis is out, Valkey is in.",
            "The session store is KeyDB.",
        ),
    ],
)
def test_each_chain_ends_with_its_last_statement_as_the_only_truth(
    tmp_path: Path, chain: tuple[str, ...]
) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("For the billing service, the session store is Redis.")  # another owner: never touched
    for text in chain:
        mgr.store_fact(text)
    assert _truths(mgr) == sorted([chain[-1], "For the billing service, the session store is Redis."])
