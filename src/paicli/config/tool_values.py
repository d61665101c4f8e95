"""The tools' settings (command timeout, grep engine, audit folder, web search), parsed once into typed values:
the tool runner, the web tools and the audit log are built with these and never see the environment lookup."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from paicli.config import knobs
from paicli.config import knobs_web as web
from paicli.config.env import EnvLookup


@dataclass(frozen=True)
class WebSearchValues:
    """What web_search may use: the explicit provider (lower case, "" when unset) and each provider's key,
    endpoint and model. An endpoint is the one the key may be sent to (`EnvLookup.endpoint_for`)."""

    provider: str = ""
    searxng_url: str | None = None
    serpapi_key: str | None = None
    serpapi_base: str | None = None
    zhipu_key: str | None = None
    zhipu_base: str | None = None
    zhipu_engine: str | None = None
    deepseek_key: str | None = None
    deepseek_base: str | None = None
    deepseek_model: str | None = None

    @classmethod
    def parse(cls, env: EnvLookup) -> WebSearchValues:
        return cls(
            provider=(web.SEARCH_PROVIDER.read(env) or "").strip().lower(),
            searxng_url=web.SEARXNG_URL.read(env),
            serpapi_key=web.SERPAPI_KEY.read(env),
            serpapi_base=env.endpoint_for(web.SERPAPI_BASE_URL.key, web.SERPAPI_KEY.key),
            zhipu_key=env.get("ZHIPU_API_KEY") or env.get("GLM_API_KEY"),
            zhipu_base=env.endpoint_for(web.ZHIPU_SEARCH_BASE_URL.key, "ZHIPU_API_KEY", "GLM_API_KEY"),
            zhipu_engine=web.ZHIPU_SEARCH_ENGINE.read(env),
            deepseek_key=env.get("DEEPSEEK_API_KEY"),
            deepseek_base=env.endpoint_for(web.DEEPSEEK_SEARCH_BASE_URL.key, "DEEPSEEK_API_KEY"),
            deepseek_model=web.DEEPSEEK_SEARCH_MODEL.read(env),
        )


@dataclass(frozen=True)
class ToolValues:
    """The tool runner's settings. `home`: the paicli home (commands never see what is under it); `audit_dir`
    None: `<home>/audit`."""

    home: Path
    command_timeout: float = float(knobs.COMMAND_TIMEOUT_SECONDS.default)
    ripgrep: bool = knobs.GREP_RIPGREP.default
    audit_dir: Path | None = None
    web: WebSearchValues = WebSearchValues()

    @property
    def audit_folder(self) -> Path:
        return self.audit_dir if self.audit_dir is not None else self.home / "audit"

    @classmethod
    def parse(cls, env: EnvLookup) -> ToolValues:
        configured = knobs.AUDIT_DIR.read(env)
        return cls(
            env.home,
            float(knobs.COMMAND_TIMEOUT_SECONDS.read(env)),
            knobs.GREP_RIPGREP.read(env),
            Path(configured).expanduser() if configured else None,
            WebSearchValues.parse(env),
        )
