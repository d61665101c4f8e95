"""The provider table as data (spec 1.3, 10.2) and `/model` spec resolution (spec 10.3)."""

from __future__ import annotations

import fnmatch
from collections.abc import Collection
from dataclasses import dataclass

DEFAULT_CONTEXT_WINDOW = 128_000
MIN_CONTEXT_WINDOW = 8_000
MAX_CONTEXT_WINDOW = 10_000_000
GENERIC = "paicli"


@dataclass(frozen=True)
class ProviderSpec:
    name: str
    key_envs: tuple[str, ...]  # first set one wins; later names are aliases
    model_envs: tuple[str, ...]
    default_model: str | None  # None: the model must be configured
    base_url_envs: tuple[str, ...]
    default_base_url: str | None  # None: the base URL must be configured
    context_window: int = DEFAULT_CONTEXT_WINDOW
    cache_mode: str = "none"
    window_overrides: tuple[tuple[str, int], ...] = ()  # (model glob, window), first match wins
    model_prefixes: tuple[str, ...] = ()  # model ids starting with these belong to this provider
    aliases: tuple[str, ...] = ()
    key_optional: bool = False
    reasoning_in_wire: bool = False  # the provider wants reasoning_content echoed on tool-call turns
    label: str = ""  # how the first-run setup names it
    vision_models: tuple[str, ...] = ()  # model globs known to take images (the vision setting overrides)

    @property
    def display_name(self) -> str:
        return self.label or self.name

    @property
    def key_env(self) -> str:
        return self.key_envs[0]

    def window_for(self, model: str) -> int:
        lowered = model.lower()
        for pattern, window in self.window_overrides:
            if fnmatch.fnmatchcase(lowered, pattern):
                return window
        return self.context_window

    def takes_images(self, model: str) -> bool:
        lowered = model.lower()
        return any(fnmatch.fnmatchcase(lowered, pattern) for pattern in self.vision_models)

    def owns_model(self, model: str) -> bool:
        lowered = model.lower()
        return any(lowered.startswith(prefix) for prefix in self.model_prefixes)


PROVIDERS: tuple[ProviderSpec, ...] = (
    ProviderSpec(
        "deepseek",
        ("DEEPSEEK_API_KEY",),
        ("DEEPSEEK_MODEL",),
        "deepseek-flash",
        ("DEEPSEEK_BASE_URL",),
        "https://api.deepseek.com/v1",
        context_window=1_000_000,
        cache_mode="automatic-prefix-cache",
        model_prefixes=("deepseek",),
        reasoning_in_wire=True,
        label="DeepSeek",
    ),
    ProviderSpec(
        "glm",
        ("GLM_API_KEY", "ZHIPU_API_KEY"),
        ("GLM_MODEL",),
        "glm-5.1",
        ("GLM_BASE_URL",),
        "https://open.bigmodel.cn/api/paas/v4",
        context_window=200_000,
        cache_mode="glm-prompt-cache",
        window_overrides=(("glm-5.3*", 1_000_000),),
        model_prefixes=("glm-",),
        aliases=("zhipu", "bigmodel"),
        vision_models=("glm-*v", "glm-*v-*"),  # the V(ision) models: glm-4v, glm-4.5v, glm-4.1v-thinking
        label="智谱 GLM",
    ),
    ProviderSpec(
        "hunyuan",
        ("HUNYUAN_API_KEY", "TOKENHUB_API_KEY", "TENCENTMAAS_API_KEY"),
        ("HUNYUAN_MODEL",),
        "hy4-preview",
        ("HUNYUAN_BASE_URL",),
        "https://tokenhub.tencentmaas.com/v1",
        context_window=1_000_000,
        cache_mode="hunyuan-prefix-cache",
        model_prefixes=("hy4-", "hunyuan-"),
        aliases=("hy4", "tokenhub", "tencentmaas"),
        label="腾讯混元",
    ),
    ProviderSpec(
        "step",
        ("STEP_API_KEY",),
        ("STEP_MODEL",),
        "step-3.5-flash",
        ("STEP_BASE_URL",),
        "https://api.stepfun.com/v1",
        context_window=256_000,
        cache_mode="step-prefix-cache",
        model_prefixes=("step",),
        aliases=("stepfun",),
        label="阶跃星辰 Step",
    ),
    ProviderSpec(
        "kimi",
        ("KIMI_API_KEY", "MOONSHOT_API_KEY"),
        ("KIMI_MODEL", "MOONSHOT_MODEL"),
        "kimi-k2.6",
        ("KIMI_BASE_URL", "MOONSHOT_BASE_URL"),
        "https://api.moonshot.ai/v1",
        context_window=256_000,
        cache_mode="moonshot-context-cache",
        model_prefixes=("kimi-", "moonshot-"),
        aliases=("moonshot",),
        vision_models=("*vision*",),  # moonshot-v1-8k-vision-preview, kimi-latest-vision
        label="Kimi（月之暗面）",
    ),
    ProviderSpec(
        "freellmapi",
        ("FREELLMAPI_API_KEY",),
        ("FREELLMAPI_MODEL",),
        "auto",
        ("FREELLMAPI_BASE_URL",),
        "http://localhost:5173/v1",
        aliases=("free-llm-api", "free_llm_api"),
        label="FreeLLMAPI",
    ),
    ProviderSpec(
        "xfyun",
        ("XFYUN_MAAS_API_KEY", "XFYUN_API_KEY"),
        ("XFYUN_MAAS_MODEL", "XFYUN_MODEL"),
        None,
        ("XFYUN_MAAS_BASE_URL", "XFYUN_BASE_URL"),
        "https://maas-api.cn-huabei-1.xf-yun.com/v1",
        aliases=("maas", "iflytek", "xfyun-maas"),
        label="讯飞星辰 MaaS",
    ),
    ProviderSpec(
        "agnes",
        ("AGNES_API_KEY",),
        ("AGNES_MODEL",),
        "agnes-2.0-flash",
        ("AGNES_BASE_URL",),
        "https://apihub.agnes-ai.com/v1",
        context_window=1_000_000,
        model_prefixes=("agnes-",),
        aliases=("sapiens", "agnes-ai"),
        label="Agnes",
    ),
    ProviderSpec(
        "openai",
        ("OPENAI_API_KEY",),
        ("OPENAI_MODEL",),
        "gpt-4o-mini",
        ("OPENAI_BASE_URL",),
        "https://api.openai.com/v1",
        cache_mode="automatic-prefix-cache",
        model_prefixes=("gpt-",),
        label="OpenAI",
        vision_models=("gpt-4o*", "gpt-4.1*", "gpt-5*"),
    ),
    ProviderSpec(
        GENERIC,
        ("PAICLI_API_KEY",),
        ("PAICLI_MODEL",),
        None,
        ("PAICLI_BASE_URL",),
        None,
        key_optional=True,
    ),
)

# The order in which a configured key picks the provider when nothing else decides (spec 10.2, plus openai).
AUTO_ORDER: tuple[str, ...] = (
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

_BY_NAME = {spec.name: spec for spec in PROVIDERS}


class UnknownModelSpec(ValueError):
    """A `/model` argument that names no provider and belongs to none."""


def provider(name: str) -> ProviderSpec:
    return _BY_NAME[name]


def find_provider(name: str) -> ProviderSpec | None:
    """A provider by its name or an alias, case-insensitively."""
    lowered = name.strip().lower()
    if lowered in _BY_NAME:
        return _BY_NAME[lowered]
    for spec in PROVIDERS:
        if lowered in spec.aliases:
            return spec
    return None


def provider_for_model(model: str) -> ProviderSpec | None:
    for spec in PROVIDERS:
        if spec.owns_model(model):
            return spec
    return None


def context_spec(spec: ProviderSpec, model: str) -> ProviderSpec:
    """Whose context profile (window, cache mode, reasoning echo) a model gets: a known model served through
    another endpoint (`deepseek-chat` behind a gateway, `deepseek/deepseek-chat` on a router) gets its own
    provider's profile; everything else keeps the endpoint's."""
    if spec.owns_model(model):
        return spec
    bare = model.rsplit("/", 1)[-1]
    owner = provider_for_model(model) or provider_for_model(bare)
    return owner if owner is not None else spec


def all_key_envs() -> tuple[str, ...]:
    """Every provider's primary key variable, in auto-selection order (for error messages)."""
    return tuple(provider(name).key_env for name in AUTO_ORDER)


def resolve_model_spec(
    spec: str, available: Collection[str] | None = None, current: str | None = None
) -> tuple[str, str]:
    """`/model` argument → (provider name, model id).

    `provider` or an alias → that provider's default model; `provider/model` → as given; a model id with a
    known prefix → its provider; any other id → the current provider. `available` (providers with a key)
    keeps a prefix match from leaving a configured endpoint, e.g. `deepseek-flash` behind the generic endpoint's base URL.
    The model is "" for a provider without a built-in default (xfyun, the generic endpoint).
    """
    text = spec.strip()
    if not text:
        raise UnknownModelSpec("模型名不能为空")
    named = find_provider(text)
    if named is not None:
        return named.name, _default_model(named)
    if "/" in text:
        head, _, tail = text.partition("/")
        by_prefix = find_provider(head)
        if by_prefix is not None:
            return by_prefix.name, tail.strip() or _default_model(by_prefix)
    owner = provider_for_model(text)
    if owner is not None and (available is None or owner.name in available or current is None):
        return owner.name, text
    if current is not None:
        return current, text
    raise UnknownModelSpec(f"无法判断模型 {text} 属于哪个 provider，请使用 provider/model 形式")


def _default_model(spec: ProviderSpec) -> str:
    # "" means the provider has no built-in default: the caller takes it from *_MODEL or config.json.
    return spec.default_model or ""


# OpenAI-compatible servers people run on their own machine, by their usual port (probed on 127.0.0.1 only).
LOCAL_SERVERS: tuple[tuple[str, int], ...] = (
    ("Ollama", 11434),
    ("LM Studio", 1234),
    ("llama.cpp server", 8080),
    ("vLLM", 8000),
)


def variables_help() -> str:
    """Every provider variable, for `paicli --help` (the no-key error only points here)."""
    from paicli.config import knobs

    home = knobs.HOME.key
    lines = [
        f"模型服务配置（依次查找：环境变量、./.env、${home}/.env、~/.env）：",
        "  PAICLI_BASE_URL, PAICLI_API_KEY, PAICLI_MODEL   任意 OpenAI 兼容接口（设置后优先；本机服务可不设 Key）",
    ]
    for name in AUTO_ORDER:
        spec = provider(name)
        model = spec.model_envs[0]
        default = (
            f"默认模型 {spec.default_model}，可用 {model}" if spec.default_model else f"模型需设置 {model}"
        )
        lines.append(f"  {spec.key_env:<22} {spec.display_name}（{default}；地址 {spec.base_url_envs[0]}）")
    lines.append(f"  {knobs.CONTEXT_WINDOW.key:<22} 当前模型的上下文窗口（tokens），本机模型请按实际设置")
    lines.append(f"首次在终端运行 paicli 会引导设置并保存到 ${home}/.env；paicli --setup 可重新设置。")
    return "\n".join(lines)
