"""Provider table and `/model` resolution (spec 1.3, 10.2, 10.3; CliCommandParserTest's table)."""

from __future__ import annotations

import pytest

from paicli.config.providers import (
    AUTO_ORDER,
    PROVIDERS,
    UnknownModelSpec,
    find_provider,
    provider,
    resolve_model_spec,
)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("deepseek-flash", ("deepseek", "deepseek-flash")),
        ("step-custom-model", ("step", "step-custom-model")),
        ("glm-4v-plus", ("glm", "glm-4v-plus")),
        ("step", ("step", "step-3.5-flash")),
        ("glm", ("glm", "glm-5.1")),
        ("kimi-k2.6", ("kimi", "kimi-k2.6")),
        ("moonshot", ("kimi", "kimi-k2.6")),
        ("free-llm-api", ("freellmapi", "auto")),
        ("maas", ("xfyun", "")),
        ("agnes-2.0-flash", ("agnes", "agnes-2.0-flash")),
        ("hunyuan", ("hunyuan", "hy4-preview")),
        ("hy4-preview", ("hunyuan", "hy4-preview")),
    ],
)
def test_reference_resolution_table(spec: str, expected: tuple[str, str]) -> None:
    assert resolve_model_spec(spec) == expected


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("iflytek", ("xfyun", "")),
        ("hy4", ("hunyuan", "hy4-preview")),
        ("tokenhub", ("hunyuan", "hy4-preview")),
        ("sapiens", ("agnes", "agnes-2.0-flash")),
        ("GLM", ("glm", "glm-5.1")),
        ("hunyuan-t1", ("hunyuan", "hunyuan-t1")),
        ("moonshot-v1-128k", ("kimi", "moonshot-v1-128k")),
        ("deepseek/deepseek-v4-pro", ("deepseek", "deepseek-v4-pro")),
        ("moonshot/kimi-latest", ("kimi", "kimi-latest")),
        ("xfyun/xdeepseekv3", ("xfyun", "xdeepseekv3")),
        ("glm/", ("glm", "glm-5.1")),
    ],
)
def test_aliases_prefixes_and_provider_slash_model(spec: str, expected: tuple[str, str]) -> None:
    assert resolve_model_spec(spec) == expected


def test_unknown_model_stays_on_the_current_provider() -> None:
    assert resolve_model_spec("my-local-model", current="paicli") == ("paicli", "my-local-model")
    assert resolve_model_spec("Qwen/Qwen3-8B", current="paicli") == ("paicli", "Qwen/Qwen3-8B")
    with pytest.raises(UnknownModelSpec):
        resolve_model_spec("my-local-model")
    with pytest.raises(UnknownModelSpec):
        resolve_model_spec("  ")


def test_prefix_match_does_not_leave_a_configured_endpoint_for_an_unconfigured_provider() -> None:
    assert resolve_model_spec("deepseek-flash", ("paicli",), "paicli") == ("paicli", "deepseek-flash")
    assert resolve_model_spec("deepseek-flash", ("paicli", "deepseek"), "paicli") == (
        "deepseek",
        "deepseek-flash",
    )
    assert resolve_model_spec("deepseek", ("paicli",), "paicli") == ("deepseek", "deepseek-flash")


def test_context_windows_and_cache_modes_follow_the_reference() -> None:
    expected = {
        "glm": (200_000, "glm-prompt-cache"),
        "deepseek": (1_000_000, "automatic-prefix-cache"),
        "kimi": (256_000, "moonshot-context-cache"),
        "step": (256_000, "step-prefix-cache"),
        "hunyuan": (1_000_000, "hunyuan-prefix-cache"),
        "agnes": (1_000_000, "none"),
        "freellmapi": (128_000, "none"),
        "xfyun": (128_000, "none"),
        "openai": (128_000, "automatic-prefix-cache"),
        "paicli": (128_000, "none"),
    }
    assert {p.name: (p.context_window, p.cache_mode) for p in PROVIDERS} == expected
    assert provider("glm").window_for("glm-5.3-air") == 1_000_000
    assert provider("glm").window_for("GLM-5.3") == 1_000_000
    assert provider("glm").window_for("glm-5.1") == 200_000
    assert provider("agnes").cache_mode == "none" and provider("glm").cache_mode != "none"


def test_key_aliases_and_auto_order() -> None:
    assert provider("kimi").key_envs[:2] == ("KIMI_API_KEY", "MOONSHOT_API_KEY")
    assert provider("hunyuan").key_envs == ("HUNYUAN_API_KEY", "TOKENHUB_API_KEY", "TENCENTMAAS_API_KEY")
    assert provider("xfyun").key_env == "XFYUN_MAAS_API_KEY"
    assert AUTO_ORDER == (
        "deepseek",
        "glm",
        "hunyuan",
        "step",
        "kimi",
        "freellmapi",
        "xfyun",
        "agnes",
        "openai",
    )
    assert provider("paicli").key_optional and not provider("deepseek").key_optional
    assert find_provider("agnes-ai") is provider("agnes") and find_provider("nope") is None
