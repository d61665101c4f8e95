"""MemoryFreshnessTest's retrieval cases, through MemoryManager with the real retriever (clock 2026-09-23)."""

from __future__ import annotations

from datetime import timedelta, timezone
from pathlib import Path

import pytest

from paicli.config.run_values import MemoryValues
from paicli.memory.manager import MemoryManager
from tests.memory.helpers import CLOCK, NOW, entry, env, memory

retriever_module = pytest.importorskip("paicli.memory.retriever")


def _manager(tmp_path: Path, **values: str) -> MemoryManager:
    store = memory(tmp_path / "mem", **values)
    retriever = retriever_module.MemoryRetriever(
        store, MemoryValues.parse(env(**values)), CLOCK, timezone.utc
    )
    return MemoryManager(store, tmp_path, MemoryValues.parse(env(**values)), clock=CLOCK, retriever=retriever)


def test_retriever_labels_entries_not_verified_within_configured_period(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    mgr.store.store(entry("项目构建使用 Java 17", when=NOW - timedelta(days=90)))
    mgr.store.store(
        entry("项目测试使用 Java 单元测试", when=NOW - timedelta(days=90), verified=NOW - timedelta(days=3))
    )
    block = mgr.context_for_query("java", 1000)
    assert "线索而不是事实" in block
    stale = next(line for line in block.splitlines() if "Java 17" in line)
    fresh = next(line for line in block.splitlines() if "单元测试" in line)
    assert "[可能已过时]" in stale and "写入 2026-06-25" in stale and "已超过 30 天未核实" in stale
    assert "[可能已过时]" not in fresh and "最后核实 2026-09-20" in fresh


def test_non_positive_stale_period_disables_label(tmp_path: Path) -> None:
    mgr = _manager(tmp_path, PAICLI_MEMORY_STALE_DAYS="0")
    mgr.store.store(entry("项目构建使用 Java 17", when=NOW - timedelta(days=90)))
    block = mgr.context_for_query("java", 1000)
    assert "项目构建使用 Java 17" in block and "可能已过时" not in block


def test_verify_removes_the_stale_label(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    old = entry("项目构建使用 Java 17", when=NOW - timedelta(days=90))
    mgr.store.store(old)
    assert "[可能已过时]" in mgr.context_for_query("java", 1000)
    assert mgr.verify(old.id) is not None
    block = mgr.context_for_query("java", 1000)
    assert "[可能已过时]" not in block and "最后核实 2026-09-23" in block
