"""Issue 37 (memstale3): a quote that gives a subject the memory already holds a new value has a subject, whatever
its label looks like: it is worth asking the model about, it is no subject-less remark, and its `S: V` label is
the user's own note even when the subject's name holds a source noun (`log level`, `error budget`)."""

from __future__ import annotations

import pytest

from paicli.memory.extract_rules import judge_quotes, safe_input, worth_asking


def _always(_: str) -> bool:
    return True


def _never(_: str) -> bool:
    return False


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("Service log level: not TRACE anymore. That's all.", "Service log level: not TRACE anymore"),
        ("Error budget: 2%. Thanks!", "Error budget: 2%"),
    ],
)
def test_a_note_on_a_stored_subject_is_kept_only_as_a_correction(turn: str, quote: str) -> None:
    safe = safe_input(turn)
    assert judge_quotes([quote], safe, True, _always)[0].reason is None
    assert judge_quotes([quote], safe, True, _never)[0].reason is not None  # unknown subject: as before


def test_a_turn_that_corrects_a_stored_subject_is_worth_asking() -> None:
    safe = safe_input("Note that new service log level: WARN.")
    assert not worth_asking(safe, True, _never)
    assert worth_asking(safe, True, lambda part: "WARN" in part and ":" in part)


def test_a_stored_subject_does_not_make_foreign_material_a_note() -> None:
    turn = "下面是构建日志：\n[INFO] build ok\n[WARN] cache miss"
    assert judge_quotes(["[WARN] cache miss"], safe_input(turn), True, _always)[0].reason is not None
