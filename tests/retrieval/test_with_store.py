"""The retriever against the real long-term memory file: scope filtering, pending and stale labels."""

from __future__ import annotations

from datetime import timedelta, timezone
from pathlib import Path

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.entry import MemoryEntry
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.store import LongTermMemory
from tests.retrieval.fakes import NOW


def fact(entry_id: str, content: str, age_days: int = 0, **metadata: str) -> MemoryEntry:
    stamp = NOW - timedelta(days=age_days)
    return MemoryEntry(
        id=entry_id,
        content=content,
        type="FACT",
        timestamp=stamp,
        last_verified_at=stamp,
        metadata=metadata,
        token_count=8,
    )


def test_only_global_and_current_project_memories_are_retrieved(tmp_path: Path) -> None:
    env = EnvLookup(environ={})
    store = LongTermMemory(tmp_path / "memory", values=MemoryValues.parse(env), clock=lambda: NOW)
    store.store(fact("fact-a", "项目 A 构建使用 Java 17", scope="project", project="/repo/a"))
    store.store(fact("fact-b", "项目 B 构建使用 Java 21", scope="project", project="/repo/b"))
    store.store(fact("fact-g", "构建失败时先清理本地缓存", scope="global"))
    store.store(
        fact(
            "fact-p",
            "构建脚本在 build.sh",
            age_days=60,
            scope="project",
            project="/repo/a",
            verification_pending="true",
        )
    )
    retriever = MemoryRetriever(store, MemoryValues.parse(env), clock=lambda: NOW, zone=timezone.utc)
    block = retriever.build_context("构建", 1000, "/repo/a")
    assert "Java 17" in block and "清理本地缓存" in block
    assert "Java 21" not in block
    assert (
        "- [FACT][自动提取，待核实][可能已过时] 构建脚本在 build.sh（写入 2026-07-25，尚未经用户核实，已超过 30 天未核实"
        in block
    )
    reopened = MemoryRetriever(
        LongTermMemory(tmp_path / "memory", values=MemoryValues.parse(env)),
        MemoryValues.parse(env),
        clock=lambda: NOW,
    )
    assert "Java 21" in reopened.build_context("构建", 1000, "/repo/b")
