"""Issue 37 (memstale3): a word of time or trouble inside the name of the subject a statement gives a value
(`告警渠道`, `temp directory`) is no sign that the statement is temporary; the same word outside the name still
is."""

from __future__ import annotations

import pytest

from paicli.memory.extract_rules import judge_quotes, safe_input


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
