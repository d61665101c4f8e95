"""Issue 37 (memauto2): what the statement gate reads in general, each rule beside its must-not-store twin.

- Time: a starting point (`From this sprint`, `从这个迭代开始`) opens a value that holds on, whether or not the
  store knows the subject; a bounded time (`this sprint`, `until Friday`, `到周五为止`) and a plan stay out.
- Reports: a label that takes a value away (`No more A:`, `不再用 A 了：`) is the user's own clause; a speaker's
  or a source's label still hands what follows to someone else.
- Verb-phrase subjects: a Chinese doing followed by a predicate of its own (`部署用的是 A`, `生成文档改用 A 了`)
  is a topic; an order puts its object or goal right after the verb (`部署到预发`, `发布一下 staging`).
- A final 吧 after a settled choice (`就用 A 吧`, `还是改回 A 吧`) closes a decision; after a guess or a
  suggestion (`是 A 吧`, `要不改回 A 吧`, `…，对吧`) it asks.

The model here quotes the whole turn back (the careful extractor of the eval's loopback server), so every test
checks the rules after the model and the write path, not the model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.memory.extract_voice import asks, imperative, retires_value
from tests.extractor.quoting import extracted_after as _contents

# ---- time: a starting point opens a lasting value; a bounded time or a plan does not --------------------------


@pytest.mark.parametrize(
    "turn",
    [
        "From this sprint we cache the build layers in S3.",
        "From next quarter the release branch is cut on Mondays.",
        "Starting this release we sign the wheels with Sigstore.",
        "从这个迭代开始，前端打包改用 esbuild。",
        "下个版本起接口统一返回 RFC 3339 时间。",
        "从下周开始 feature flags 放在 Unleash 里。",
    ],
)
def test_a_starting_point_opens_a_value_that_holds_on(turn: str, tmp_path: Path) -> None:
    assert _contents(turn, tmp_path) == [turn.rstrip("。.")]


@pytest.mark.parametrize(
    "turn",
    [
        "This sprint we cache the build layers by hand.",
        "Until Friday we cut the release branch on Tuesdays.",
        "Till the end of the month the wheels are unsigned.",
        "这个迭代前端打包先用 webpack。",
        "接口先返回时间戳，到下周三为止。",
        "Next quarter we plan to move the feature flags to Unleash.",
        "We intend to sign the wheels with Sigstore.",
    ],
)
def test_a_bounded_time_or_a_plan_stays_out(turn: str, tmp_path: Path) -> None:
    assert _contents(turn, tmp_path) == []


def test_a_bounded_time_stays_out_even_for_a_stored_subject(tmp_path: Path) -> None:
    stored = ("The release branch is cut on Mondays.",)
    assert _contents("Until Friday the release branch is cut on Tuesdays.", tmp_path, stored) == []


# ---- reports: a label that retires a value is the user's own clause ------------------------------------------


@pytest.mark.parametrize(
    ("turn", "stored"),
    [
        ("No more Sentry: error tracking is GlitchTip now.", ()),
        ("No longer Jenkins: the nightly build runs on Buildkite.", ()),
        ("不再用 Harbor 了：镜像仓库现在是 Quay。", ()),
        ("Not 3.11: the Python runtime is 3.12.", ()),
        ("No more Sentry: error tracking is GlitchTip now.", ("Error tracking is Sentry.",)),
    ],
)
def test_a_label_that_retires_a_value_is_the_users_own_clause(
    turn: str, stored: tuple[str, ...], tmp_path: Path
) -> None:
    assert _contents(turn, tmp_path, stored) == [turn.rstrip("。.")]


@pytest.mark.parametrize(
    "turn",
    [
        "Dmitri: error tracking is GlitchTip now.",
        "From the migration ticket: no more Sentry, error tracking is GlitchTip now.",
        "Build output: the nightly build runs on Buildkite.",
        "王磊说：不再用 Harbor 了，镜像仓库现在是 Quay。",
    ],
)
def test_a_speakers_or_a_sources_label_still_hands_the_words_to_them(turn: str, tmp_path: Path) -> None:
    assert _contents(turn, tmp_path) == []


def test_only_a_value_taken_away_makes_a_label_a_clause() -> None:
    assert retires_value("No more Sentry")
    assert retires_value("不再用 Harbor 了")
    assert retires_value("Not Jenkins any more")
    assert not retires_value("Dmitri")
    assert not retires_value("From the migration ticket")
    assert not retires_value("Notes from the standup")
    assert not retires_value("Not sure")


# ---- verb-phrase subjects in Chinese: a doing with a predicate of its own is a topic ---------------------------


@pytest.mark.parametrize(
    ("turn", "stored"),
    [
        ("部署用的是 Nomad。", ()),
        ("生成变更日志改用 git-cliff 了。", ()),
        ("顺便说下，运行端到端测试用的是 Cypress。", ()),
        ("检查依赖漏洞这块 Snyk 弃用了。", ()),
        ("部署又换回 Nomad 了。", ("部署用的是 Kubernetes。",)),
        ("升级依赖不用 Dependabot 了，改用 Renovate。", ()),
    ],
)
def test_a_doing_with_a_predicate_of_its_own_is_a_subject(
    turn: str, stored: tuple[str, ...], tmp_path: Path
) -> None:
    assert _contents(turn, tmp_path, stored) == [turn.rstrip("。.")]


@pytest.mark.parametrize(
    "turn",
    [
        "部署到预发环境，用 Nomad。",
        "生成变更日志，用 git-cliff。",
        "检查一下依赖漏洞。",
        "发布一下测试环境的新版本。",
        "打个补丁包发给运维。",
        "运行端到端测试，用 Cypress。",
        "把变更日志改成 git-cliff 生成。",
    ],
)
def test_an_order_puts_its_object_right_after_the_verb(turn: str, tmp_path: Path) -> None:
    assert _contents(turn, tmp_path) == []


def test_the_topic_reading_is_only_for_a_bare_content_verb() -> None:
    assert not imperative("部署用的是 Nomad")
    assert not imperative("生成变更日志改用 git-cliff 了")
    assert imperative("部署到预发环境")
    assert imperative("请部署用 Nomad")  # a request before the verb: an order whatever follows
    assert imperative("把日志级别改成 DEBUG")
    assert imperative("发布一下 staging")
    assert not imperative("提醒一下")  # the user's own label, no order
    assert not imperative("每个服务都有健康检查")  # a quantifier before 个 is no verb


# ---- a final 吧: a settled choice vs a guess or a suggestion ------------------------------------------------


@pytest.mark.parametrize(
    ("turn", "stored"),
    [
        ("那日志库就用 structlog 吧。", ()),
        ("接口超时还是改回 30 秒吧。", ("接口超时是 60 秒。",)),
        ("代码格式化统一用 Black 吧。", ()),
    ],
)
def test_a_settled_choice_ending_in_ba_is_a_decision(
    turn: str, stored: tuple[str, ...], tmp_path: Path
) -> None:
    assert _contents(turn, tmp_path, stored) == [turn.rstrip("。")]


@pytest.mark.parametrize(
    "turn",
    [
        "日志库是 structlog 吧。",
        "接口超时应该是 30 秒吧。",
        "要不接口超时改回 30 秒吧。",
        "代码格式化用的是 Black，对吧。",
        "那日志库就用 structlog 吧？",
    ],
)
def test_a_guess_or_a_suggestion_ending_in_ba_asks(turn: str, tmp_path: Path) -> None:
    assert asks(turn)
    assert _contents(turn, tmp_path) == []
