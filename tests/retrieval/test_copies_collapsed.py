"""Issue 37, round 3: a big store's copies (the same sentence with other values, made in other projects or said of
a component) neither fill the top places nor win them with a swapped-in value that happens to be a question word."""

from __future__ import annotations

from pathlib import Path

from paicli.memory.lookalikes import copy_keys
from paicli.memory.vector import build_index
from paicli.memory.vector_file import load, snapshot, write
from tests.retrieval.scoped import global_fact, ours
from tests.retrieval.scoped import ranked as ranked_ids

TOOLS = ["Kafka", "Pulsar", "NATS", "Redis", "Celery", "Sidekiq", "Temporal", "Airflow", "Dagster", "Luigi"]


def test_copy_keys_tie_a_sentence_to_its_copies_and_to_itself_said_of_a_component() -> None:
    key, core = copy_keys("缓存用 Redis 7，默认 TTL 10 分钟")
    assert key != 0 and core == key  # no owner: the core is the sentence itself
    assert copy_keys("缓存用 Memcached 3，默认 TTL 55 分钟") == (key, key)  # other values, same sentence
    assert copy_keys("队列用 Redis 7，默认 TTL 10 分钟")[0] != key  # another subject
    component = copy_keys("网关的缓存用 Caffeine 2，默认 TTL 5 分钟")
    assert component[0] != key and component[1] == key
    # every ASCII word is a value here: two English sentences cannot be told from copies, so they get no key
    assert copy_keys("the gateway timeout is 60 s") == (0, 0)
    assert copy_keys("用 Go 写") == (0, 0)  # too short to be anything's copy


def test_this_projects_statement_keeps_its_place_before_its_copies_elsewhere_whatever_their_values() -> None:
    entries = [
        global_fact(f"copy-{i}", f"异步任务队列用 {tool}，并发数 {i + 2}") for i, tool in enumerate(TOOLS)
    ]
    entries.append(ours("ours", "异步任务队列用 RabbitMQ，并发数 8"))
    entries.append(ours("retry", "异步任务失败后最多重试 3 次"))
    ranked = ranked_ids(entries, "异步任务队列是 Kafka 吗")
    assert ranked[0] == "ours"
    # the copy that holds the question's value word (Kafka) follows this project's other match too
    assert ranked.index("retry") < ranked.index("copy-0")


def test_a_crowd_of_copies_elsewhere_does_not_keep_a_distinct_match_out_of_the_top_places() -> None:
    # 250 copies of another project's sentence, each holding more of the question than this project's answer
    entries = [
        global_fact(f"copy-{i}", f"数据库表名用 {TOOLS[i % len(TOOLS)]}{i} 风格命名，列名用 snake_case")
        for i in range(250)
    ]
    entries.append(ours("ours", "数据库表名用蛇形复数，例如 order_items"))
    ranked = ranked_ids(entries, "数据库表名怎么命名")
    # one copy speaks for all of them; the rest follow every distinct match
    assert sorted(entry_id.startswith("copy-") for entry_id in ranked[:2]) == [False, True]


def test_a_value_swapped_into_a_components_copy_is_weak_evidence() -> None:
    # this project states the sentence without an owner; its components' versions hold `tag` only as a value
    entries = [
        ours("statement", "日志输出 JSON 格式，必须带 traceId"),
        ours("answer", "发布标签格式是 v<主>.<次>.<修订>"),
    ]
    for i, component in enumerate(["网关", "风控服务", "用户中心", "结算模块", "库存服务", "消息中心"]):
        entries.append(ours(f"component-{i}", f"{component}的日志输出 tag 格式，必须带 traceId{i}"))
    assert ranked_ids(entries, "tag 格式是什么")[0] == "answer"


def test_copy_keys_are_saved_with_the_index(tmp_path: Path) -> None:
    texts = [
        "缓存用 Redis 7，默认 TTL 10 分钟",
        "网关的缓存用 Caffeine 2，默认 TTL 5 分钟",
        "the gateway timeout is 60 s",
    ]
    index = build_index(texts)
    path = tmp_path / "long_term_memory.vectors.npz"
    write(snapshot(index), path)
    loaded = load(path)
    assert loaded is not None
    assert list(loaded.copy_keys) == [copy_keys(t)[0] for t in texts]
    assert list(loaded.core_keys) == [copy_keys(t)[1] for t in texts]
    arrays = snapshot(index)
    del arrays["core_keys"]  # an index saved before copy keys existed is rebuilt, never half used
    write(arrays, path)
    assert load(path) is None
