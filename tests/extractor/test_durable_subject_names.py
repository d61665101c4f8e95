"""Issue 37 (memstale3): a word of time or trouble inside the name of the subject a statement gives a value
(`告警渠道`, `temp directory`) is no sign that the statement is temporary; the same word outside the name still
is."""

from __future__ import annotations

import pytest

from paicli.memory.extract_rules import judge_quotes, safe_input, worth_asking


def _reason(turn: str, quote: str) -> str | None:
    return judge_quotes([quote], safe_input(turn))[0].reason


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("我们的线上告警渠道是钉钉群。", "我们的线上告警渠道是钉钉群"),
        ("另外，支付服务的告警阈值是 5%。", "支付服务的告警阈值是 5%"),
        (
            "The alert channel for the payment service is #pay-oncall.",
            "The alert channel for the payment service is #pay-oncall",
        ),
        ("项目的临时目录是 /data/tmp。", "项目的临时目录是 /data/tmp"),
    ],
)
def test_a_temporary_word_inside_the_subjects_name_does_not_make_the_statement_temporary(
    turn: str, quote: str
) -> None:
    assert _reason(turn, quote) is None


@pytest.mark.parametrize(
    ("turn", "quote"),
    [
        ("今天的值班人是张伟。", "今天的值班人是张伟"),
        ("Right now we are debugging the payment service.", "Right now we are debugging the payment service"),
        ("我们的告警渠道今天临时改成短信。", "我们的告警渠道今天临时改成短信"),
        ("The alert channel is Slack for now.", "The alert channel is Slack for now"),
    ],
)
def test_a_temporary_word_outside_the_subjects_name_still_makes_it_temporary(turn: str, quote: str) -> None:
    assert _reason(turn, quote) in ("temporary", "temporary_context")


@pytest.mark.parametrize(
    "turn",
    [
        "Please note the message queue is no longer Kafka.",
        "Please note that the message queue is Pulsar now.",
        "请注意，消息队列已经不是 Kafka 了。",
    ],
)
def test_a_request_for_attention_hands_over_the_statement_after_it(turn: str) -> None:
    quote = turn.rstrip("。.")
    assert _reason(turn, quote) is None


@pytest.mark.parametrize(
    "turn", ["Please fix the message queue config.", "Please note down the steps and run the tests."]
)
def test_a_request_for_attention_still_leaves_a_task_request_a_request(turn: str) -> None:
    assert _reason(turn, turn.rstrip(".")) is not None


@pytest.mark.parametrize("label", ["Quick one", "One more thing", "Small point"])
def test_a_metatext_noun_label_is_the_users_own_voice(label: str) -> None:
    turn = f"{label}: the message queue is Pulsar."
    assert _reason(turn, "the message queue is Pulsar") is None


def test_a_note_before_an_english_full_stop_and_a_remark_is_worth_asking() -> None:
    assert worth_asking(safe_input("Message queue: Pulsar. Let me know if anything breaks."))


@pytest.mark.parametrize(
    "turn",
    ["Heads-up: No longer Kafka for the message queue.", "FYI: not Kafka anymore for the message queue."],
)
def test_a_statement_after_the_users_label_is_worth_asking(turn: str) -> None:
    assert worth_asking(safe_input(turn))
    assert _reason(turn, turn.split(": ", 1)[1].rstrip(".")) is None
