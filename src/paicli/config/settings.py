"""Resolved run settings: provider, model, endpoint, key, context window and the few global switches.

Sources, strongest first: process env → ./.env → $PAICLI_HOME/.env → ~/.env (all through `EnvLookup`),
then `$PAICLI_HOME/config.json` (spec 10.2), then the provider table. Every invalid value is a
`ConfigError` with a one-line reason (the CLI exits 2).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from paicli.config.env import ConfigError, EnvLookup
from paicli.config.providers import (
    AUTO_ORDER,
    GENERIC,
    LOCAL_SERVERS,
    MAX_CONTEXT_WINDOW,
    MIN_CONTEXT_WINDOW,
    ProviderSpec,
    UnknownModelSpec,
    all_key_envs,
    find_provider,
    provider,
    resolve_model_spec,
)

MemoryPlacement = Literal["system", "turn"]


class NoProviderError(ConfigError):
    """No provider can be used because no key (or endpoint) is configured: the case the first-run setup fixes."""

APPROVAL_MODES = ("auto", "ask", "plan")


# ---------------------------------------------------------------- config.json


class ProviderConfig(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    api_key: str | None = Field(default=None, alias="apiKey")
    base_url: str | None = Field(default=None, alias="baseUrl")
    model: str | None = None
    lora_id: str | None = Field(default=None, alias="loraId")


class ModelConfig(BaseModel):
    model_config = ConfigDict(extra="allow", populate_by_name=True)

    context_window: int | None = Field(default=None, alias="contextWindow")

    @field_validator("context_window")
    @classmethod
    def _window_in_range(cls, value: int | None) -> int | None:
        if value is not None and not MIN_CONTEXT_WINDOW <= value <= MAX_CONTEXT_WINDOW:
            raise ValueError(f"contextWindow must lie in {MIN_CONTEXT_WINDOW}..{MAX_CONTEXT_WINDOW}")
        return value


class ConfigFile(BaseModel):
    """`$PAICLI_HOME/config.json`; unknown keys are kept so a file the Java PaiCLI wrote still loads."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    default_provider: str | None = Field(default=None, alias="defaultProvider")
    providers: dict[str, ProviderConfig] = Field(default_factory=dict)
    models: dict[str, ModelConfig] = Field(default_factory=dict)

    def provider_config(self, name: str) -> ProviderConfig:
        for key, value in self.providers.items():
            found = find_provider(key)
            if found is not None and found.name == name:
                return value
        return ProviderConfig()

    def window_override(self, provider_name: str, model: str) -> int | None:
        for key in (f"{provider_name}/{model}", model):
            entry = self.models.get(key)
            if entry is not None and entry.context_window is not None:
                return entry.context_window
        return None


def load_config_file(path: Path) -> ConfigFile:
    if not path.is_file():
        return ConfigFile()
    try:
        data: Any = json.loads(path.read_text(encoding="utf-8"))
        return ConfigFile.model_validate(data)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"无法读取配置文件 {path}：{_one_line(str(exc))}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first.get("loc", ())) or "(根)"
        raise ConfigError(f"配置文件 {path} 无效：{where}：{_one_line(str(first.get('msg', '')))}") from None


def _one_line(text: str) -> str:
    return " ".join(text.split())[:200]


# ---------------------------------------------------------------- Settings


@dataclass(frozen=True)
class Settings:
    provider: str
    model: str
    base_url: str
    api_key: str | None = field(repr=False)
    context_window: int
    cache_mode: str
    light_model: str
    compaction_model: str
    paicli_home: Path
    project_root: Path
    memory_placement: MemoryPlacement = "turn"
    approval_mode: str = "auto"
    reasoning_in_wire: bool = False
    connect_timeout: float = 60.0
    read_timeout: float = 300.0
    call_timeout: float = 600.0
    max_retries: int = 3
    retry_backoff: float = 0.5
    available_providers: tuple[str, ...] = ()
    _sources: _Sources | None = field(default=None, repr=False, compare=False)

    @property
    def masked_api_key(self) -> str:
        return mask_key(self.api_key)

    @property
    def provider_spec(self) -> ProviderSpec:
        return provider(self.provider)

    @property
    def prompt_caching_supported(self) -> bool:
        return self.cache_mode != "none"

    @property
    def config_path(self) -> Path:
        return self.paicli_home / "config.json"

    def describe(self) -> str:
        """Banner and `/model` text: `model (provider)`."""
        return f"{self.model} ({self.provider})"

    def with_model(self, spec: str) -> Settings:
        """The settings after `/model <spec>`; ConfigError when the target is unusable."""
        if self._sources is None:
            raise ConfigError("这些设置不是由 load_settings 创建的，无法切换模型")
        try:
            name, model = _resolve(spec, self.available_providers, self.provider)
        except UnknownModelSpec as exc:
            raise ConfigError(str(exc)) from None
        return self._sources.build(name, model)


def mask_key(key: str | None) -> str:
    if not key:
        return "(未设置)"
    if len(key) <= 8:
        return "***"
    return f"{key[:3]}***{key[-4:]}"


@dataclass(frozen=True)
class _Sources:
    """Everything `load_settings` read, kept so `/model` can re-resolve against the same inputs."""

    env: EnvLookup = field(repr=False)
    config: ConfigFile
    home: Path
    project_root: Path

    def first(self, names: tuple[str, ...]) -> str | None:
        for name in names:
            value = self.env.get(name)
            if value is not None:
                return value
        return None

    def key_for(self, spec: ProviderSpec) -> str | None:
        return self.first(spec.key_envs) or self.config.provider_config(spec.name).api_key or None

    def generic_configured(self) -> bool:
        return bool(self.env.get("PAICLI_BASE_URL") or self.config.provider_config(GENERIC).base_url)

    def available(self) -> tuple[str, ...]:
        names = [name for name in AUTO_ORDER if self.key_for(provider(name))]
        return (GENERIC, *names) if self.generic_configured() else tuple(names)

    def build(self, name: str, model: str | None) -> Settings:
        spec = provider(name)
        saved = self.config.provider_config(name)
        api_key = self.key_for(spec)
        if not api_key and not spec.key_optional:
            raise NoProviderError(f"provider {name} 缺少 API Key：请设置 {' 或 '.join(spec.key_envs)}")
        model = model or self.first(spec.model_envs) or saved.model or spec.default_model
        if not model:
            raise ConfigError(f"provider {name} 未指定模型：请设置 {spec.model_envs[0]} 或使用 --model")
        base_url = (self.first(spec.base_url_envs) or saved.base_url or spec.default_base_url or "").rstrip("/")
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(f"{spec.base_url_envs[0]}={base_url!r} 无效：需要 http:// 或 https:// 开头的地址")
        window = self.config.window_override(name, model) or spec.window_for(model)
        window = self.env.get_int("PAICLI_CONTEXT_WINDOW", window, MIN_CONTEXT_WINDOW, MAX_CONTEXT_WINDOW)
        return Settings(
            provider=name, model=model, base_url=base_url, api_key=api_key, context_window=window,
            cache_mode=spec.cache_mode,
            light_model=self.env.get("PAICLI_LIGHT_MODEL") or model,
            compaction_model=self.env.get("PAICLI_COMPACTION_MODEL") or model,
            paicli_home=self.home, project_root=self.project_root,
            memory_placement=_placement(self.env), approval_mode=_approval_mode(self.env),
            reasoning_in_wire=self.env.get_bool("PAICLI_REASONING_IN_WIRE", spec.reasoning_in_wire),
            connect_timeout=_positive(self.env, "PAICLI_LLM_CONNECT_TIMEOUT", 60.0),
            read_timeout=_positive(self.env, "PAICLI_LLM_READ_TIMEOUT", 300.0),
            call_timeout=_positive(self.env, "PAICLI_LLM_CALL_TIMEOUT", 600.0),
            max_retries=self.env.get_int("PAICLI_LLM_MAX_RETRIES", 3, 0, 10),
            retry_backoff=_positive(self.env, "PAICLI_LLM_RETRY_BACKOFF", 0.5, allow_zero=True),
            available_providers=self.available(), _sources=self,
        )


def _placement(env: EnvLookup) -> MemoryPlacement:
    raw = (env.get("PAICLI_MEMORY_PLACEMENT") or "turn").lower()
    if raw == "system":
        return "system"
    if raw == "turn":
        return "turn"
    raise ConfigError(f"PAICLI_MEMORY_PLACEMENT={raw!r} 无效：可选 system 或 turn")


def _approval_mode(env: EnvLookup) -> str:
    raw = (env.get("PAICLI_APPROVAL_MODE") or "auto").lower()
    if raw not in APPROVAL_MODES:
        raise ConfigError(f"PAICLI_APPROVAL_MODE={raw!r} 无效：可选 {'、'.join(APPROVAL_MODES)}")
    return raw


def _positive(env: EnvLookup, key: str, default: float, allow_zero: bool = False) -> float:
    value = env.get_float(key, default)
    if value < 0 or (value == 0 and not allow_zero):
        raise ConfigError(f"{key}={value} 无效：需要一个正数")
    return value


def home_dir(env: EnvLookup) -> Path:
    """`PAICLI_HOME` as the settings resolve it (it may come from a .env file), default `~/.paicli`."""
    raw = env.get("PAICLI_HOME")
    if raw:
        return Path(raw).expanduser()
    return Path(env.get("HOME") or Path.home()).expanduser() / ".paicli"


def _missing_key_error() -> ConfigError:
    keys = "、".join(all_key_envs())
    return NoProviderError(
        "未找到可用的 API Key：请设置 PAICLI_BASE_URL（可选 PAICLI_API_KEY、PAICLI_MODEL），"
        f"或设置 {keys} 之一（环境变量、./.env、$PAICLI_HOME/.env 或 ~/.env）"
    )


def _resolve(spec: str, available: tuple[str, ...], current: str | None) -> tuple[str, str | None]:
    """Like resolve_model_spec, but a bare provider name means "its configured model" (None)."""
    named = find_provider(spec)
    if named is not None:
        return named.name, None
    name, model = resolve_model_spec(spec, available, current)
    return name, model or None


def _choose_provider(sources: _Sources, cli_model: str | None) -> tuple[str, str | None]:
    cli_model = cli_model.strip() if cli_model else None
    if sources.generic_configured():
        if cli_model and cli_model.lower().startswith(f"{GENERIC}/"):
            cli_model = cli_model[len(GENERIC) + 1 :]
        return GENERIC, cli_model or None
    available = sources.available()
    if cli_model:
        try:
            return _resolve(cli_model, available, None)
        except UnknownModelSpec:
            return _default_choice(sources, available), cli_model
    return _default_choice(sources, available), None


def _default_choice(sources: _Sources, available: tuple[str, ...]) -> str:
    saved = sources.config.default_provider
    if saved:
        found = find_provider(saved)
        if found is None:
            raise ConfigError(f"配置文件 {sources.home / 'config.json'} 中的 defaultProvider={saved!r} 不是已知的 provider")
        return found.name
    if not available:
        raise _missing_key_error()
    return available[0]


def load_settings(env: EnvLookup | None = None, cli_model: str | None = None, cwd: Path | None = None) -> Settings:
    """Resolve everything once at start-up. Raises ConfigError (one line) on any unusable setting."""
    env = env if env is not None else EnvLookup()
    home = home_dir(env)
    sources = _Sources(env, load_config_file(home / "config.json"), home, (cwd or Path.cwd()).resolve())
    name, model = _choose_provider(sources, cli_model)
    return sources.build(name, model)


LOCAL_PORTS_KEY = "PAICLI_LOCAL_PORTS"
_PORTS_OFF = frozenset({"off", "none", "false", "no", "0"})


def local_server_ports(env: EnvLookup) -> tuple[tuple[str, int], ...]:
    """(name, port) pairs the first-run setup probes on 127.0.0.1: `PAICLI_LOCAL_PORTS` (comma-separated, or
    `off`), default the usual ports of Ollama, LM Studio, llama.cpp server and vLLM."""
    raw = env.get(LOCAL_PORTS_KEY)
    if raw is None:
        return LOCAL_SERVERS
    if raw.strip().lower() in _PORTS_OFF:
        return ()
    known = {port: name for name, port in LOCAL_SERVERS}
    ports: list[tuple[str, int]] = []
    for part in raw.replace(";", ",").split(","):
        text = part.strip()
        if not text:
            continue
        if not text.isdigit() or not 1 <= int(text) <= 65535:
            raise ConfigError(f"{LOCAL_PORTS_KEY}={raw!r} 无效：需要逗号分隔的端口号（1-65535），或 off 关闭本机探测")
        port = int(text)
        ports.append((known.get(port, f"OpenAI 兼容服务 :{port}"), port))
    return tuple(ports)
