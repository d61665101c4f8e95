from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from paicli.config import knobs
from paicli.config.env import ConfigError, EnvLookup
from paicli.context.profile import ContextProfile


def test_glm_derives_params_from_200k_window() -> None:
    profile = ContextProfile.from_window(200_000, "glm-prompt-cache")
    assert profile.compression_trigger_tokens == 167_000
    assert profile.compression_trigger_ratio == pytest.approx(0.835)
    assert profile.mcp_resource_index_enabled
    assert profile.cache_mode == "glm-prompt-cache"
    assert profile.memory_context_tokens == 1000


def test_deepseek_derives_params_from_million_window() -> None:
    profile = ContextProfile.from_window(1_000_000, "automatic-prefix-cache")
    assert profile.compression_trigger_tokens == 967_000
    assert profile.cache_mode == "automatic-prefix-cache"
    assert profile.memory_context_tokens == 5000


@pytest.mark.parametrize(
    ("window", "trigger"),
    [(8_000, 5_000), (16_000, 10_000), (32_000, 20_000), (128_000, 95_000), (256_000, 223_000)],
)
def test_compression_trigger_is_always_on_regardless_of_window_size(window: int, trigger: int) -> None:
    profile = ContextProfile.from_window(window)
    assert profile.compression_trigger_tokens == trigger
    assert 0 < profile.compression_trigger_tokens < profile.window


def test_small_window_disables_mcp_resource_index_injection() -> None:
    profile = ContextProfile.from_window(16_000)
    assert not profile.mcp_resource_index_enabled


def test_custom_profile_uses_requested_window() -> None:
    profile = ContextProfile.from_window(128_000)
    assert profile.window == 128_000
    assert profile.compression_trigger_tokens == 95_000
    assert profile.memory_context_tokens == 640


def test_null_client_falls_back_to_reasonable_default() -> None:
    profile = ContextProfile.from_window(None)
    assert profile.window == 128_000
    assert ContextProfile.from_window(100).window == 8_000


def test_summary_line() -> None:
    assert ContextProfile.from_window(200_000, "glm-prompt-cache").summary() == (
        "window: 200000 | 压缩阈值: 83.5% (167000 tokens) | MCP resource 索引: on | prompt cache: glm-prompt-cache"
    )


def test_a_session_summary_says_what_it_observed_and_names_mcp_only_where_configured() -> None:
    profile = ContextProfile.from_window(200_000, "none")
    assert profile.summary(mcp_configured=False, cache="生效（命中 89.6%）") == (
        "window: 200000 | 压缩阈值: 83.5% (167000 tokens) | prompt cache: 生效（命中 89.6%）"
    )


def test_configured_window_is_range_checked() -> None:
    assert knobs.CONTEXT_WINDOW.read(EnvLookup(environ={"PAICLI_CONTEXT_WINDOW": "16000"})) == 16_000
    assert ContextProfile.from_window(16_000, "none").compression_trigger_tokens == 10_000
    assert knobs.CONTEXT_WINDOW.read(EnvLookup(environ={})) is None
    for bad in ("100", "20000000", "big"):
        with pytest.raises(ConfigError):
            knobs.CONTEXT_WINDOW.read(EnvLookup(environ={"PAICLI_CONTEXT_WINDOW": bad}))


def test_a_known_model_behind_a_gateway_gets_its_own_providers_profile(tmp_path: Path) -> None:
    from paicli.config.settings import load_settings

    def settings(model: str) -> Any:
        env = EnvLookup(
            environ={
                "HOME": str(tmp_path),
                "PAICLI_HOME": str(tmp_path / ".paicli"),
                "PAICLI_BASE_URL": "http://gateway.internal:4000/v1",
                "PAICLI_MODEL": model,
            },
            cwd=tmp_path,
        )
        return load_settings(env, cwd=tmp_path)

    for model in ("deepseek-chat", "deepseek/deepseek-chat"):
        found = settings(model)
        assert found.provider == "paicli" and found.base_url == "http://gateway.internal:4000/v1"
        assert found.context_window == 1_000_000 and found.cache_mode == "automatic-prefix-cache"
        assert found.reasoning_in_wire
        assert (
            ContextProfile.from_window(found.context_window, found.cache_mode).compression_trigger_tokens
            == 967_000
        )
    unknown = settings("my-local-model")
    assert (
        unknown.context_window == 128_000 and unknown.cache_mode == "none" and not unknown.reasoning_in_wire
    )
