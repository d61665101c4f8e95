"""Reasoning effort (issue 42): each provider's own parameter, nothing for a model without one."""

from __future__ import annotations

from paicli.config.effort import effort_fields


def test_each_provider_gets_its_own_parameter() -> None:
    assert effort_fields("openai", "o4-mini", "high") == {"reasoning_effort": "high"}
    assert effort_fields("openai", "gpt-4o-mini", "high") is None
    assert effort_fields("deepseek", "deepseek-flash", "low") == {"thinking": {"type": "disabled"}}
    assert effort_fields("deepseek", "deepseek-flash", "high") == {
        "thinking": {"type": "enabled"},
        "reasoning_effort": "max",
    }
    assert effort_fields("glm", "glm-5.1", "medium") == {"thinking": {"type": "enabled"}}
    assert effort_fields("kimi", "kimi-k2.6", "low") == {"thinking": {"type": "disabled"}}
    assert effort_fields("paicli", "qwen3:8b", "low") == {"reasoning_effort": "low"}
    assert effort_fields("step", "step-3.5-flash", "high") is None
    assert effort_fields("step", "step-3.5-flash", "default") == {}
