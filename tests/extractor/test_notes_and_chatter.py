"""Issue 37: a turn's chatter behind an ordinal label is never a note; a note followed by a remark is still
worth asking about; a label that is nothing but a stored subject belongs to the user's own note."""

from __future__ import annotations

import pytest

from paicli.memory.extract_rules import judge_quotes, safe_input, worth_asking


def _accepted_spans(text: str) -> list[str]:
    """Every span a model could quote (5+ characters) that the hardened rules would keep."""
    safe = safe_input(text)
    spans = sorted({safe[i:j] for i in range(len(safe)) for j in range(i + 5, len(safe) + 1)})
    return [v.quote for v in judge_quotes(spans, safe) if v.accepted]


@pytest.mark.parametrize(
    "chatter",
    [
        "第 0 轮：看看 src",
        "第 3 轮：跑一下测试",
        "第 1 轮：随便聊聊",
        "第 2 轮：src 看一下",
        "Round 2: quick look at src",
    ],
)
def test_a_turns_chatter_behind_an_ordinal_label_passes_no_span(chatter: str) -> None:
    assert _accepted_spans(chatter) == []
    assert not worth_asking(safe_input(chatter))


def test_a_label_that_names_a_thing_still_makes_a_note() -> None:
    assert _accepted_spans("Release approver: Zhou Min") == ["Release approver: Zhou Min"]


@pytest.mark.parametrize(
    "text",
    [
        "session store: Valkey，FYI。",
        "on-call owner: 张伟，PR 里按这个改。",
        "The session store is Valkey. Thanks!",
    ],
)
def test_a_declaration_followed_by_a_remark_is_worth_asking(text: str) -> None:
    assert worth_asking(safe_input(text))


def _reason(text: str, quote: str, corrects: bool) -> str | None:
    return judge_quotes([quote], safe_input(text), True, lambda _: corrects)[0].reason


def test_a_label_that_is_a_stored_subject_is_the_users_own() -> None:
    quote = "Session store: Redis is out, Valkey is in."
    assert _reason(quote, quote, corrects=True) is None
    assert _reason(quote, quote, corrects=False) == "reported"  # with nothing stored: whose label is it?


def test_a_heads_up_phrase_is_the_users_own_framing_whatever_is_stored() -> None:
    quote = "Heads up about the session store: Redis is not used anymore."
    assert _reason(quote, quote, corrects=True) is None
    assert _reason(quote, quote, corrects=False) is None  # a phrase of the user's, no one's name (memauto4)


def test_a_speakers_name_is_never_taken_for_the_subject() -> None:
    assert (
        _reason("李四：不对，用空格", "李四：不对，用空格", corrects=False) == "reported"
    )  # nothing stored on 李四
    # even when the statement corrects a stored fact, a statement with a subject of its own is under a name
    text = "Bob: our session store is Valkey."
    assert _reason(text, text, corrects=True) == "reported"


@pytest.mark.parametrize("label", ["Quick note: ", "Just a heads up that "])
def test_an_own_voice_label_is_the_users_even_when_its_word_is_also_a_verb(label: str) -> None:
    quote = "The session store is Valkey"
    assert _reason(label + quote + ".", quote, corrects=False) is None


def test_a_label_that_points_at_other_material_is_still_foreign() -> None:
    text = "See the note below: The session store is Valkey."
    assert _reason(text, "The session store is Valkey", corrects=False) is not None
