"""load_settings: lookup order, provider precedence, config.json, bounds, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.config.env import ConfigError, EnvLookup
from paicli.config.settings import Settings, load_settings, mask_key
from paicli.llm.client import client_from_settings


@pytest.fixture
def dirs(tmp_path: Path) -> dict[str, Path]:
    layout = {
        "home": tmp_path / "home",
        "paicli_home": tmp_path / "home" / ".paicli",
        "cwd": tmp_path / "proj",
    }
    for path in layout.values():
        path.mkdir(parents=True, exist_ok=True)
    return layout


def load(
    dirs: dict[str, Path], environ: dict[str, str] | None = None, cli_model: str | None = None
) -> Settings:
    base = {"HOME": str(dirs["home"]), "PAICLI_HOME": str(dirs["paicli_home"])}
    env = EnvLookup(environ={**base, **(environ or {})}, cwd=dirs["cwd"])
    return load_settings(env, cli_model, cwd=dirs["cwd"])


def write_config(dirs: dict[str, Path], data: object) -> Path:
    path = dirs["paicli_home"] / "config.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data, encoding="utf-8")
    return path


def test_generic_endpoint_takes_precedence_and_needs_no_key(dirs: dict[str, Path]) -> None:
    settings = load(
        dirs,
        {
            "PAICLI_BASE_URL": "http://127.0.0.1:9/v1/",
            "PAICLI_MODEL": "fake-model",
            "DEEPSEEK_API_KEY": "sk-deepseek",
        },
    )
    assert (settings.provider, settings.model, settings.base_url) == (
        "paicli",
        "fake-model",
        "http://127.0.0.1:9/v1",
    )
    assert settings.api_key is None and settings.context_window == 128_000 and settings.cache_mode == "none"
    assert settings.describe() == "fake-model (paicli)"
    assert settings.project_root == dirs["cwd"].resolve() and settings.paicli_home == dirs["paicli_home"]
    assert (settings.memory_placement, settings.approval_mode) == ("turn", "auto")
    assert settings.light_model == "fake-model" and settings.compaction_model == "fake-model"


def test_generic_endpoint_takes_the_cli_model_verbatim(dirs: dict[str, Path]) -> None:
    env = {"PAICLI_BASE_URL": "http://127.0.0.1:9/v1", "PAICLI_MODEL": "fake-model"}
    assert load(dirs, env, cli_model="deepseek-flash").model == "deepseek-flash"
    assert load(dirs, env, cli_model="paicli/other").model == "other"
    with pytest.raises(ConfigError, match="PAICLI_MODEL"):
        load(dirs, {"PAICLI_BASE_URL": "http://127.0.0.1:9/v1"})


def test_first_provider_with_a_key_wins_in_reference_order(dirs: dict[str, Path]) -> None:
    settings = load(dirs, {"KIMI_API_KEY": "sk-kimi-123456", "STEP_API_KEY": "sk-step-123456"})
    assert (settings.provider, settings.model, settings.base_url) == (
        "step",
        "step-3.5-flash",
        "https://api.stepfun.com/v1",
    )
    assert settings.context_window == 256_000 and settings.cache_mode == "step-prefix-cache"
    assert settings.available_providers == ("step", "kimi")
    alias = load(dirs, {"MOONSHOT_API_KEY": "sk-moon"})
    assert (alias.provider, alias.api_key) == ("kimi", "sk-moon")


def test_model_and_base_url_overrides(dirs: dict[str, Path]) -> None:
    settings = load(
        dirs, {"GLM_API_KEY": "k", "GLM_MODEL": "glm-5.3-air", "GLM_BASE_URL": "https://proxy.example/v4"}
    )
    assert (settings.model, settings.base_url, settings.context_window) == (
        "glm-5.3-air",
        "https://proxy.example/v4",
        1_000_000,
    )
    with pytest.raises(ConfigError, match="GLM_BASE_URL"):
        load(dirs, {"GLM_API_KEY": "k", "GLM_BASE_URL": "proxy.example"})


def test_lookup_order_env_then_dotenv_cwd_then_paicli_home_then_home(dirs: dict[str, Path]) -> None:
    (dirs["home"] / ".env").write_text(
        "DEEPSEEK_API_KEY=from-home\nDEEPSEEK_MODEL=home-model\n"
        "PAICLI_LIGHT_MODEL=home-light\nPAICLI_COMPACTION_MODEL=home-compact\n"
    )
    (dirs["paicli_home"] / ".env").write_text(
        "DEEPSEEK_API_KEY=from-paicli-home\nDEEPSEEK_MODEL=paicli-home-model\n"
        "PAICLI_LIGHT_MODEL=paicli-light\n"
    )
    (dirs["cwd"] / ".env").write_text("DEEPSEEK_API_KEY=from-cwd\n")
    settings = load(dirs)
    assert settings.api_key == "from-cwd"
    assert settings.model == "paicli-home-model"
    assert (settings.light_model, settings.compaction_model) == ("paicli-light", "home-compact")
    assert load(dirs, {"DEEPSEEK_API_KEY": "from-env"}).api_key == "from-env"


def test_cli_model_picks_the_provider(dirs: dict[str, Path]) -> None:
    env = {"DEEPSEEK_API_KEY": "a", "KIMI_API_KEY": "b", "KIMI_MODEL": "kimi-configured"}
    assert load(dirs, env, cli_model="kimi/kimi-k2.6").describe() == "kimi-k2.6 (kimi)"
    assert load(dirs, env, cli_model="moonshot").model == "kimi-configured"
    assert load(dirs, env, cli_model="deepseek-v4-pro").describe() == "deepseek-v4-pro (deepseek)"
    assert load(dirs, env, cli_model="some-unlisted-model").describe() == "some-unlisted-model (deepseek)"
    with pytest.raises(ConfigError, match="GLM_API_KEY"):
        load(dirs, env, cli_model="glm")


def test_config_json_default_provider_keys_and_window_overrides(dirs: dict[str, Path]) -> None:
    write_config(
        dirs,
        {
            "defaultProvider": "kimi",
            "providers": {
                "kimi": {
                    "apiKey": "sk-saved-kimi",
                    "model": "kimi-saved",
                    "baseUrl": "https://kimi.example/v1",
                },
                "free-llm-api": {"apiKey": "x"},
            },
            "models": {"kimi-saved": {"contextWindow": 64000}},
            "somethingElse": {"kept": True},
        },
    )
    settings = load(dirs, {"DEEPSEEK_API_KEY": "sk-env"})
    assert (settings.provider, settings.model, settings.api_key) == ("kimi", "kimi-saved", "sk-saved-kimi")
    assert (settings.base_url, settings.context_window) == ("https://kimi.example/v1", 64_000)
    assert "freellmapi" in settings.available_providers
    assert load(dirs, {"KIMI_MODEL": "kimi-env"}).model == "kimi-env"  # env beats the saved choice
    assert settings.key_origin == f"{dirs['paicli_home'] / 'config.json'} 的 providers.kimi.apiKey"


def test_key_origin_names_the_variable_and_where_it_is_set(dirs: dict[str, Path]) -> None:
    """What a refused key's message points at (issue 44 item 9)."""
    assert load(dirs, {"DEEPSEEK_API_KEY": "sk-env-key"}).key_origin == "DEEPSEEK_API_KEY（环境变量）"
    (dirs["paicli_home"] / ".env").write_text("DEEPSEEK_API_KEY=sk-file-key\n", encoding="utf-8")
    origin = load(dirs).key_origin
    assert origin == f"DEEPSEEK_API_KEY（{dirs['paicli_home'] / '.env'}）"
    assert client_from_settings(load(dirs)).options.key_origin == origin


def test_corrupt_or_invalid_config_json_names_the_file(dirs: dict[str, Path]) -> None:
    path = write_config(dirs, "{not json")
    with pytest.raises(ConfigError) as info:
        load(dirs, {"DEEPSEEK_API_KEY": "k"})
    assert str(path) in str(info.value) and "\n" not in str(info.value)
    write_config(dirs, {"models": {"m": {"contextWindow": 100}}})
    with pytest.raises(ConfigError, match="contextWindow"):
        load(dirs, {"DEEPSEEK_API_KEY": "k"})
    write_config(dirs, {"defaultProvider": "nope"})
    with pytest.raises(ConfigError, match="defaultProvider"):
        load(dirs, {"DEEPSEEK_API_KEY": "k"})


@pytest.mark.parametrize(
    ("raw", "ok"), [("8000", True), ("10000000", True), ("7999", False), ("10000001", False), ("lots", False)]
)
def test_context_window_bounds(dirs: dict[str, Path], raw: str, ok: bool) -> None:
    env = {"DEEPSEEK_API_KEY": "k", "PAICLI_CONTEXT_WINDOW": raw}
    if ok:
        assert load(dirs, env).context_window == int(raw)
    else:
        with pytest.raises(ConfigError, match="PAICLI_CONTEXT_WINDOW"):
            load(dirs, env)


def test_missing_key_names_the_variables_to_set(dirs: dict[str, Path]) -> None:
    with pytest.raises(ConfigError) as info:
        load(dirs)
    message = str(info.value)
    assert "\n" not in message
    for name in (
        "PAICLI_BASE_URL",
        "PAICLI_API_KEY",
        "DEEPSEEK_API_KEY",
        "GLM_API_KEY",
        "HUNYUAN_API_KEY",
        "STEP_API_KEY",
        "KIMI_API_KEY",
        "FREELLMAPI_API_KEY",
        "XFYUN_MAAS_API_KEY",
        "AGNES_API_KEY",
        "OPENAI_API_KEY",
    ):
        assert name in message


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("PAICLI_MEMORY_PLACEMENT", "sideways"),
        ("PAICLI_APPROVAL_MODE", "yolo"),
        ("PAICLI_LLM_READ_TIMEOUT", "-1"),
        ("PAICLI_LLM_MAX_RETRIES", "x"),
        ("PAICLI_REASONING_IN_WIRE", "maybe"),
    ],
)
def test_invalid_values_are_config_errors(dirs: dict[str, Path], key: str, value: str) -> None:
    with pytest.raises(ConfigError, match=key):
        load(dirs, {"DEEPSEEK_API_KEY": "k", key: value})


def test_memory_placement_system(dirs: dict[str, Path]) -> None:
    assert (
        load(dirs, {"DEEPSEEK_API_KEY": "k", "PAICLI_MEMORY_PLACEMENT": "SYSTEM"}).memory_placement
        == "system"
    )


def test_key_is_never_in_repr(dirs: dict[str, Path]) -> None:
    settings = load(dirs, {"DEEPSEEK_API_KEY": "sk-very-secret-1234"})
    assert "sk-very-secret" not in repr(settings) and "sk-very-secret" not in str(settings)
    assert (
        settings.masked_api_key == "sk-***1234"
        and mask_key(None) == "(未设置)"
        and mask_key("short") == "***"
    )


def test_with_model_switches_provider_and_window(dirs: dict[str, Path]) -> None:
    settings = load(dirs, {"DEEPSEEK_API_KEY": "a", "GLM_API_KEY": "b", "PAICLI_CONTEXT_WINDOW": ""})
    assert settings.reasoning_in_wire  # DeepSeek wants reasoning_content echoed back on tool-call turns
    glm = settings.with_model("glm")
    assert (glm.describe(), glm.context_window, glm.cache_mode, glm.api_key) == (
        "glm-5.1 (glm)",
        200_000,
        "glm-prompt-cache",
        "b",
    )
    assert not glm.reasoning_in_wire
    assert settings.with_model("deepseek-v4-pro").describe() == "deepseek-v4-pro (deepseek)"
    assert glm.with_model("custom-glm-finetune").describe() == "custom-glm-finetune (glm)"
    with pytest.raises(ConfigError, match="KIMI_API_KEY"):
        settings.with_model("kimi")


def test_with_model_behind_the_generic_endpoint(dirs: dict[str, Path]) -> None:
    settings = load(dirs, {"PAICLI_BASE_URL": "http://127.0.0.1:9/v1", "PAICLI_MODEL": "fake-model"})
    other = settings.with_model("deepseek-flash")
    assert (other.provider, other.model, other.base_url) == (
        "paicli",
        "deepseek-flash",
        "http://127.0.0.1:9/v1",
    )


def test_client_from_settings_carries_endpoint_and_retry_settings(dirs: dict[str, Path]) -> None:
    settings = load(
        dirs,
        {
            "PAICLI_BASE_URL": "http://127.0.0.1:9/v1",
            "PAICLI_MODEL": "fake-model",
            "PAICLI_API_KEY": "sk-local",
            "PAICLI_LLM_MAX_RETRIES": "1",
            "PAICLI_LLM_RETRY_BACKOFF": "0",
            "PAICLI_LLM_CALL_TIMEOUT": "90",
        },
    )
    client = client_from_settings(settings)
    assert client.model == "fake-model"
    assert (
        client.options.base_url,
        client.options.api_key,
        client.options.max_retries,
        client.options.backoff_base,
        client.options.call_timeout,
    ) == ("http://127.0.0.1:9/v1", "sk-local", 1, 0.0, 90.0)
    assert client_from_settings(settings, "light").model == "light"


def test_only_a_missing_provider_is_the_case_the_first_run_setup_fixes(dirs: dict[str, Path]) -> None:
    from paicli.config.settings import NoProviderError

    with pytest.raises(NoProviderError):
        load(dirs)  # nothing configured at all
    write_config(dirs, {"defaultProvider": "kimi"})
    with pytest.raises(NoProviderError, match="KIMI_API_KEY"):
        load(dirs)  # a saved choice whose key is gone
    write_config(dirs, {})
    for broken in (
        {"PAICLI_BASE_URL": "ftp://nope"},
        {"DEEPSEEK_API_KEY": "k", "PAICLI_CONTEXT_WINDOW": "5"},
    ):
        with pytest.raises(ConfigError) as info:
            load(dirs, broken)
        assert not isinstance(info.value, NoProviderError)  # an explicit bad value: exit 2, no dialogue
