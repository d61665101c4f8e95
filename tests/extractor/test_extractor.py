"""Port of the reference's AutoFactExtractorTest, through the real MemoryManager and LongTermMemory."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.llm.messages import ChatResponse, Message, Usage
from paicli.memory.clock import fixed_clock
from paicli.memory.extractor import (
    AutoFactExtractor,
    ExtractionOutcome,
    saved_message,
    store_extracted,
)
from paicli.memory.manager import MemoryManager
from paicli.memory.store import LongTermMemory
from paicli.testing.scripted_llm import ScriptedLLM

NOW = datetime(2026, 9, 23, tzinfo=timezone.utc)


def facts(*quotes: str) -> str:
    return json.dumps({"facts": [{"quote": q} for q in quotes]}, ensure_ascii=False)


class FakeTracker:
    """The two calls MemoryManager makes on paicli.memory.guard.ExternalContextTracker."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def observe(self, tool_name: str) -> None:
        if tool_name in ("web_fetch", "web_search") or tool_name.startswith(("mcp__", "browser_")):
            self.seen.append(tool_name)

    def sources(self) -> list[str]:
        return list(self.seen)

    def blocks_automatic_memory(self) -> bool:
        return bool(self.seen)


def make_manager(
    llm: ScriptedLLM, root: Path, tracker: FakeTracker | None = None
) -> tuple[MemoryManager, LongTermMemory]:
    env = EnvLookup(environ={})
    store = LongTermMemory(root / "memory", values=MemoryValues.parse(env), clock=fixed_clock(NOW))
    project = root / "project"
    project.mkdir(exist_ok=True)
    manager = MemoryManager(
        store,
        project,
        MemoryValues.parse(env),
        clock=fixed_clock(NOW),
        tracker=tracker,
        extractor=AutoFactExtractor(llm),
    )
    manager.auto_extract_enabled = True
    return manager, store


def test_saves_only_user_verbatim_facts_and_injects_them_as_pending_verification(tmp_path: Path) -> None:
    llm = ScriptedLLM([facts("我长期习惯用中文回答技术问题", "用户喜欢英文回答")])
    manager, store = make_manager(llm, tmp_path)

    saved = manager.extract_facts_from_user_turn("我长期习惯用中文回答技术问题。请解释这段代码。")

    assert [e.content for e in saved] == ["我长期习惯用中文回答技术问题"]
    entry = store.get_all()[0]
    assert entry.metadata["source"] == "auto_user_fact"
    assert entry.metadata["verification_pending"] == "true"
    assert entry.metadata["scope"] == "project"
    assert entry.metadata["project"] == manager.project_key
    assert llm.calls == 1
    assert llm.requests[0].tools is None
    context = manager.context_for_query("中文回答技术问题", 2000)
    assert "[自动提取，待核实]" in context and "尚未经用户核实" in context
    verified = manager.verify(entry.id)
    assert verified is not None and not verified.verification_pending
    assert "[自动提取，待核实]" not in manager.context_for_query("中文回答技术问题", 2000)


def test_rejects_malformed_responses_secrets_and_non_verbatim_claims(tmp_path: Path) -> None:
    llm = ScriptedLLM(["not json", facts("我们项目使用 Java 17")])
    manager, store = make_manager(llm, tmp_path)

    assert manager.extract_facts_from_user_turn("我们项目使用 Java 17。") == []
    text = "我们项目使用 Java 17。我的 API_KEY 是 abc123。"
    assert [e.content for e in manager.extract_facts_from_user_turn(text)] == ["我们项目使用 Java 17"]
    assert "abc123" not in llm.requests[1].messages[-1].text
    assert "API_KEY" not in llm.requests[1].messages[-1].text
    assert llm.calls == 2 and len(store.get_all()) == 1


def test_skips_after_external_content_confirms_restatements_and_supersedes_corrections(
    tmp_path: Path,
) -> None:
    tracker = FakeTracker()
    llm = ScriptedLLM(
        [facts("我们项目使用 Java 17"), facts("我们项目使用 Java 17"), facts("我们项目使用 Java 21")],
        default_reply=facts("我偏好简洁回答"),
    )
    manager, store = make_manager(llm, tmp_path, tracker)

    first = manager.extract_facts_from_user_turn("我们项目使用 Java 17。")
    assert len(first) == 1
    verified_at = store.get_all()[0].last_verified_at
    assert manager.extract_facts_from_user_turn("我们项目使用 Java 17。") == []  # a re-statement
    restated = store.get_all()[0]
    assert restated.metadata["confirmations"] == "1"
    assert restated.last_verified_at == verified_at and restated.verification_pending
    corrected = manager.extract_facts_from_user_turn("我们项目使用 Java 21。")
    assert [e.content for e in corrected] == ["我们项目使用 Java 21"]
    entries = {e.content: e for e in store.get_all()}
    assert entries["我们项目使用 Java 17"].metadata["supersededBy"] == corrected[0].id

    tracker.observe("web_fetch")
    assert manager.extract_facts_from_user_turn("我偏好简洁回答。") == []
    assert llm.calls == 3


def test_quoted_code_questions_and_temporary_requests_are_not_saved(tmp_path: Path) -> None:
    inputs_and_replies = [
        ("引用资料：\n> 我长期使用 Java 8。", "我长期使用 Java 8"),
        ("```text\n本项目使用 Java 17\n```", "本项目使用 Java 17"),
        ("我们项目使用 Redis 吗？", "我们项目使用 Redis"),
        ("我们现在使用 Java 21 排查问题。", "我们现在使用 Java 21 排查问题"),
    ]
    llm = ScriptedLLM([facts(reply) for _, reply in inputs_and_replies])
    manager, store = make_manager(llm, tmp_path)

    for text, _ in inputs_and_replies:
        assert manager.extract_facts_from_user_turn(text) == []
    assert store.get_all() == []


def test_inline_third_party_quote_cannot_become_memory_even_if_model_selects_it(tmp_path: Path) -> None:
    llm = ScriptedLLM([facts("我喜欢英文回答")])
    manager, store = make_manager(llm, tmp_path)

    assert manager.extract_facts_from_user_turn("读者留言说：‘我喜欢英文回答’。请分析这个观点。") == []
    assert store.get_all() == []
    assert llm.calls == 1


def test_configuration_can_disable_interactive_extraction() -> None:
    def enabled_by_configuration(lookup: EnvLookup) -> bool:  # the one parse, as the session reads it
        return MemoryValues.parse(lookup).auto_extract

    assert enabled_by_configuration(EnvLookup(environ={}))
    for off in ("false", "0", "no", "OFF"):
        assert not enabled_by_configuration(EnvLookup(environ={"PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": off}))
    assert enabled_by_configuration(EnvLookup(environ={"PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "true"}))


def test_light_model_is_used_when_configured() -> None:
    seen: list[str] = []

    class Recording(ScriptedLLM):
        def with_model(self, model: str) -> ScriptedLLM:
            seen.append(model)
            return ScriptedLLM([facts("我偏好简洁回答")], model_name=model)

    extractor = AutoFactExtractor(Recording(), model="glm-4-flash")
    assert seen == ["glm-4-flash"]
    assert extractor.llm is not None and extractor.llm.model == "glm-4-flash"
    assert list(extractor.extract("我偏好简洁回答。")) == ["我偏好简洁回答"]


def test_the_session_model_as_light_model_keeps_the_same_client() -> None:
    llm = ScriptedLLM([facts("我偏好简洁回答")], model_name="main")
    assert AutoFactExtractor(llm, model="main").llm is llm
    assert AutoFactExtractor(llm).llm is llm  # not re-read


def test_prompt_carries_the_safe_input_and_the_outcome_reports_the_call() -> None:
    usage = Usage(120, 9)
    reply = ChatResponse(Message.assistant(facts("本项目使用 Java 17 和 Maven")), usage)
    llm = ScriptedLLM([reply])
    outcome = AutoFactExtractor(llm).extract("本项目使用 Java 17 和 Maven。")

    assert isinstance(outcome, ExtractionOutcome)
    assert (
        outcome.quotes == ["本项目使用 Java 17 和 Maven"] and outcome.model_called and outcome.usage == usage
    )
    system, user = llm.requests[0].messages
    assert system.role == "system" and "JSON" in system.text
    assert '{"facts":[{"quote":"用户原文中的连续片段"}]}' in user.text
    assert "=== 用户原文 ===\n本项目使用 Java 17 和 Maven。\n=== 结束 ===" in user.text


def test_local_filters_skip_the_model_call() -> None:
    llm = ScriptedLLM(default_reply=facts())
    extractor = AutoFactExtractor(llm)
    too_long = "我们项目使用 Java。" * 400
    for text in ("我用Go", too_long, "我的密码是 example-only-123。", "能帮我看下这个报错吗？", None):
        outcome = extractor.extract(text)
        assert outcome.quotes == [] and not outcome.model_called
    assert llm.calls == 0
    assert AutoFactExtractor(None).extract("我偏好简洁回答。") == []


def test_store_extracted_writes_pending_project_facts_and_drops_duplicates(tmp_path: Path) -> None:
    store = LongTermMemory(
        tmp_path / "memory", values=MemoryValues.parse(EnvLookup(environ={})), clock=fixed_clock(NOW)
    )
    saved = store_extracted(
        store, ["我偏好简洁回答", "我偏好简洁回答。", "本项目使用 Java 17"], "/repo/a", fixed_clock(NOW)
    )

    assert [e.content for e in saved] == ["我偏好简洁回答", "本项目使用 Java 17"]
    on_disk = json.loads((tmp_path / "memory" / "long_term_memory.json").read_text(encoding="utf-8"))
    plain = {
        "source": "auto_user_fact",
        "scope": "project",
        "project": "/repo/a",
        "verification_pending": "true",
    }
    assert [e["metadata"] for e in on_disk] == [{**plain, "confirmations": "1"}, plain]  # said twice
    assert all(e["id"].startswith("fact-") and e["timestamp"] == "2026-09-23T00:00:00Z" for e in on_disk)


def test_usage_of_each_extraction_call_is_reported() -> None:
    usage = Usage(80, 6)
    recorded: list[Usage] = []
    llm = ScriptedLLM([ChatResponse(Message.assistant(facts()), usage)])
    extractor = AutoFactExtractor(llm, on_usage=recorded.append)
    assert extractor.extract("我偏好简洁回答。") == []
    assert extractor.extract("这个报错是怎么回事？") == []  # a question: no call, nothing to record
    assert recorded == [usage]


def test_saved_count_notice_is_in_our_own_words() -> None:
    text = saved_message(3)
    assert "3 条" in text and "待核实" in text and "/memory list" in text
    assert "自动提取并保存" not in text  # the reference's sentence, not ours
