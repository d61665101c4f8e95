"""MemoryManager facade (MemoryManagerTest plus the seams for tracker, retriever and extractor)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from paicli.config.run_values import MemoryValues
from paicli.memory.manager import MAX_FACT_CHARS, MemoryManager
from paicli.memory.results import WriteStatus
from paicli.memory.store import _simple_tokens
from tests.memory.helpers import CLOCK, NOW, env, memory


@dataclass
class FakeTracker:
    seen: list[str] = field(default_factory=list)
    guard: bool = True

    def sources(self) -> list[str]:
        return list(self.seen)

    def blocks_automatic_memory(self) -> bool:
        return self.guard and bool(self.seen)


@dataclass
class FakeExtractor:
    quotes: list[str]
    calls: list[str] = field(default_factory=list)
    error: Exception | None = None

    def extract(self, text: str, corrects: Callable[[str], bool] | None = None) -> list[str]:
        self.calls.append(text)
        if self.error is not None:
            raise self.error
        return list(self.quotes)


@dataclass
class FakeRetriever:
    calls: list[tuple[str, int, str, str]] = field(default_factory=list)

    def build_context(self, query: str, max_tokens: int, project_key: str, exclude_text: str = "") -> str:
        self.calls.append((query, max_tokens, project_key, exclude_text))
        return f"## 相关长期记忆\n\n- {query}"


def manager(tmp_path: Path, project: Path | None = None, **kwargs: object) -> MemoryManager:
    root = project or tmp_path / "repo"
    root.mkdir(exist_ok=True)
    return MemoryManager(memory(tmp_path / "mem"), root, MemoryValues.parse(env()), clock=CLOCK, **kwargs)  # type: ignore[arg-type]


def test_reports_conversation_history_as_the_only_short_term_context(tmp_path: Path) -> None:
    lines = manager(tmp_path).status_lines("window: 200000", "Token 统计: 调用 0 次")
    assert len(lines) == 5
    assert lines[0] == "上下文策略: window: 200000" and lines[4] == "Token 统计: 调用 0 次"
    assert lines[1].startswith("短期上下文: 由本会话的对话历史维护")
    assert not any("conversationHistory" in line for line in lines)  # no internal names on screen
    assert lines[2] == "自动事实提取: 关闭"
    assert lines[3].startswith("长期记忆: 0条")


def test_auto_extract_status_shows_the_external_guard(tmp_path: Path) -> None:
    tracker = FakeTracker()
    mgr = manager(tmp_path, tracker=tracker)
    mgr.auto_extract_enabled = True
    assert mgr.auto_extract_status() == "开启"
    tracker.seen.append("web_fetch")
    assert mgr.auto_extract_status() == "开启（外部内容防护暂停）"


def test_clears_long_term_memory_only_when_explicitly_requested(tmp_path: Path) -> None:
    first = manager(tmp_path)
    first.store_fact("项目使用 Java 17")
    second = manager(tmp_path)
    assert len(second.list_all()) == 1
    second.clear()
    assert first.list_all() == []


def test_stores_project_scoped_facts_by_default(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    result = mgr.store_fact("  项目使用 Java 17 ")
    assert result.status is WriteStatus.STORED and result.entry is not None
    assert result.entry.content == "项目使用 Java 17"
    assert result.entry.metadata == {"source": "fact", "scope": "project", "project": mgr.project_key}
    assert mgr.project_key == str((tmp_path / "repo").resolve())
    assert result.entry.timestamp == NOW
    globally = mgr.store_fact("默认用中文回答", "GLOBAL")
    assert globally.entry is not None and globally.entry.metadata == {"source": "fact", "scope": "global"}


def test_searches_only_current_project_and_global_facts(tmp_path: Path) -> None:
    here = manager(tmp_path, tmp_path / "a")
    there = manager(tmp_path, tmp_path / "b")
    here.store_fact("项目 A 使用 Java 17")
    there.store_fact("项目 B 使用 Java 21")
    here.store_fact("默认用 Java 风格命名", "global")
    assert [e.content for e in here.search("java")] == ["项目 A 使用 Java 17", "默认用 Java 风格命名"]
    assert [e.content for e in there.search("java")] == ["项目 B 使用 Java 21", "默认用 Java 风格命名"]
    assert len(here.list_all()) == 3 and len(here.list_visible()) == 2


def test_explicit_save_records_external_context_in_metadata(tmp_path: Path) -> None:
    tracker = FakeTracker(["web_fetch", "mcp__docs__search"])
    mgr = manager(tmp_path, tracker=tracker)
    result = mgr.store_fact("访问 yuque.com 时复用 Chrome 登录态", "global")
    assert result.entry is not None
    assert result.entry.metadata["external_context"] == "true"
    assert result.entry.metadata["external_context_sources"] == "web_fetch,mcp__docs__search"
    assert result.entry.metadata["scope"] == "global" and "project" not in result.entry.metadata
    assert tracker.blocks_automatic_memory()


def test_replace_fact_keeps_old_scope_and_save_memory_tool_returns_text(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    old = mgr.store_fact("每次发布前跑 3 遍回归测试", "global").entry
    assert old is not None
    text = mgr.save_memory_tool("每次发布前跑 5 遍回归测试", "global")
    assert "冲突" in text and old.id in text and "keep_both=true" in text and "待确认" in text
    replaced = mgr.replace_fact(old.id, "每次发布前跑 7 遍回归测试")
    assert replaced.status is WriteStatus.REPLACED and replaced.entry is not None
    assert replaced.entry.scope == "global"
    kept = {e.id: e for e in mgr.list_all()}
    assert kept[old.id].metadata["supersededBy"] == replaced.entry.id  # replace keeps the old one as history
    assert "已替换" in mgr.save_memory_tool("服务端口是 7070", "global", replaced.entry.id)
    assert mgr.save_memory_tool("服务端口是 6060", "global", None, True).startswith("💾")
    assert mgr.replace_fact("fact-missing", "x").status is WriteStatus.REPLACE_TARGET_NOT_FOUND


@pytest.mark.parametrize("fact", ["", "   ", "\n\t"])
def test_empty_fact_is_refused_with_a_hint(tmp_path: Path, fact: str) -> None:
    mgr = manager(tmp_path)
    result = mgr.store_fact(fact)
    assert result.status is WriteStatus.INVALID and "/save" in result.describe()
    assert mgr.list_all() == []


def test_oversized_fact_is_refused_with_the_limit(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    huge = "很长的事实" * 20_000  # 100,000 characters
    result = mgr.store_fact(huge)
    assert result.status is WriteStatus.INVALID
    assert str(MAX_FACT_CHARS) in result.describe() and "100000" in result.describe()
    assert mgr.store_fact("a" * MAX_FACT_CHARS).status is WriteStatus.STORED
    assert mgr.store_fact("😀" * (MAX_FACT_CHARS // 2 + 1)).status is WriteStatus.INVALID  # UTF-16 units
    assert len(mgr.list_all()) == 1


def test_verify_and_delete(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    fact = mgr.store_fact("项目使用 Java 17").entry
    assert fact is not None
    verified = mgr.verify(fact.id)
    assert verified is not None and verified.last_verified_at == NOW
    assert mgr.verify("fact-missing") is None
    assert mgr.delete(fact.id) and not mgr.delete(fact.id)


def test_context_for_query_delegates_to_the_injected_retriever(tmp_path: Path) -> None:
    retriever = FakeRetriever()
    mgr = manager(tmp_path, retriever=retriever)
    assert mgr.context_for_query("java 版本", 640, "visible") == "## 相关长期记忆\n\n- java 版本"
    assert retriever.calls == [("java 版本", 640, mgr.project_key, "visible")]


class BrokenRetriever:
    def build_context(self, query: str, max_tokens: int, project_key: str, exclude_text: str = "") -> str:
        raise RuntimeError("tokenizer exploded")


def test_a_failing_retrieval_gives_no_memory_instead_of_failing_the_turn(tmp_path: Path) -> None:
    mgr = manager(tmp_path, retriever=BrokenRetriever())
    assert mgr.context_for_query("java 版本", 640) == ""


def test_default_retriever_renders_stored_facts(tmp_path: Path) -> None:
    pytest.importorskip("paicli.memory.retriever")
    mgr = manager(tmp_path)
    mgr.store_fact("项目构建使用 Java 17")
    block = mgr.context_for_query("java", 1000)
    assert "## 相关长期记忆" in block and "项目构建使用 Java 17" in block
    assert mgr.context_for_query("kotlin", 1000) == ""


def test_extracted_facts_are_saved_as_pending_project_facts(tmp_path: Path) -> None:
    extractor = FakeExtractor(["项目统一使用 UTF-8 编码", "项目统一使用 UTF-8 编码。", "服务端口是 8080"])
    mgr = manager(tmp_path, extractor=extractor)
    assert mgr.extract_facts_from_user_turn("原文") == []  # disabled by default
    assert extractor.calls == []
    mgr.auto_extract_enabled = True
    saved = mgr.extract_facts_from_user_turn("原文")
    assert [e.content for e in saved] == ["项目统一使用 UTF-8 编码", "服务端口是 8080"]
    assert saved[0].metadata == {
        "source": "auto_user_fact",
        "scope": "project",
        "project": mgr.project_key,
        "verification_pending": "true",
    }
    extractor.quotes = ["服务端口是 9090"]
    corrected = mgr.extract_facts_from_user_turn("原文")  # a changed value on the same subject supersedes
    assert [e.content for e in corrected] == ["服务端口是 9090"]
    old = next(e for e in mgr.list_all() if e.content == "服务端口是 8080")
    assert old.metadata["supersededBy"] == corrected[0].id and "supersededAt" in old.metadata
    notice = mgr.extraction_notice()
    assert "服务端口是 9090" in notice and "服务端口是 8080" in notice and "取代" in notice
    extractor.quotes = ["每次发布前跑 5 遍回归测试"]
    mgr.extract_facts_from_user_turn("原文")
    extractor.quotes = ["每次发布前跑 3 遍回归测试"]
    pending = mgr.extract_facts_from_user_turn("原文")  # a conflict without a cue: kept pending, announced
    assert len(pending) == 1 and pending[0].metadata["conflictPending"] == "true"
    assert "冲突" in mgr.extraction_notice() and "每次发布前跑 3 遍回归测试" in mgr.extraction_notice()
    assert len(mgr.list_all()) == 5


def test_the_session_hands_its_extractor_over_at_each_extraction(tmp_path: Path) -> None:
    """Built without an extractor (as the session builds it), the memory uses the one each call gives."""
    mgr = manager(tmp_path)
    mgr.auto_extract_enabled = True
    assert mgr.extract_facts_from_user_turn("原文") == []  # none given: nothing to extract with
    given = FakeExtractor(["项目统一使用 UTF-8 编码"])
    saved = mgr.extract_facts_from_user_turn("原文", given)
    assert [e.content for e in saved] == ["项目统一使用 UTF-8 编码"] and given.calls


def test_extraction_is_skipped_when_blocked_and_errors_are_swallowed(tmp_path: Path) -> None:
    tracker = FakeTracker(["web_fetch"])
    extractor = FakeExtractor(["项目统一使用 UTF-8 编码"])
    mgr = manager(tmp_path, tracker=tracker, extractor=extractor)
    mgr.auto_extract_enabled = True
    assert mgr.extract_facts_from_user_turn("原文") == [] and extractor.calls == []
    tracker.seen.clear()
    extractor.error = RuntimeError("model down")
    assert mgr.extract_facts_from_user_turn("原文") == [] and extractor.calls == ["原文"]


def test_fallback_tokenizer_splits_words_and_han_bigrams() -> None:
    assert _simple_tokens("偏好设置 java17 x") == {"偏好", "好设", "设置", "java17"}


def test_an_empty_store_answers_a_query_without_building_the_retriever(tmp_path: Path) -> None:
    mgr = manager(tmp_path)
    assert mgr.context_for_query("项目用哪个 Java 版本", 500) == ""
    assert mgr._retriever is None  # its modules (and numpy) were not needed
    assert mgr.store_fact("项目使用 Java 17").status == WriteStatus.STORED
    assert "Java 17" in mgr.context_for_query("项目用哪个 Java 版本", 500)
    assert mgr._retriever is not None
