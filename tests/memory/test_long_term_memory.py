"""LongTermMemory: persistence, sharing, corruption, search (spec 4.4-4.5; LongTermMemoryTest)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from paicli.config.run_values import MemoryValues
from paicli.context.estimate import estimate_tokens
from paicli.memory.store import FILE_NAME, LongTermMemory
from tests.memory.helpers import NOW, entry, env, memory


def _disk(tmp_path: Path) -> list[dict[str, object]]:
    data = json.loads((tmp_path / FILE_NAME).read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def test_store_and_retrieve(tmp_path: Path) -> None:
    store = memory(tmp_path)
    fact = entry("用户偏好使用Java开发")
    assert store.store(fact)
    assert store.retrieve(fact.id) == fact
    assert store.retrieve(f" {fact.id} ") == fact
    assert store.retrieve("fact-missing") is None
    assert store.size() == 1 and store.token_count() == fact.token_count


def test_path_may_be_a_folder_or_the_json_file(tmp_path: Path) -> None:
    assert memory(tmp_path).path == tmp_path / FILE_NAME
    assert memory(tmp_path / "custom.json").path == tmp_path / "custom.json"
    configured = LongTermMemory(None, MemoryValues.parse(env(PAICLI_MEMORY_DIR=str(tmp_path / "elsewhere"))))
    assert configured.path == tmp_path / "elsewhere" / FILE_NAME
    home = LongTermMemory(None, MemoryValues.parse(env(PAICLI_HOME=str(tmp_path / "home"))))
    assert home.path == tmp_path / "home" / "memory" / FILE_NAME


def test_two_instances_sharing_a_file_do_not_overwrite_each_other(tmp_path: Path) -> None:
    first, second = memory(tmp_path), memory(tmp_path)
    first.store(entry("第一条事实：默认中文"))
    second.store(entry("第二条事实：用 pytest 测试"))
    first.store(entry("第三条事实：提交前跑 ruff"))
    assert len(_disk(tmp_path)) == 3
    assert first.size() == second.size() == 3


def test_reads_see_writes_from_another_instance(tmp_path: Path) -> None:
    reader, writer = memory(tmp_path), memory(tmp_path)
    assert reader.get_all() == []
    fact = entry("项目使用 uv 管理依赖")
    writer.store(fact)
    assert reader.retrieve(fact.id) == fact
    assert reader.search("uv") == [fact]
    writer.delete(fact.id)
    assert reader.size() == 0


def test_corrupt_file_is_backed_up_instead_of_wiping_memories(tmp_path: Path) -> None:
    store = memory(tmp_path)
    kept = entry("已经保存的事实")
    store.store(kept)
    (tmp_path / FILE_NAME).write_text('[ { "id" : "fact-broken", ', encoding="utf-8")
    assert store.get_all() == [kept]
    backups = sorted(tmp_path.glob(FILE_NAME + ".corrupt-*"))
    assert len(backups) == 1 and backups[0].read_text(encoding="utf-8") == '[ { "id" : "fact-broken", '
    assert store.size() == 1  # an unchanged corrupt file is not backed up again
    assert len(list(tmp_path.glob(FILE_NAME + ".corrupt-*"))) == 1
    added = entry("之后写入的事实")
    store.store(added)
    assert [item["id"] for item in _disk(tmp_path)] == [kept.id, added.id]


def test_fresh_instance_on_corrupt_file_never_writes_an_empty_list(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text("not json at all", encoding="utf-8")
    store = memory(tmp_path)
    assert store.get_all() == []
    assert not store.delete("fact-none")
    assert (tmp_path / FILE_NAME).read_text(encoding="utf-8") == "not json at all"
    assert store.mark_verified("fact-none") is None
    assert (tmp_path / FILE_NAME).read_text(encoding="utf-8") == "not json at all"
    assert list(tmp_path.glob(FILE_NAME + ".corrupt-*"))


def test_non_array_json_counts_as_corrupt(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text('{"id": "x"}', encoding="utf-8")
    store = memory(tmp_path)
    assert store.get_all() == []
    assert list(tmp_path.glob(FILE_NAME + ".corrupt-*"))


def test_deduplicates_same_content(tmp_path: Path) -> None:
    store = memory(tmp_path)
    first = entry("用户偏好使用Java开发")
    assert store.store(first)
    assert not store.store(entry("用户偏好使用Java开发"))
    assert not store.store(entry("  用户偏好使用 Ｊａｖａ 开发。"))
    assert not store.store(entry("用户偏好的是使用Java开发"))
    assert [e.id for e in store.get_all()] == [first.id]


def test_dedup_respects_type_scope_and_project(tmp_path: Path) -> None:
    store = memory(tmp_path)
    assert store.store(entry("用户偏好使用Java开发"))
    assert store.store(entry("用户偏好使用Java开发", kind="SUMMARY"))
    assert store.store(entry("用户偏好使用Java开发", "project", "/repo/a"))
    assert store.store(entry("用户偏好使用Java开发", "project", "/repo/b"))
    assert store.store(entry("用户偏好使用Java开发", "project"))
    assert store.store(entry("用户偏好使用Java开发", "project"))  # no project key: never deduplicated
    assert store.size() == 6


def test_concurrent_duplicate_stores_are_atomic(tmp_path: Path) -> None:
    stores = [memory(tmp_path) for _ in range(3)]
    fact = "项目统一使用UTF-8编码"
    barrier = threading.Barrier(12)

    def worker(i: int) -> None:
        barrier.wait()
        stores[i % 3].store(entry(fact))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert stores[0].size() == 1
    assert stores[1].token_count() == estimate_tokens(fact)
    assert len(_disk(tmp_path)) == 1


def test_replacing_same_id_keeps_token_count_accurate(tmp_path: Path) -> None:
    store = memory(tmp_path)
    store.store(entry("短内容", entry_id="fact-00000001"))
    longer = entry("一条长得多的内容，用来确认替换之后 token 统计跟着变化", entry_id="fact-00000001")
    store.store(longer)
    assert store.size() == 1
    assert store.token_count() == longer.token_count == memory(tmp_path).token_count()


def test_search_by_keywords_in_storage_order(tmp_path: Path) -> None:
    store = memory(tmp_path)
    java = entry("用户偏好使用Java开发")
    python = entry("脚本使用 Python 编写")
    chrome = entry("访问语雀时复用 Chrome 登录态", site="yuque.com")
    for item in (java, python, chrome):
        store.store(item)
    assert store.search("java") == [java]
    assert store.search("Java Python") == [java, python]
    assert store.search("偏好设置") == [java]
    assert store.search("yuque.com") == [chrome]  # metadata values are searched too
    assert store.search("使用", limit=1) == [java]
    assert store.search("   ") == [] and store.search("kotlin") == []


def test_search_and_get_all_filter_by_project(tmp_path: Path) -> None:
    store = memory(tmp_path)
    global_fact = entry("默认用中文回答 Java")
    project_a = entry("项目 A 用 Java 17", "project", "/repo/a")
    project_b = entry("项目 B 用 Java 21", "project", "/repo/b")
    legacy = entry("老条目没有作用域 Java", scope=None)
    for item in (global_fact, project_a, project_b, legacy):
        store.store(item)
    assert store.get_all("/repo/a") == [global_fact, project_a, legacy]
    assert store.get_all() == [global_fact, project_a, project_b, legacy]
    assert store.search("java", 20, "/repo/b") == [global_fact, project_b, legacy]
    assert store.search("java", 20, "") == [global_fact, legacy]


def test_delete_filter_by_type_persist_and_status(tmp_path: Path) -> None:
    store = memory(tmp_path)
    fact = entry("事实一", when=NOW)
    summary = entry("摘要一", kind="SUMMARY")
    result = entry("工具结果一", kind="TOOL_RESULT")
    for item in (fact, summary, result):
        store.store(item)
    assert [e.id for e in store.get_by_type("SUMMARY")] == [summary.id]
    total = fact.token_count + summary.token_count + result.token_count
    assert store.status_summary() == f"长期记忆: 3条 / {total} tokens (事实: 1, 摘要: 1, 工具结果: 1)"
    assert store.delete(summary.id) and not store.delete(summary.id)
    reloaded = memory(tmp_path)
    assert [e.id for e in reloaded.get_all()] == [fact.id, result.id]
    assert reloaded.retrieve(fact.id) is not None and reloaded.retrieve(fact.id).timestamp == NOW  # type: ignore[union-attr]
    reloaded.clear()
    assert memory(tmp_path).size() == 0 and _disk(tmp_path) == []


def test_writes_leave_no_temp_files_and_keep_a_lock_file(tmp_path: Path) -> None:
    store = memory(tmp_path)
    for i in range(5):
        store.store(entry(f"第 {i} 条不同的事实 {'x' * i}"))
    names = sorted(os.listdir(tmp_path))
    assert names == [FILE_NAME, FILE_NAME + ".lock"]
