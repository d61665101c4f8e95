"""Issue 37, recall among look-alikes: a copy of this project's statement made elsewhere (another project's
global fact with other values, a component's version of it) is no better an answer here than the statement
itself, even when the words that differ (a swapped-in value, a component's name) are words of the question.
A question that names the component still gets the component's copy first."""

from __future__ import annotations

from tests.retrieval.scoped import global_fact, ours
from tests.retrieval.scoped import ranked as ranked_ids


def test_another_projects_copy_whose_other_value_is_asked_about_comes_after_ours() -> None:
    entries = [
        global_fact("theirs", "本地缓存用 Redis，默认过期时间 30 分钟"),
        ours("ours", "本地缓存用 Caffeine，默认过期时间 10 分钟"),
    ]
    assert ranked_ids(entries, "本地缓存是 Redis 吗") == ["ours", "theirs"]


def test_a_component_whose_name_holds_a_question_word_comes_after_ours() -> None:
    entries = [
        ours("component", "用户中心的接口日志里不能出现手机号和身份证号"),
        ours("ours", "接口日志里不能出现手机号和身份证号"),
    ]
    assert ranked_ids(entries, "接口日志可以打印用户手机号吗") == ["ours", "component"]


def test_a_question_that_names_the_component_gets_its_copy_first() -> None:
    entries = [
        ours("ours", "接口日志里不能出现手机号和身份证号"),
        ours("component", "用户中心的接口日志里不能出现手机号和身份证号"),
    ]
    assert ranked_ids(entries, "用户中心的接口日志能打印手机号吗")[0] == "component"


def test_another_project_named_in_its_text_comes_after_ours_unless_asked_about() -> None:
    entries = [
        global_fact("named", "北岸 项目：发版前要跑 regression 测试套件"),
        ours("ours", "发版前要跑 smoke 测试套件"),
    ]
    assert ranked_ids(entries, "发版前要跑 regression 测试吗") == ["ours", "named"]
    assert ranked_ids(entries, "北岸项目发版前要跑 regression 测试吗")[0] == "named"


def test_copies_never_hide_a_distinct_fact() -> None:
    entries = [
        *(global_fact(f"copy-{i}", f"本地缓存用 Redis，默认过期时间 {i} 分钟") for i in range(12)),
        ours("ours", "本地缓存用 Caffeine，默认过期时间 10 分钟"),
        ours("other", "Redis 集群有 6 个节点"),
    ]
    ranked = ranked_ids(entries, "本地缓存是 Redis 吗")
    assert ranked[:2] == ["ours", "other"]


def test_a_components_memory_in_the_other_language_gives_its_place_to_ours_on_that_subject() -> None:
    entries = [
        ours("data", "For the data platform, the connection pool size is 20."),
        ours("gateway", "网关 那边 connection pool size 是 40"),
        ours("console", "For the admin console, the connection pool size is 40."),
        ours("reports", "For the reporting service, the connection pool size is 20."),
        ours("messages", "消息服务 那边 connection pool size 是 20"),
        ours("ours", "连接池重新换回40"),
    ]
    assert ranked_ids(entries, "连接池大小是多少？")[0] == "ours"
    # a question that names the component still gets its memory first
    assert ranked_ids(entries, "网关的连接池大小是多少？")[0] == "gateway"
