"""Issue 37 (memauto): the automatic path keeps every durable statement and nothing else. Each rule sits beside
its must-not-store twin: a sentence that names a kind of secret is kept unless it holds the secret itself; a
time word before a new value for a stored subject is a correction, before an event or a bounded time it is a
temporary remark; a request after a statement asks its own question."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.memory.extract_rules import judge_quotes, safe_input, worth_asking
from paicli.memory.extract_secrets import carries_secret
from paicli.memory.extract_statement import before_request
from tests.extractor.quoting import extracted_after as _contents
from tests.extractor.quoting import quoting_manager

# ---- the secret filter: by the secret's value, not by the word ------------------------------------------------


@pytest.mark.parametrize(
    "turn",
    [
        "The API keys are kept in a vault service.",
        "密码策略是至少 12 位。",
        "Access tokens expire after one hour.",
        "Staging DB password rotation happens monthly.",
        "密钥统一放在 KMS 里管理。",
        "短信验证码的有效期是 5 分钟。",
        "token 的过期时间是 30 分钟。",
        "The password is required for every deploy.",
        "The API key for ap-southeast-1 is in Vault.",  # a region name is no password
        "Tokens are signed with HS256.",
    ],
)
def test_a_sentence_that_only_names_a_kind_of_secret_is_stored(turn: str, tmp_path: Path) -> None:
    assert not carries_secret(turn)
    assert _contents(turn, tmp_path) == [turn.rstrip("。.")]


@pytest.mark.parametrize(
    "turn",
    [
        "The default password is changeme.",  # a plain word given to the name
        "The root password was set to letmein.",  # `set to`
        "测试库的密码是 qwe123456。",
        "验证码是 482913。",  # a bare code that counts nothing
        "Password: Summer2024!",
        "The VPN password is hunter2 for now.",
        "The password is correct horse battery staple.",  # a passphrase of plain words
        "部署用的 token 在这里 a1b2c3d4e5f6。",  # a password-shaped token, no copula
        "密钥我晚点私信发你。",  # handed over to the listener
        "Never paste the deploy token into chat, I'll DM it.",
        "My API key is sk-test-abc.",  # a key prefix, whatever the words
        "联系邮箱 ops@example.com 有问题找我们。",
        "The admin PIN is 7391.",
        "token 填 abcdEFGH1234 就行",  # eight or more letters and digits together
    ],
)
def test_a_sentence_that_holds_a_secret_never_reaches_the_model(turn: str, tmp_path: Path) -> None:
    assert carries_secret(turn)
    assert safe_input(turn) == ""
    assert _contents(turn, tmp_path) == []


def test_a_secret_sentence_is_dropped_and_the_fact_beside_it_kept(tmp_path: Path) -> None:
    turn = "The admin password is Tr0ub4dor&3. Deploys happen on Tuesdays."
    assert safe_input(turn) == "Deploys happen on Tuesdays."
    assert _contents(turn, tmp_path) == ["Deploys happen on Tuesdays"]


def test_the_reference_rules_still_drop_a_sentence_for_the_word() -> None:
    assert safe_input("密码策略是至少 12 位。", hardened=False) == ""
    assert (
        judge_quotes(["密码策略是至少 12 位"], "密码策略是至少 12 位", hardened=False)[0].reason
        == "sensitive"
    )


def test_a_quote_that_carries_a_secret_is_rejected_even_if_it_reached_the_model() -> None:
    text = "The default password is changeme"
    assert judge_quotes([text], text)[0].reason == "secret_shape"
    assert judge_quotes(["The password is required"], "The password is required")[0].reason is None


# ---- time words: a correction of a stored subject vs a temporary remark ---------------------------------------


@pytest.mark.parametrize(
    ("stored", "turn"),
    [
        ("The staging cluster is in Frankfurt.", "Currently the staging cluster is in Dublin."),
        ("连接池大小是 20。", "现在连接池大小是 32 了。"),
        ("代码评审由王磊负责。", "从这周起代码评审改成李娜负责。"),
        ("The release approver is Zhou Min.", "These days the release approver is Chen Jie."),
        (
            "The default branch is master.",
            "As of today the default branch is main.",
        ),  # `as of` frames the time
    ],
)
def test_a_time_word_before_a_new_value_for_a_stored_subject_is_a_correction(
    stored: str, turn: str, tmp_path: Path
) -> None:
    assert _contents(turn, tmp_path, (stored,)) == [turn.rstrip("。.")]


@pytest.mark.parametrize(
    ("stored", "turn"),
    [
        ("连接池大小是 20。", "现在连接池满了，先重启一下。"),  # an event about the subject
        (
            "The staging cluster is in Frankfurt.",
            "For now the staging cluster is in Dublin, just until Friday.",
        ),
        (
            "The release approver is Zhou Min.",
            "Today the release approver is Chen Jie, since Zhou Min is out.",
        ),
    ],
)
def test_a_time_word_before_an_event_or_a_bounded_time_stays_temporary(
    stored: str, turn: str, tmp_path: Path
) -> None:
    assert _contents(turn, tmp_path, (stored,)) == []


def test_a_time_word_before_a_value_no_stored_subject_has_stays_temporary(tmp_path: Path) -> None:
    """Without a stored subject a time word still marks a state of the moment (`现在服务器负载是 90%`)."""
    assert _contents("现在服务器负载是 90%。", tmp_path) == []
    assert _contents("Currently the build is failing on main.", tmp_path) == []


# ---- a statement beside a request -----------------------------------------------------------------------------


def _reason(turn: str, quote: str) -> str | None:
    return judge_quotes([quote], safe_input(turn))[0].reason


def test_a_request_with_its_own_object_does_not_make_the_statement_a_question() -> None:
    turn = "镜像仓库是 Harbor，帮我看看这个 Dockerfile 有没有问题？"
    assert _reason(turn, "镜像仓库是 Harbor") is None
    assert (
        _reason(
            "The staging database is Postgres, can you check the nginx config?",
            "The staging database is Postgres",
        )
        is None
    )


@pytest.mark.parametrize(
    "turn",
    [
        "镜像仓库是 Harbor，帮我确认一下对不对？",  # the request doubts the statement
        "镜像仓库是 Harbor，能不能看看？",  # the request points back at it
        "镜像仓库是 Harbor 吗？",
    ],
)
def test_a_request_about_the_statement_keeps_it_a_question(turn: str) -> None:
    assert _reason(turn, "镜像仓库是 Harbor") == "quoted_or_question"


def test_before_request_cuts_only_at_a_request_clause() -> None:
    assert before_request("，帮我看看这个 Dockerfile 有没有问题？") == ""
    assert before_request("，对吧？") == "，对吧？"
    assert before_request(", can you check?") == ", can you check?"
    assert before_request(", can you check the nginx config?") == ""


# ---- plain declaratives without we/our/project ----------------------------------------------------------------


@pytest.mark.parametrize(
    "turn",
    [
        "Deploys happen on Tuesdays.",
        "发布审批人是周敏。",
        "Docs are built with MkDocs.",
        "所有定时任务按北京时间执行。",
    ],
)
def test_a_plain_declarative_is_stored(turn: str, tmp_path: Path) -> None:
    assert _contents(turn, tmp_path) == [turn.rstrip("。.")]


@pytest.mark.parametrize(
    "turn",
    [
        "Add a retry to the upload handler.",
        "Is the staging cluster in Dublin?",
        "下周打算把数据库迁到 TiDB。",
    ],
)
def test_a_request_question_or_plan_is_not(turn: str, tmp_path: Path) -> None:
    assert _contents(turn, tmp_path) == []


def test_an_as_of_frame_is_no_part_of_the_subject_so_the_new_value_supersedes(tmp_path: Path) -> None:
    from paicli.memory import evolve

    mgr = quoting_manager(tmp_path)
    assert mgr.store_fact("The default branch is master.").written
    mgr.extract_facts_from_user_turn("As of today the default branch is main.")
    truths = [e.content for e in mgr.store.get_all(mgr.project_key) if evolve.is_truth(e)]
    assert truths == ["As of today the default branch is main"]


# ---- a note of a subject and a bare number ------------------------------------------------------------------


@pytest.mark.parametrize(
    "turn", ["另外，frontend Node version 20。", "连接池大小 50。", "backend JDK version 11"]
)
def test_a_label_of_several_words_and_a_bare_number_is_a_note(turn: str) -> None:
    quote = turn.split("，")[-1].rstrip("。")
    assert worth_asking(safe_input(turn))
    assert _reason(turn, quote) is None


@pytest.mark.parametrize(
    "turn",
    [
        "build 42",  # one word: a fragment
        "nous utilisons toujours Java 8",  # four Latin words: a sentence in a language the grammar does not read
        "第 3 轮 12",  # an ordinal names a place, not a subject
        "运行 echo 8080",  # a task
    ],
)
def test_a_fragment_a_foreign_sentence_or_a_task_with_a_number_is_no_note(turn: str) -> None:
    assert _reason(turn, turn) is not None
