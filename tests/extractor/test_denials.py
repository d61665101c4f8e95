"""Issue 37 (memstale2): a denial at the end of a statement reaches the store through automatic extraction. A
change that names only the value it left (`moved off A`) denies A; a dash after the user's own label ends the
label, so `Update — …` asks nobody to update anything; a note that denies its value (`S: not A anymore`) declares
like one that gives it."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.memory import evolve
from paicli.memory.extract_rules import judge_quotes, safe_input, worth_asking
from paicli.memory.manager import MemoryManager
from paicli.memory.subject import claim_of
from tests.extractor.quoting import quoting_manager


def _reading(text: str) -> tuple[str, str, bool]:
    reading = claim_of(text).readings[0]
    assert reading.subject is not None, text
    return reading.subject.render(), reading.value, reading.negated


@pytest.mark.parametrize(
    "text",
    [
        "The session store has moved off Redis.",
        "We migrated the session store off Redis.",
        "Quick update: the session store moved away from Redis.",
        "session store 已经 moved off Redis 了",
    ],
)
def test_a_change_that_names_only_the_value_it_left_denies_it(text: str) -> None:
    assert _reading(text) == ("session store", "redis", True)


def test_a_value_in_han_after_an_english_source_word_is_denied_too() -> None:
    assert _reading("release approver 已经 moved off 周敏 了") == ("release approver", "周敏", True)


def test_a_change_with_a_new_value_still_gives_the_new_value() -> None:
    assert _reading("The session store changed from Redis to Valkey.") == ("session store", "valkey", False)
    assert _reading("We moved the session store from Redis to Valkey.") == ("session store", "valkey", False)


def _reason(text: str, quote: str, corrects: bool) -> str | None:
    return judge_quotes([quote], safe_input(text), True, lambda _: corrects)[0].reason


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        (
            "Update — the session store is not Redis anymore.",
            "Update — the session store is not Redis anymore",
        ),
        ("Update — the session store is not Redis anymore.", "the session store is not Redis anymore"),
        ("Update — session store 不再是 Redis", "Update — session store 不再是 Redis"),
        ("Correction - the session store is Valkey.", "the session store is Valkey"),
    ],
)
def test_a_dash_after_the_users_own_label_is_no_task_request(text: str, quote: str) -> None:
    assert worth_asking(safe_input(text))
    assert _reason(text, quote, corrects=True) is None


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("Fix — the port is 8080.", "the port is 8080"),  # a task verb is no label of the user's own
        ("Update — please review the PR, the port is 8080.", "the port is 8080"),
        ("Heads-up - run the tests before merging.", "run the tests before merging"),
    ],
)
def test_a_request_behind_a_dash_is_still_a_request(text: str, quote: str) -> None:
    assert _reason(text, quote, corrects=False) is not None


@pytest.mark.parametrize(
    "text",
    ["Session store: not Redis anymore.", "Session store：not Redis any longer", "会话存储：不再是 Redis"],
)
def test_a_note_that_denies_its_value_declares_it(text: str) -> None:
    assert worth_asking(safe_input(text))
    assert _reason(text, text.rstrip("."), corrects=True) is None


def _manager(tmp_path: Path) -> MemoryManager:
    return quoting_manager(tmp_path)


@pytest.mark.parametrize(
    "denial",
    [
        "Update — the session store is not Redis anymore.",
        "The session store has moved off Redis.",
        "Session store: not Redis anymore.",
        "The session store is Redis no more.",
    ],
)
def test_an_extracted_denial_ends_the_stored_value(tmp_path: Path, denial: str) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("The session store is Valkey.")
    mgr.store_fact("The session store is Redis now.")
    saved = mgr.extract_facts_from_user_turn(denial)
    assert [e.content for e in saved] == [denial.rstrip(".")]
    assert [e.content for e in mgr.list_all() if evolve.is_truth(e)] == [denial.rstrip(".")]
