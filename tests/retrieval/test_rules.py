"""Issue 37's retrieval rules: function words are not query terms (English and Chinese), this project's facts
come before global ones on a tie of the reference score, and a match that shares no term needs the floor."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta, timezone

import pytest

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.entry import MemoryEntry
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.stopwords import STOP_WORDS, content_terms
from paicli.memory.store import LongTermMemory
from paicli.memory.tokenize import tokenize
from tests.memory.helpers import NOW, entry
from tests.retrieval.fakes import ListStore


def _retriever(entries: list[MemoryEntry], vector: bool = True) -> MemoryRetriever:
    env = EnvLookup(environ={"PAICLI_MEMORY_VECTOR": "on" if vector else "off"})
    return MemoryRetriever(ListStore(entries), MemoryValues.parse(env), clock=lambda: NOW, zone=timezone.utc)


@pytest.mark.parametrize(
    ("query", "kept"),
    [
        ("What is the capital of France", {"capital", "france"}),
        ("how do we run the tests", {"run", "tests"}),
        ("Java 版本是多少", {"java", "版本"}),
        ("这个接口的超时是什么", {"接口", "超时"}),
        ("数据库最多能开多少个连接", {"数据库", "最多能", "连接"}),  # jieba keeps 最多能 whole
    ],
)
def test_function_words_are_not_query_terms(query: str, kept: set[str]) -> None:
    assert content_terms(tokenize(query.lower())) == kept


def test_the_lists_hold_closed_word_classes_only() -> None:
    for word in ("the", "what", "is", "of", "does", "什么", "怎么", "多少", "这个", "我们", "可以", "因为"):
        assert word in STOP_WORDS, word
    for word in ("java", "test", "use", "need", "like", "数据库", "端口", "部署", "测试", "版本"):
        assert word not in STOP_WORDS, word


@pytest.mark.parametrize("vector", [False, True])
def test_a_question_made_of_function_words_injects_nothing(vector: bool) -> None:
    entries = [
        entry("Kafka is the message bus of the order service", entry_id="en"),
        entry("值班群里什么都可以问", entry_id="zh"),
    ]
    retriever = _retriever(entries, vector)
    assert retriever.rank("What is the capital of France", entries, NOW) == []
    assert retriever.rank("这是什么", entries, NOW) == []
    assert [r.entry.id for r in retriever.rank("what is the message bus", entries, NOW)] == ["en"]


def _scoped(text: str, entry_id: str, project: str | None, age: timedelta = timedelta(days=3)) -> MemoryEntry:
    scope = "project" if project else "global"
    return entry(text, scope, project, entry_id=entry_id, when=NOW - age)


@pytest.mark.parametrize("vector", [False, True])
def test_this_projects_fact_comes_before_a_global_one_on_a_tie(tmp_path: object, vector: bool) -> None:
    entries = [
        _scoped("文件上传大小限制是 62MB", "other-global", None),
        _scoped("文件上传大小限制是 25MB", "another-global", None),
        _scoped("文件上传大小限制是 20MB", "ours", "/repo"),
        _scoped("文件上传大小限制是 30MB", "elsewhere", "/other"),
    ]
    ranked = _retriever(entries, vector).rank("上传大小限制", entries, NOW, "/repo")
    assert [r.entry.id for r in ranked][:1] == ["ours"]
    assert len({round(r.keyword_score, 9) for r in ranked}) == 1  # a tie of the reference score
    assert "elsewhere" not in {r.entry.id for r in ranked}  # another project's own fact is not visible here


def test_a_better_global_match_still_comes_first() -> None:
    entries = [
        _scoped("上传文件大小限制是 20MB", "ours", "/repo"),
        _scoped("图片上传大小限制是 5MB，文件上传另算", "global", None),
    ]
    ranked = _retriever(entries).rank("图片上传大小限制", entries, NOW, "/repo")
    assert [r.entry.id for r in ranked] == ["global", "ours"]  # more query terms: not a tie


def test_the_store_path_applies_the_same_rules(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    store = LongTermMemory(tmp_path, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW)
    for item in (
        _scoped("文件上传大小限制是 62MB", "fact-0000glob", None),
        _scoped("文件上传大小限制是 20MB", "fact-00000own", str(tmp_path)),
        _scoped("用户平时用 IntelliJ IDEA", "fact-00000ide", None),
    ):
        assert store.write(item, allow_conflict=True).written
    retriever = MemoryRetriever(
        store, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW, zone=timezone.utc
    )
    assert [r.entry.id for r in retriever.top("上传大小限制是多少", str(tmp_path))] == [
        "fact-00000own",
        "fact-0000glob",
    ]
    assert retriever.top("tell me a joke", str(tmp_path)) == []  # `tell` only inside IntelliJ
    assert retriever.top("What is the capital of France", str(tmp_path)) == []


def spread(items: list[str], tie: Callable[[str], object]) -> list[str]:
    from paicli.memory.lookalikes import spread_classes

    return list(spread_classes([items], str, tie, len(items), len(items)))


def test_look_alikes_move_after_the_distinct_results() -> None:
    from paicli.memory.lookalikes import look_alike, shape

    texts = [
        "文件上传大小限制是 62MB",
        "文件上传大小限制是 20MB",  # the same sentence with another value
        "库存服务的文件上传大小限制是 44MB",  # the same sentence said of one component
        "应用日志在 Loki 里保留 14 天",
        "后端用 Java",  # too short a shape to call anything its look-alike
        "前端用 Java",
    ]
    assert spread(texts, lambda _: 0) == [texts[0], texts[3], texts[4], texts[5], texts[1], texts[2]]
    assert look_alike(shape(texts[0]), shape(texts[2])) and not look_alike(shape(texts[4]), shape(texts[5]))
    # on an equal match the more general statement keeps the place
    assert spread([texts[2], texts[1], texts[3]], lambda _: 0) == [texts[1], texts[3], texts[2]]
    assert spread([texts[2], texts[1], texts[3]], len) == [texts[2], texts[3], texts[1]]


def test_a_distinct_fact_is_not_buried_under_look_alikes() -> None:
    clones = [
        _scoped(f"{name}的生产发布窗口是每周二和周四下午", f"c{i}", "/repo")
        for i, name in enumerate(["网关", "报表模块", "用户中心", "结算模块", "风控服务", "消息中心"])
    ]
    entries = [*clones, _scoped("生产发布前要在预发环境验证", "verify", "/repo")]
    ranked = [r.entry.id for r in _retriever(entries).rank("生产发布", entries, NOW, "/repo")]
    # every clone is about a component the query does not name (tests/memory/test_ranking.py): the fact
    # about what it asks comes first, then the first clone, then the look-alikes of it
    assert ranked[:2] == ["verify", "c0"] and set(ranked) == {e.id for e in entries}
    reference = [
        r.entry.id for r in _retriever(entries, vector=False).rank("生产发布", entries, NOW, "/repo")
    ]
    assert reference[-1] == "verify"  # the reference's order is kept when the local vector is off


COMPONENTS = [
    "网关",
    "报表模块",
    "用户中心",
    "结算模块",
    "风控服务",
    "消息中心",
    "库存服务",
    "运营后台",
    "数据平台",
]


def test_a_match_by_meaning_is_not_buried_under_look_alikes_of_a_term_match() -> None:
    # every copy shares the word 发版 with the query; the rollback fact shares no word, only the concept of 回退
    copies = [
        _scoped(f"{name}的每次发版都要更新 CHANGELOG.md", f"c{i}", "/repo")
        for i, name in enumerate(COMPONENTS)
    ]
    copies += [_scoped(f"每次发版都要更新 NOTES{i}.md", f"g{i}", None) for i in range(30)]
    fact = _scoped("每次发版都要更新 CHANGELOG.md", "changelog", "/repo")
    rollback = _scoped("回滚用 helm rollback，不要手动改 Deployment", "rollback", "/repo")
    entries = [*copies, fact, rollback]
    ranked = _retriever(entries).rank("发版以后怎么回退", entries, NOW, "/repo")
    assert {r.entry.id for r in ranked[:2]} == {"changelog", "rollback"}
    assert all(r.keyword_score > 0 for r in ranked)  # 回滚 holds the question's 回退 (coverage.py)
    # the look-alikes are all still there, after the distinct results
    assert {r.entry.id for r in ranked} == {e.id for e in entries}


def test_distinct_results_fill_the_best_places_and_the_rest_keeps_its_order() -> None:
    from paicli.memory.lookalikes import spread_classes

    terms = ["文件上传大小限制是 20MB", "文件上传大小限制是 62MB", "应用日志在 Loki 里保留 14 天", "A", "B"]
    meanings = ["网关的文件上传大小限制是 44MB", "回滚用 helm rollback，不要手动改 Deployment"]
    got = list(spread_classes([terms, meanings], str, lambda _: 0, 3, 100))
    # three distinct ones first (the component copy of an earlier class's result is a look-alike too)
    assert got == [terms[0], terms[2], terms[3], terms[4], terms[1], *meanings]
    got = list(spread_classes([terms, meanings], str, lambda _: 0, 10, 100))
    assert got == [terms[0], terms[2], terms[3], terms[4], meanings[1], terms[1], meanings[0]]
    # only `scan` results of a class are looked at: what is beyond keeps its place in the order
    got = list(spread_classes([terms, meanings], str, lambda _: 0, 10, 2))
    assert got == [terms[0], meanings[1], terms[2], terms[3], terms[4], terms[1], meanings[0]]


def test_the_general_statement_takes_the_places_of_all_its_component_copies() -> None:
    copies = ["报表模块的日志输出 JSON 格式，必须带 key", "用户中心的日志输出 JSON 格式，必须带 setter"]
    distinct = "敏感操作要写审计日志到 audit_log 表"
    general = "日志输出 JSON 格式，必须带 traceId"
    # the two copies are not look-alikes of each other, only of the general statement
    got = spread([copies[0], distinct, copies[1], general], lambda _: 0)
    assert got == [general, distinct, copies[0], copies[1]]
    # a general statement that matches the query less well does not take a better match's place
    got = spread([copies[0], distinct, copies[1], general], lambda item: item != general)
    assert got == [copies[0], distinct, copies[1], general]
