"""Resolved run settings: provider, model, endpoint, key, context window and the few global switches.

Sources, strongest first: process env → ./.env → <paicli home>/.env → ~/.env (all through `EnvLookup`),
then `<paicli home>/config.json` (spec 10.2), then the provider table. Every invalid value is a
`ConfigError` with a one-line reason (the CLI exits 2). A key goes only to a base URL from its own source or a
more trusted one (`_Sources.endpoint`); a refused project base URL becomes a start-up notice.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from paicli.config import knobs
from paicli.config.compaction_profiles import MemoryPlacement, profile_named
from paicli.config.config_file import ConfigFile, load_config_file
from paicli.config.env import HOME_DOTENV, ConfigError, EnvLookup, Found, home_dir
from paicli.config.providers import (
    AUTO_ORDER,
    GENERIC,
    LOCAL_SERVERS,
    ProviderSpec,
    UnknownModelSpec,
    all_key_envs,
    context_spec,
    find_provider,
    provider,
    resolve_model_spec,
)


class NoProviderError(ConfigError):
    """No provider can be used because no key (or endpoint) is configured: the case the first-run setup fixes."""


# ---------------------------------------------------------------- Settings


@dataclass(frozen=True)
class Settings:
    provider: str
    model: str
    base_url: str
    api_key: str | None = field(repr=False)
    context_window: int
    cache_mode: str
    # the light and compaction model settings as configured; None: the session model (see the properties)
    light_model_setting: str | None
    compaction_model_setting: str | None
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
    max_response_bytes: int = 64 * 1024 * 1024
    available_providers: tuple[str, ...] = ()
    max_output_tokens: int | None = None  # the configured output cap, sent as max_tokens
    reasoning_effort: str = "default"  # config/effort.py; /effort changes it for the session
    # where context_window came from: "configured" (the window setting, config.json), "model" (the provider
    # table knows the model), "server" (the endpoint said so), "default" (nothing knew: the 128K guess)
    window_source: str = "default"
    notices: tuple[str, ...] = ()  # one stderr line each at start-up (a refused project base URL)
    _sources: _Sources | None = field(default=None, repr=False, compare=False)

    @property
    def effort_request_fields(self) -> dict[str, Any] | None:
        """The request fields of the reasoning effort for this model (None: it has no such setting)."""
        from paicli.config.effort import effort_fields
        from paicli.config.providers import context_spec, find_provider

        endpoint = find_provider(self.provider)
        owner = context_spec(endpoint, self.model).name if endpoint is not None else self.provider
        return effort_fields(owner, self.model, self.reasoning_effort)

    @property
    def light_model(self) -> str:
        return self.light_model_setting or self.model

    @property
    def compaction_model(self) -> str:
        return self.compaction_model_setting or self.model

    @property
    def masked_api_key(self) -> str:
        return mask_key(self.api_key)

    @property
    def provider_spec(self) -> ProviderSpec:
        return provider(self.provider)

    @property
    def config_path(self) -> Path:
        return self.paicli_home / "config.json"

    @property
    def key_origin(self) -> str:
        """Where this provider's key was read, e.g. `DEEPSEEK_API_KEY（环境变量）`; "" when unknown or none."""
        return "" if self._sources is None else self._sources.key_origin(self.provider_spec)

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
        return replace(self._sources.build(name, model), reasoning_effort=self.reasoning_effort)

    def with_config_reread(self) -> Settings:
        """The same provider and model over config.json as it is now (`/config provider` wrote to it), so the
        providers it added can be switched to."""
        if self._sources is None:
            raise ConfigError("这些设置不是由 load_settings 创建的，无法重新读取配置")
        sources = replace(self._sources, config=load_config_file(self._sources.home / "config.json"))
        return sources.build(self.provider, self.model)


def mask_key(key: str | None) -> str:
    if not key:
        return "(未设置)"
    if len(key) <= 8:
        return "***"
    return f"{key[:3]}***{key[-4:]}"


@dataclass(frozen=True)
class Endpoint:
    url: str
    configured: Found | None  # None: the provider's default address
    refused: tuple[str, Found] | None  # (variable, value): a base URL less trusted than the key
    key: Found | None

    def notices(self) -> tuple[str, ...]:
        if self.refused is None or self.key is None:
            return ()
        name, found = self.refused
        instead = (
            f"改用 {self.url}" if self.configured is not None else f"改用默认地址 {self.url or '（无）'}"
        )
        return (
            f"⚠️ 已忽略 {found.source} 中的 {name}={found.value}：API Key 来自更可信的 {self.key.source}，"
            f"不会发给来源更不可信的地址；{instead}",
        )


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
        found = self.key_found(spec)
        return None if found is None else found.value

    def key_found(self, spec: ProviderSpec) -> Found | None:
        for name in spec.key_envs:
            found = self.env.lookup(name)
            if found is not None:
                return found
        saved = self.config.provider_config(spec.name).api_key
        return Found(saved, HOME_DOTENV, str(self.home / "config.json")) if saved else None

    def key_origin(self, spec: ProviderSpec) -> str:
        for name in spec.key_envs:
            found = self.env.lookup(name)
            if found is not None:
                return f"{name}（{found.source}）"
        if self.config.provider_config(spec.name).api_key:
            return f"{self.home / 'config.json'} 的 providers.{spec.name}.apiKey"
        return ""

    def endpoint(self, spec: ProviderSpec) -> Endpoint:
        """The base URL the key may be sent to: a configured one from the key's own source or a more trusted
        one (a project ./.env never redirects a key saved elsewhere), else the provider's default."""
        key = self.key_found(spec)
        saved = self.config.provider_config(spec.name).base_url
        configured = [(name, found) for name in spec.base_url_envs for found in self.env.candidates(name)]
        if saved:
            configured.append(("baseUrl", Found(saved, HOME_DOTENV, str(self.home / "config.json"))))
        refused: tuple[str, Found] | None = None
        for name, found in configured:
            if key is None or found.rank <= key.rank:
                return Endpoint(found.value, found, refused, key)
            refused = refused or (name, found)
        return Endpoint(spec.default_base_url or "", None, refused, key)

    def generic_configured(self) -> bool:
        return self.endpoint(provider(GENERIC)).configured is not None

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
        endpoint = self.endpoint(spec)
        base_url = endpoint.url.rstrip("/")
        if not base_url.startswith(("http://", "https://")):
            raise ConfigError(
                f"{spec.base_url_envs[0]}={base_url!r} 无效：需要 http:// 或 https:// 开头的地址"
            )
        profile = context_spec(spec, model)  # a known model behind a gateway keeps its own profile
        configured = knobs.CONTEXT_WINDOW.read(self.env) or self.config.window_override(name, model)
        window = configured or profile.window_for(model.rsplit("/", 1)[-1])
        known = "configured" if configured else "default" if profile.name == GENERIC else "model"
        return Settings(
            provider=name,
            model=model,
            base_url=base_url,
            api_key=api_key,
            context_window=window,
            cache_mode=profile.cache_mode,
            light_model_setting=knobs.LIGHT_MODEL.read(self.env),
            compaction_model_setting=knobs.COMPACTION_MODEL.read(self.env),
            paicli_home=self.home,
            project_root=self.project_root,
            memory_placement=_placement(self.env),
            approval_mode=knobs.APPROVAL_MODE.read(self.env),
            reasoning_in_wire=_reasoning(self.env, profile.reasoning_in_wire),
            connect_timeout=knobs.LLM_CONNECT_TIMEOUT.read(self.env),
            read_timeout=knobs.LLM_READ_TIMEOUT.read(self.env),
            call_timeout=knobs.LLM_CALL_TIMEOUT.read(self.env),
            max_retries=knobs.LLM_MAX_RETRIES.read(self.env),
            retry_backoff=knobs.LLM_RETRY_BACKOFF.read(self.env),
            max_response_bytes=knobs.LLM_MAX_RESPONSE_BYTES.read(self.env),
            available_providers=self.available(),
            max_output_tokens=knobs.MAX_OUTPUT_TOKENS.read(self.env),
            reasoning_effort=knobs.REASONING_EFFORT.read(self.env),
            window_source=known,
            notices=endpoint.notices(),
            _sources=self,
        )


def _placement(env: EnvLookup) -> MemoryPlacement:
    """Set explicitly, or the compaction profile's: the reference puts memories in the system prompt."""
    if env.get(knobs.MEMORY_PLACEMENT.key) is None:
        return profile_named(knobs.COMPACTION_PROFILE.read(env)).memory_placement
    return "system" if knobs.MEMORY_PLACEMENT.read(env) == "system" else "turn"


def _reasoning(env: EnvLookup, provider_default: bool) -> bool:
    configured = knobs.REASONING_IN_WIRE.read(env)
    return provider_default if configured is None else bool(configured)


def _missing_key_error() -> ConfigError:
    keys = "、".join(all_key_envs())
    generic = provider(GENERIC)
    return NoProviderError(
        f"未找到可用的 API Key：请设置 {generic.base_url_envs[0]}（可选 {generic.key_envs[0]}、{generic.model_envs[0]}），"
        f"或设置 {keys} 之一（环境变量、./.env、<paicli 主目录>/.env 或 ~/.env）"
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
            raise ConfigError(
                f"配置文件 {sources.home / 'config.json'} 中的 defaultProvider={saved!r} 不是已知的 provider"
            )
        return found.name
    if not available:
        raise _missing_key_error()
    return available[0]


def load_settings(
    env: EnvLookup | None = None, cli_model: str | None = None, cwd: Path | None = None
) -> Settings:
    """Resolve everything once at start-up. Raises ConfigError (one line) on any unusable setting."""
    env = env if env is not None else EnvLookup()
    home = home_dir(env)
    sources = _Sources(env, load_config_file(home / "config.json"), home, (cwd or Path.cwd()).resolve())
    name, model = _choose_provider(sources, cli_model)
    return sources.build(name, model)


def local_server_ports(env: EnvLookup) -> tuple[tuple[str, int], ...]:
    """(name, port) pairs the first-run setup probes on 127.0.0.1 (`knobs.LOCAL_PORTS`, or `off`); by default
    the usual ports of Ollama, LM Studio, llama.cpp server and vLLM."""
    known = {port: name for name, port in LOCAL_SERVERS}
    return tuple((known.get(port, f"OpenAI 兼容服务 :{port}"), port) for port in knobs.LOCAL_PORTS.read(env))
