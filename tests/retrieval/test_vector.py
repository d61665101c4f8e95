from __future__ import annotations

import random
from datetime import timedelta, timezone
from pathlib import Path

import pytest

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.recall_block import Ranked
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.stopwords import content_terms
from paicli.memory.tokenize import tokenize
from paicli.memory.vector import VectorIndex, build_index, document_tokens, features
from paicli.memory.vector_file import load
from tests.retrieval.fakes import NOW, FakeEntry, ListStore, entry

MEMORIES = [
    "项目构建使用 Java 17 和 Maven",
    "用户偏好简洁的中文回答，不要寒暄",
    "部署脚本位于 scripts/deploy.sh，需要先登录跳板机",
    "UserRepository.findByEmail 在邮箱不存在时返回 Optional.empty()",
    "提交代码前必须运行 mvn test -Pquick 回归",
    "数据库连接池使用 HikariCP，最大连接数 20",
    "前端组件统一放在 src/components 目录",
    "The CI pipeline runs on GitHub Actions with Ubuntu 22.04 runners",
    "Prefer pytest fixtures over setUp methods in new tests",
    "日志级别在生产环境设为 WARN",
    "API 版本号遵循 v2.3.1 这样的语义化版本",
    "代码评审至少需要两位同事批准",
    "Deploy the backend with scripts/deploy.sh after the VPN login",
]

QUERIES = [
    "Java 版本",
    "怎么发布上线",
    "回答风格",
    "邮箱查询",
    "测试",
    "连接池",
    "ci runner",
    "v2.3.1",
    "findByEmail",
    "组件放哪",
    "评审规则",
    "production log level",
    "数据库",
    "fixtures",
]


def _entries() -> list[FakeEntry]:
    rng = random.Random(7)
    return [
        entry(f"m{i}", text, age=timedelta(hours=rng.randint(0, 2000))) for i, text in enumerate(MEMORIES)
    ]


def _retriever(entries: list[FakeEntry], vector: bool) -> MemoryRetriever:
    environ = {} if vector else {"PAICLI_MEMORY_VECTOR": "off"}
    return MemoryRetriever(
        ListStore(entries),
        MemoryValues.parse(EnvLookup(environ=environ)),
        clock=lambda: NOW,
        zone=timezone.utc,
    )


def _ids(ranked: list[Ranked]) -> list[str]:
    return [item.entry.id for item in ranked]


def test_vector_switch_follows_the_env() -> None:
    assert _retriever([], vector=True).vector_enabled
    assert not _retriever([], vector=False).vector_enabled


def _shares_term(query: str, content: str) -> bool:
    """The whole query is in the text, or a query term is one of its words (issue 37's floor applies otherwise)."""
    terms = content_terms(tokenize(query.lower()))
    return query.lower() in content.lower() or bool(terms & set(document_tokens(content)))


def _check_reference_guarantee(reference: list[Ranked], ranked: list[Ranked], query: str) -> None:
    """Every reference match that shares a term with the query passes as a term match (its keyword tier is the
    share of the question it holds, `coverage.py`) and comes before every match that shares none, unless it is a
    look-alike of a result ranked before it (those move after every distinct result); a reference match sharing
    no term passes only by meaning."""
    from paicli.memory.lookalikes import look_alike, shape

    by_id = {item.entry.id: item for item in ranked}
    sharing = [item for item in reference if _shares_term(query, item.entry.content)]
    assert set(_ids(ranked)) >= set(_ids(sharing)), query
    assert all(by_id[item.entry.id].keyword_score > 0 for item in sharing), query
    shapes = [shape(item.entry.content) for item in ranked]
    first_meaning = next((at for at, item in enumerate(ranked) if item.keyword_score == 0.0), len(ranked))
    for at, item in enumerate(ranked):
        if item.keyword_score == 0.0:
            assert not _shares_term(query, item.entry.content), query
        elif at > first_meaning:
            assert any(look_alike(shapes[at], earlier) for earlier in shapes[:at]), query


def test_every_reference_match_still_passes_and_precedes_vector_only_matches() -> None:
    entries = _entries()
    reference, combined = _retriever(entries, False), _retriever(entries, True)
    for query in QUERIES:
        ranked = combined.rank(query, entries, NOW)
        _check_reference_guarantee(reference.rank(query, entries, NOW), ranked, query)
        assert all(item.score > 0 for item in ranked)


def test_a_match_inside_a_longer_word_needs_the_floor() -> None:
    entries = [
        entry("ide", "用户平时用 IntelliJ IDEA"),
        entry("joke", "讲笑话时不要用表情 tell jokes plainly"),
    ]
    assert _ids(_retriever(entries, False).rank("tell me", entries, NOW)) == ["ide", "joke"]  # the reference
    assert _ids(_retriever(entries, True).rank("tell me", entries, NOW)) == ["joke"]


def test_vector_finds_a_paraphrase_the_keyword_score_misses() -> None:
    entries = _entries()
    query = "deploying"
    assert _retriever(entries, False).rank(query, entries, NOW) == []
    ranked = _retriever(entries, True).rank(query, entries, NOW)
    assert _ids(ranked)[:1] == ["m12"]
    assert ranked[0].keyword_score > 0  # it holds the question's word by its concept (deploy -> 部署)


def test_code_identifier_parts_match_natural_words() -> None:
    entries = _entries()
    ranked = _retriever(entries, True).rank("find by email", entries, NOW)
    assert _ids(ranked)[0] == "m3"


def test_unrelated_query_passes_nothing() -> None:
    entries = _entries()
    retriever = _retriever(entries, True)
    assert retriever.rank("天气怎么样", entries, NOW) == []
    assert retriever.build_context("天气怎么样", 1000, "/repo") == ""


def test_vector_reorders_keyword_matches_by_meaning() -> None:
    loose = entry("loose", "项目文档里提到过数据库")
    close = entry("close", "数据库连接池最大连接数是 20")
    entries = [loose, close]
    query = "数据库连接数上限"
    reference = _retriever(entries, False).rank(query, entries, NOW)
    combined = _retriever(entries, True).rank(query, entries, NOW)
    assert {i.entry.id for i in reference} == {"loose", "close"}
    assert _ids(combined)[0] == "close"
    assert combined[0].score > combined[0].keyword_score


def test_a_saved_or_deleted_memory_updates_the_index_instead_of_rebuilding_it() -> None:
    entries = _entries()
    store = ListStore(entries)
    retriever = MemoryRetriever(store, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW)
    for query in QUERIES:
        retriever.build_context(query, 1000, "/repo")
    assert retriever.index_builds == 1 and retriever.index_updates == len(entries)
    store.entries.append(entry("new", "新增的一条记忆：发布窗口是周四"))
    assert "周四" in retriever.build_context("发布窗口", 1000, "/repo")
    retriever.build_context("发布窗口", 1000, "/repo")
    assert retriever.index_builds == 1 and retriever.index_updates == len(entries) + 1
    store.entries.remove(entries[0])
    assert "Java 17" not in retriever.build_context("Java 版本", 1000, "/repo")
    assert retriever.index_builds == 1 and retriever.index_updates == len(entries) + 2


def _index_equals_fresh_build(index: VectorIndex, texts: dict[str, str]) -> None:
    fresh = build_index(texts.values())
    for query in [*QUERIES, "发布窗口", "数据库连接"]:
        incremental = index.similarities(query)
        expected = fresh.similarities(query)
        got = [float(incremental[index.positions[doc_id]]) for doc_id in texts]
        assert got == pytest.approx([float(x) for x in expected], abs=1e-9), query


def test_incremental_changes_score_exactly_like_a_fresh_build() -> None:
    texts = {f"m{i}": text for i, text in enumerate(MEMORIES)}
    index = VectorIndex()
    index.sync(texts.items())
    del texts["m3"], texts["m7"]
    texts["m5"] = "数据库连接池改用 Druid，最大连接数 50"
    texts["x1"] = "发布窗口是每周四晚上"
    assert index.sync(texts.items())
    assert not index.sync(texts.items())  # nothing changed: nothing to do
    _index_equals_fresh_build(index, texts)


def test_the_index_survives_a_restart_and_notices_a_foreign_write(tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.vectors.npz"
    entries = _entries()
    store = ListStore(entries)
    first = MemoryRetriever(
        store, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW, index_path=path
    )
    expected = first.build_context("数据库", 1000, "/repo")
    assert first.flush_index() and path.exists()
    second = MemoryRetriever(
        ListStore(entries), MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW, index_path=path
    )
    assert second.build_context("数据库", 1000, "/repo") == expected
    assert second.index_builds == 0 and second.index_updates == 0  # loaded, nothing re-segmented
    changed = [entries[0].__class__(entries[0].id, "数据库改用 PostgreSQL 16"), *entries[1:]]
    third = MemoryRetriever(
        ListStore(changed), MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW, index_path=path
    )
    assert "PostgreSQL 16" in third.build_context("数据库", 1000, "/repo")
    assert third.index_builds == 0 and third.index_updates == 2  # the edited entry only: dropped, re-added


def test_an_unreadable_index_file_is_rebuilt(tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.vectors.npz"
    path.write_bytes(b"not an npz file")
    retriever = MemoryRetriever(
        ListStore(_entries()), MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW, index_path=path
    )
    assert "HikariCP" in retriever.build_context("数据库", 1000, "/repo")
    assert retriever.index_builds == 1 and retriever.flush_index()
    assert load(path) is not None


def test_cosine_is_one_for_identical_text_and_zero_without_overlap() -> None:
    index = build_index(["部署脚本位于 scripts 目录", "用户喜欢猫"])
    sims = index.similarities("部署脚本位于 scripts 目录")
    assert abs(sims[0] - 1.0) < 1e-9
    assert sims[1] == 0.0
    assert build_index([]).similarities("任何").size == 0


def test_features_cover_words_inner_bigrams_identifier_parts_and_concepts() -> None:
    found = features("调用 getUserById 接口，跑单元测试")
    assert {"getuserbyid", "user", "id", "调用", "接口", "单元测试", "测试", "c:接口", "c:测试"} <= set(found)
    assert "by" not in found  # a function word, also as a part of an identifier
    assert "test" in features("running tests") and "c:测试" in features("running tests")
    assert "c:回滚" in features("出错就回退") and "c:回滚" in features("用 helm rollback")
    assert not set(features("怎么 什么 the and"))


def test_bilingual_concepts_connect_english_queries_to_chinese_memories() -> None:
    entries = [entry("ret", "应用日志在 Loki 里保留 14 天"), entry("other", "前端构建工具是 Vite 5")]
    ranked = _retriever(entries, True).rank("how long are logs kept", entries, NOW)
    assert _ids(ranked) == ["ret"]


def test_reference_guarantee_holds_on_the_whole_eval_set() -> None:
    import json
    from pathlib import Path

    data = json.loads((Path(__file__).parents[2] / "evals" / "retrieval" / "dataset.json").read_text("utf-8"))
    entries = [entry(m["id"], m["content"], age=timedelta(hours=m["age_hours"])) for m in data["memories"]]
    reference, combined = _retriever(entries, False), _retriever(entries, True)
    for query in data["queries"]:
        ranked = combined.rank(query["query"], entries, NOW)
        _check_reference_guarantee(reference.rank(query["query"], entries, NOW), ranked, query["query"])


def test_rebuild_after_a_change_ranks_like_a_fresh_index() -> None:
    entries = _entries()
    store = ListStore(entries)
    warm = MemoryRetriever(store, MemoryValues.parse(EnvLookup(environ={})), clock=lambda: NOW)
    warm.build_context("部署", 1000, "/repo")
    store.entries = [*entries[1:], entry("new", "部署前先在预发环境验证")]
    fresh = _retriever(store.entries, True)
    for query in [*QUERIES, "部署", "预发验证"]:
        got = [(i.entry.id, round(i.score, 12)) for i in warm.rank(query, store.entries, NOW)]
        assert got == [(i.entry.id, round(i.score, 12)) for i in fresh.rank(query, store.entries, NOW)], query


def _cosine_among(fillers: int, fact: str, query: str) -> float:
    # one memory in ten shares the query's word; every memory holds a value of its own (one-off tokens)
    texts = [f"回复 zq{i}x" if i % 10 == 0 else f"zq{i}x wq{i}y" for i in range(fillers)]
    index = build_index([fact, *texts])
    return float(index.similarities(query)[0])


def test_a_facts_cosine_stops_falling_once_one_off_values_are_rare_enough() -> None:
    fact, query = "回复 emoji", "回复"
    small, large, huge = (_cosine_among(n, fact, query) for n in (200, 2000, 4000))
    assert small > large  # the fact's own value gets rarer than the shared word as the store grows ...
    assert huge == pytest.approx(large, abs=0.005)  # ... until it is rarer than one memory in RARE_SHARE
    assert huge > 0.3
