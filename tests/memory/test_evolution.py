"""Issue 28 rules end to end over the real store, manager, retriever and /memory commands."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from paicli.config.run_values import MemoryValues
from paicli.memory.commands import parse_memory_args, run_memory_command
from paicli.memory.manager import MemoryManager
from paicli.memory.recall_block import STALE_TAG
from paicli.memory.results import WriteStatus
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.said import injected_line
from paicli.memory.vector_file import index_path_for

from .helpers import CLOCK, NOW, entry, env, memory


def _manager(tmp_path: Path, on_injected: Callable[[list[str]], None] | None = None) -> MemoryManager:
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    values = MemoryValues.parse(env())
    return MemoryManager(memory(tmp_path / "mem"), root, values, clock=CLOCK, on_injected=on_injected)


def test_superseded_and_pending_facts_are_never_injected(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("我们项目用的是 Java 17")
    corrected = mgr.store_fact("我们项目升级到 Java 21 了，17 已经不用了")
    assert corrected.status is WriteStatus.SUPERSEDED
    block = mgr.context_for_query("项目用哪个 Java 版本", 2000)
    assert "Java 21" in block and "用的是 Java 17" not in block
    mgr.store_fact("每次发布前跑 3 遍回归测试")
    pending = mgr.store_fact("每次发布前跑 5 遍回归测试")
    assert pending.status is WriteStatus.CONFLICT
    block = mgr.context_for_query("发布前跑几遍回归测试", 2000)
    assert "3 遍" in block and "5 遍" not in block  # never both as truths


def test_verify_settles_a_pending_conflict_in_its_favour(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    old = mgr.store_fact("每次发布前跑 3 遍回归测试").entry
    new = mgr.store_fact("每次发布前跑 5 遍回归测试").entry
    assert old is not None and new is not None
    listed = run_memory_command(mgr, parse_memory_args("/memory conflicts")).text
    assert new.id in listed and old.id in listed and "待确认" in listed
    assert "待确认冲突 1 条" in run_memory_command(mgr, parse_memory_args("/memory")).text
    assert new.id in run_memory_command(mgr, parse_memory_args(f"/memory verify {new.id}")).text
    assert run_memory_command(mgr, parse_memory_args("/memory conflicts")).text.startswith("✅")
    block = mgr.context_for_query("发布前跑几遍回归测试", 2000)
    assert "5 遍" in block and "3 遍" not in block
    history = run_memory_command(mgr, parse_memory_args(f"/memory history {new.id}")).text
    versions = history.split("\n", 1)[1]  # below the title, oldest first
    assert versions.index(old.id) < versions.index(new.id) and f"已被 {new.id} 取代" in versions


def test_list_hides_superseded_entries_and_list_all_shows_them(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    old = mgr.store_fact("测试环境的端口是 8080").entry
    new = mgr.store_fact("测试环境端口现在是 9090，之前说的 8080 是旧环境的").entry
    assert old is not None and new is not None
    current = run_memory_command(mgr, parse_memory_args("/memory list")).text
    assert new.id in current and old.id not in current
    everything = run_memory_command(mgr, parse_memory_args("/memory list --all")).text
    assert old.id in everything and f"已被 {new.id} 取代" in everything
    status = run_memory_command(mgr, parse_memory_args("/memory")).text
    assert "被取代的旧版本 1 条" in status and "待确认冲突 0 条" in status
    assert "history" in run_memory_command(mgr, parse_memory_args("/memory history")).text


def test_a_linked_project_file_changed_after_verification_marks_the_fact_stale(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    build = tmp_path / "repo" / "build.gradle"
    build.write_text("plugins {}\n", encoding="utf-8")
    mgr.store_fact("构建脚本 build.gradle 里 Java 版本是 17")
    verified = NOW.timestamp()
    os.utime(build, (verified - 3600, verified - 3600))
    assert STALE_TAG not in mgr.context_for_query("build.gradle 的 Java 版本", 2000)
    os.utime(build, (verified + 3600, verified + 3600))
    block = mgr.context_for_query("build.gradle 的 Java 版本", 2000)
    assert STALE_TAG in block and "build.gradle 在最后核实之后改过" in block


def test_confirmed_facts_rank_higher(tmp_path: Path) -> None:
    store = memory(tmp_path)
    plain = entry("缓存用 Redis 集群", when=NOW - timedelta(days=2))
    confirmed = entry("缓存策略用 Redis 集群", when=NOW - timedelta(days=2), confirmations="3")
    store.store(plain)
    store.store(confirmed)
    retriever = MemoryRetriever(store, MemoryValues.parse(env()), CLOCK)
    top = retriever.top("redis 集群", "")
    assert [item.entry.id for item in top[:2]] == [confirmed.id, plain.id]
    assert top[0].score > top[1].score


def test_duplicate_save_and_verify_count_confirmations(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    first = mgr.store_fact("项目统一使用 UTF-8 编码").entry
    assert first is not None
    again = mgr.store_fact("项目统一使用 UTF-8 编码。")
    assert again.status is WriteStatus.DUPLICATE and again.entry is not None
    assert again.entry.metadata["confirmations"] == "1"
    verified = mgr.verify(first.id)
    assert verified is not None and verified.metadata["confirmations"] == "2"


def test_the_token_index_is_persisted_and_reused_without_retokenising(tmp_path: Path) -> None:
    store = memory(tmp_path)
    for i in range(5):
        store.store(entry(f"模块 {i} 的构建命令是 make build-{i}"))
    index = index_path_for(store.path)
    first = MemoryRetriever(store, MemoryValues.parse(env()), CLOCK, index_path=index)
    first.save_delay = 0.0
    assert first.top("构建命令", "")
    assert first.flush_index(60)
    assert index.exists() and (index.stat().st_mode & 0o777) == 0o600  # the tokens ride in the vector index
    second = MemoryRetriever(memory(tmp_path), MemoryValues.parse(env()), CLOCK, index_path=index)
    assert second.top("构建命令", "")
    assert second.index_updates == 0 and second.index_builds == 0  # loaded, nothing segmented again


def test_the_repl_hook_sees_every_injected_memory(tmp_path: Path) -> None:
    seen: list[list[str]] = []
    mgr = _manager(tmp_path, seen.append)
    mgr.store_fact("我们项目用的是 Java 17")
    assert mgr.context_for_query("java 版本", 2000)
    assert seen == [["我们项目用的是 Java 17"]]
    line = injected_line(["我们项目用的是 Java 17", "团队约定：提交信息用英文写"])
    assert line.startswith("🧠 本轮带入 2 条长期记忆：我们项目用的是 Java 17") and "Ctrl+O" in line


SCRIPT = """
import sys
from pathlib import Path
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.manager import MemoryManager
from paicli.memory.store import LongTermMemory
store = LongTermMemory(Path(sys.argv[1]), MemoryValues.parse(EnvLookup(environ={})))
manager = MemoryManager(store, sys.argv[2], MemoryValues.parse(EnvLookup(environ={})))
manager.warm_index()
manager.context_for_query(sys.argv[3], 2000)
manager.flush_index()
print("jieba" in sys.modules)
"""


def _loads_jieba(folder: Path, project: Path, query: str) -> bool:
    proc = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(folder), str(project), query],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return proc.stdout.strip().splitlines()[-1] == "True"


def test_jieba_stays_unloaded_for_an_empty_store_and_for_queries_without_han(tmp_path: Path) -> None:
    folder, project = tmp_path / "mem", tmp_path / "repo"
    project.mkdir()
    assert not _loads_jieba(folder, project, "项目用哪个 Java 版本")  # empty store: nothing to rank
    store = memory(folder)
    store.store(entry("我们项目用的是 Java 17"))
    store.store(entry("团队约定：提交信息用英文写"))
    assert _loads_jieba(folder, project, "java version")  # first process: indexes built, then saved
    assert not _loads_jieba(folder, project, "hello")  # tokens and vectors come from disk
    assert _loads_jieba(folder, project, "项目用哪个版本")  # a Chinese query is segmented by jieba


# ---- issue 37: the local rules through the store, as /save applies them --------------------------------------


def _truths(mgr: MemoryManager) -> list[str]:
    from paicli.memory import evolve

    return sorted(e.content for e in mgr.list_all() if evolve.is_truth(e))


def test_a_negation_supersedes_and_never_confirms_the_opposite(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("部署环境在 AWS 东京区")
    result = mgr.store_fact("部署环境不在 AWS 东京区")
    assert result.status is WriteStatus.SUPERSEDED
    old = result.superseded[0]
    assert old.content == "部署环境在 AWS 东京区" and "confirmations" not in old.metadata
    assert _truths(mgr) == ["部署环境不在 AWS 东京区"]
    assert "东京区" not in " ".join(e for e in _truths(mgr) if "不在" not in e)


def test_a_negation_with_its_replacement_stores_one_truth(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("缩进用 4 个空格")
    assert mgr.store_fact("缩进不用 4 个空格，用 tab").status is WriteStatus.SUPERSEDED
    assert _truths(mgr) == ["缩进不用 4 个空格，用 tab"]


def test_a_return_to_an_earlier_value_supersedes_the_current_one(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("The default branch is main")
    trunk = mgr.store_fact("The default branch is trunk now.").entry
    back = mgr.store_fact("The default branch is main again.")
    assert trunk is not None and back.status is WriteStatus.SUPERSEDED
    assert [old.id for old in back.superseded] == [trunk.id]  # the current truth, not the first statement
    assert _truths(mgr) == ["The default branch is main again."]


def test_a_correction_naming_only_the_new_value_supersedes(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("数据库连接池大小是 20")
    mgr.store_fact("连接池调到 40 了")
    mgr.store_fact("连接池现在是 32")
    assert _truths(mgr) == ["连接池现在是 32"]


def test_old_value_wording_supersedes(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("The backend is on JDK 17")
    mgr.store_fact("The backend is on JDK 21 now, we dropped 17.")
    mgr.store_fact("发布审批人是周敏")
    mgr.store_fact("发布审批人换成李娜了")
    mgr.store_fact("发布审批人还是周敏，李娜那条作废")
    assert _truths(mgr) == [
        "The backend is on JDK 21 now, we dropped 17.",
        "发布审批人还是周敏，李娜那条作废",
    ]


def test_near_duplicate_subjects_of_others_are_never_superseded(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("移动端的发布审批人是王强")
    mgr.store_fact("For the Apollo project, the release approver is Li Na.")
    mgr.store_fact("发布审批人是周敏")
    mgr.store_fact("The release approver is Zhou Min.")
    assert mgr.store_fact("发布审批人换成李娜了").superseded[0].content == "发布审批人是周敏"
    assert "移动端的发布审批人是王强" in _truths(mgr)
    assert "For the Apollo project, the release approver is Li Na." in _truths(mgr)


def test_a_shorter_subject_held_by_two_different_ones_supersedes_neither(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store_fact("JDK 版本是 17")
    mgr.store_fact("Node 版本是 18")
    result = mgr.store_fact("版本是 21")
    assert result.status is WriteStatus.STORED
    assert _truths(mgr) == ["JDK 版本是 17", "Node 版本是 18", "版本是 21"]
