"""A memory the model saves is labelled as the model's (issue 37): its own `source`, pending verification,
tagged `[模型保存，待核实]` in the recall block and marked in /memory list; never the user's verified fact, and a
re-statement by the model confirms nothing. The user's own /save keeps the reference's `source=fact`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.config.run_values import MemoryValues
from paicli.memory.commands import MemoryCommand, run_memory_command
from paicli.memory.manager import MemoryManager
from paicli.memory.provenance import MODEL_SOURCE, MODEL_TAG, USER_SOURCE
from paicli.memory.recall_block import PENDING_TAG, render_line
from paicli.memory.results import WriteStatus
from tests.memory.helpers import CLOCK, NOW, env, memory


def manager(tmp_path: Path) -> MemoryManager:
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    return MemoryManager(memory(tmp_path / "mem"), root, MemoryValues.parse(env()), clock=CLOCK)


def on_disk(tmp_path: Path) -> list[dict[str, object]]:
    data = json.loads((tmp_path / "mem" / "long_term_memory.json").read_text(encoding="utf-8"))
    assert isinstance(data, list)
    return data


def test_a_model_save_has_its_own_source_and_waits_for_the_user(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    text = mgr.save_memory_tool("项目使用 pnpm 管理依赖")
    assert text.startswith("💾") and "模型保存，待核实" in text and "/memory verify" in text
    [saved] = on_disk(tmp_path)
    assert list(saved) == ["id", "content", "type", "timestamp", "lastVerifiedAt", "metadata", "tokenCount"]
    metadata = saved["metadata"]
    assert isinstance(metadata, dict)
    assert metadata["source"] == MODEL_SOURCE and metadata["verification_pending"] == "true"
    assert metadata["scope"] == "project" and metadata["project"] == mgr.project_key


def test_the_users_own_save_keeps_the_reference_source(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    mgr.store_fact("项目使用 pnpm 管理依赖")
    [saved] = on_disk(tmp_path)
    metadata = saved["metadata"]
    assert isinstance(metadata, dict)
    assert metadata["source"] == USER_SOURCE and "verification_pending" not in metadata


def test_recall_tags_a_model_save_apart_from_extraction_and_from_verified_facts(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    mgr.save_memory_tool("部署目标是 k8s 集群 prod-east")
    mgr.store_fact("项目构建使用 Java 21")
    by_content = {e.content: e for e in mgr.list_all()}
    model_line = render_line(by_content["部署目标是 k8s 集群 prod-east"], NOW, 30)
    user_line = render_line(by_content["项目构建使用 Java 21"], NOW, 30)
    assert model_line.startswith(f"- [FACT]{MODEL_TAG} ") and "尚未经用户核实" in model_line
    assert PENDING_TAG not in model_line  # not passed off as a quote of the user's own words either
    assert user_line.startswith("- [FACT] ") and "最后核实" in user_line


def test_memory_list_marks_a_model_save_until_the_user_verifies_it(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    mgr.save_memory_tool("部署目标是 k8s 集群 prod-east")
    [entry] = mgr.list_all()
    listed = run_memory_command(mgr, MemoryCommand("list")).text
    assert "🤖 模型保存，待核实" in listed and "尚未经用户核实" in listed
    run_memory_command(mgr, MemoryCommand("verify", entry.id))
    [verified] = mgr.list_all()
    assert not verified.verification_pending and verified.metadata["source"] == MODEL_SOURCE
    assert "🤖 模型保存，已由你核实" in run_memory_command(mgr, MemoryCommand("list")).text
    assert render_line(verified, NOW, 30).startswith("- [FACT] ")


def test_a_model_restatement_does_not_confirm_a_pending_fact(tmp_path: Path) -> None:
    """Saying back an injected, unverified memory must not turn it into a verified fact."""
    mgr = manager(tmp_path)
    first = mgr.save_model_fact("部署目标是 k8s 集群 prod-east")
    assert first.status is WriteStatus.STORED
    again = mgr.save_model_fact("部署目标是 k8s 集群 prod-east")
    assert again.status is WriteStatus.DUPLICATE
    text = mgr.save_memory_tool("部署目标是 k8s 集群 prod-east")
    assert "没有改变它的核实状态" in text and "核实时间刷新" not in text
    [entry] = mgr.list_all()
    assert entry.verification_pending


@pytest.mark.parametrize("keep_both", [False, True])
def test_a_model_replacement_stays_the_models_and_pending(tmp_path: Path, keep_both: bool) -> None:
    mgr = manager(tmp_path)
    old = mgr.store_fact("服务端口是 8080").entry
    assert old is not None
    result = mgr.save_model_fact("服务端口是 9090", "project", None if keep_both else old.id, keep_both)
    assert result.written and result.entry is not None
    assert result.entry.metadata["source"] == MODEL_SOURCE and result.entry.verification_pending
