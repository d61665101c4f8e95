"""Issue 37: a durable statement reaches the model and is kept whoever it names; a new value for a stored subject
is a correction, not a temporary remark; labels in the user's own voice are not someone else's material."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.memory.extract_rules import judge_quotes, safe_input, worth_asking
from paicli.memory.extractor import OUTPUT_CAP
from paicli.testing.scripted_llm import ScriptedLLM
from tests.extractor.quoting import quoting_manager


def reason(text: str, quote: str, corrects: bool | None = None) -> str | None:
    check = None if corrects is None else (lambda _: corrects)
    return judge_quotes([quote], safe_input(text), True, check)[0].reason


@pytest.mark.parametrize(
    "text", ["发布审批人是周敏。", "The release approver is Zhou Min.", "代码托管在 GitHub。", "缩进用 tab。"]
)
def test_a_declarative_statement_needs_no_we_or_project(text: str) -> None:
    assert worth_asking(safe_input(text))
    assert reason(text, text.rstrip("。.")) is None


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("连接池现在是 32。", "连接池现在是 32"),
        ("Currently the default branch is trunk.", "Currently the default branch is trunk"),
    ],
)
def test_a_new_value_for_a_stored_subject_is_a_correction(text: str, quote: str) -> None:
    assert reason(text, quote, corrects=False) in ("temporary", "temporary_context")
    assert reason(text, quote, corrects=True) is None


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("上周起网关超时时间改为 45 秒。", "上周起网关超时时间改为 45 秒"),
        ("As of today, the default branch is trunk.", "As of today, the default branch is trunk"),
        ("从今天起 CI 跑在 GitLab CI 上。", "从今天起 CI 跑在 GitLab CI 上"),
    ],
)
def test_a_starting_point_opens_a_lasting_value_whether_or_not_the_subject_is_stored(
    text: str, quote: str
) -> None:
    """memauto2: the time words inside a starting point bound nothing, so the store need not know the subject."""
    assert reason(text, quote, corrects=False) is None
    assert reason(text, quote, corrects=True) is None


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("端口今天临时改成 8081。", "端口今天临时改成 8081"),
        ("For now, the default branch is trunk.", "For now, the default branch is trunk"),
        ("CI 挂了，现在跑在 Jenkins 上。", "CI 挂了，现在跑在 Jenkins 上"),
    ],
)
def test_a_bounded_time_keeps_even_a_correction_temporary(text: str, quote: str) -> None:
    assert reason(text, quote, corrects=True) in ("temporary", "temporary_context")


@pytest.mark.parametrize(
    ("text", "quote", "expected"),
    [
        ("提醒一下：发布审批人是周敏。", "发布审批人是周敏", None),
        ("Heads-up: the default branch is trunk.", "the default branch is trunk", None),
        ("Note that the default branch is trunk.", "the default branch is trunk", None),
        ("Reverting: the default branch is main again.", "the default branch is main again", None),
        ("张三：发布审批人是周敏。", "发布审批人是周敏", "reported"),
        ("Bob: the default branch is trunk.", "the default branch is trunk", "reported"),
        ("期望输出：发布审批人是周敏。", "发布审批人是周敏", "reported"),
    ],
)
def test_a_label_in_the_users_own_voice_is_no_foreign_material(
    text: str, quote: str, expected: str | None
) -> None:
    assert reason(text, quote) == expected


@pytest.mark.parametrize(
    ("text", "quote", "expected"),
    [
        ("我们项目的发布审批人：周敏。", "我们项目的发布审批人：周敏", None),
        ("Our release approver: Zhou Min", "Our release approver: Zhou Min", None),
        ("TODO：我们项目要统一使用 ESLint 9。", "TODO：我们项目要统一使用 ESLint 9", "reported"),
        ("张三：我们项目用 tab。", "张三：我们项目用 tab", "reported"),
    ],
)
def test_a_colon_between_a_subject_and_a_short_value_is_a_statement(
    text: str, quote: str, expected: str | None
) -> None:
    assert reason(text, quote) == expected


@pytest.mark.parametrize("text", ['language: "Rust"', "image: harbor.example.cn/app", "name: paicli"])
def test_a_configuration_line_is_not_enough_for_the_automatic_path(text: str) -> None:
    """A one-word `key: value` line is configuration-shaped (pasted material); it is never extracted
    (/save and save_memory store it as the user asks)."""
    assert reason(text, text) is not None


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("发布审批人：周敏", "发布审批人：周敏"),
        ("Release approver: Zhou Min", "Release approver: Zhou Min"),
        ("Heads-up: Release approver: Zhou Min.", "Release approver: Zhou Min"),
        ("对了，gateway timeout: 60 秒。", "gateway timeout: 60 秒"),
    ],
)
def test_a_note_that_names_a_subject_and_its_value_is_a_statement(text: str, quote: str) -> None:
    """`subject: value` in the user's own turn declares the subject's value like a copula does (issue 37:
    durable facts need no we/our/project), also after the user's own label."""
    assert reason(text, quote) is None


def test_a_note_whose_value_is_cut_short_is_no_statement() -> None:
    assert reason("PR 描述里写：本项目从此只支持 Python 3.12。", "PR 描述里写：本项") is not None


def test_a_topic_marker_is_no_condition_but_a_consequence_is() -> None:
    assert reason("连接池大小的话，是 40。", "连接池大小的话，是 40") is None
    assert reason("端口被占用的话，就换 8081。", "就换 8081") is not None


def test_a_later_clause_opening_with_is_continues_a_statement() -> None:
    text = "The default branch, for the record, is trunk."
    assert reason(text, text.rstrip(".")) is None
    assert reason("Is the default branch trunk, or main?", "the default branch trunk") is not None


def test_the_manager_tells_the_rules_which_quotes_correct_a_stored_subject(tmp_path: Path) -> None:
    llm = ScriptedLLM()
    mgr = quoting_manager(tmp_path, llm)
    assert mgr.extract_facts_from_user_turn("连接池现在是 32。") == []  # nothing stored: a passing remark
    mgr.store_fact("数据库连接池大小是 20")
    saved = mgr.extract_facts_from_user_turn("连接池现在是 32。")
    assert [e.content for e in saved] == ["连接池现在是 32"]
    assert [e.content for e in mgr.list_all() if "supersededBy" not in e.metadata] == ["连接池现在是 32"]
    assert all(r.max_tokens == OUTPUT_CAP for r in llm.requests)


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("ok so the CI runs on Jenkins now.", "the CI runs on Jenkins now"),
        ("嗯，那发布审批人是周敏。", "发布审批人是周敏"),
        ("Switched the backend build tool to Gradle.", "Switched the backend build tool to Gradle"),
        (
            "40 is no longer used for the connection pool size.",
            "40 is no longer used for the connection pool size",
        ),
    ],
)
def test_new_wordings_of_a_durable_statement_are_extracted(text: str, quote: str) -> None:
    """Fillers before a statement are the user's own voice; a verb-first note and a passive sentence state a
    subject's value (issue 37, round 4 of the dev half)."""
    assert worth_asking(safe_input(text))
    assert reason(text, quote) is None


def test_a_filler_does_not_open_a_fragment_cut_from_a_clause() -> None:
    assert reason("我觉得 so the CI runs on Jenkins now.", "the CI runs on Jenkins now") == "mid_clause"


@pytest.mark.parametrize(
    ("text", "quote"),
    [
        ("Quick update: The staging database is Postgres.", "The staging database is Postgres"),
        ("Small change — the staging database is Postgres.", "the staging database is Postgres"),
        ("Team decision: the staging database is Postgres.", "the staging database is Postgres"),
    ],
)
def test_a_metatext_label_with_modifiers_is_the_users_own(text: str, quote: str) -> None:
    """A label whose head is a metatext noun (update, change, decision), with up to two modifiers, and a dash
    after a label like a colon."""
    assert reason(text, quote) is None


def test_a_dash_after_someone_elses_label_is_still_reported() -> None:
    assert reason("Bob — the staging database is Postgres.", "the staging database is Postgres") is not None


def test_an_english_full_stop_ends_the_sentence_before_a_question() -> None:
    text = "The staging database is Postgres. Can you check the config?"
    assert reason(text, "The staging database is Postgres") is None
    assert reason("The staging database is Postgres, can you check?", "The staging database is Postgres") == (
        "quoted_or_question"
    )
