"""Settings parsed once, at start-up, into the typed values the session's components are built with: a component
receives the values it needs, never the environment lookup. `SessionValues.parse` is the one place these knobs
are read (the composition root calls it); each group's defaults are the knobs' own."""

from __future__ import annotations

import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date

from paicli.config import knobs, knobs_compaction
from paicli.config.browser_values import BrowserValues
from paicli.config.code_values import CodeValues
from paicli.config.compaction_values import CompactionValues, OffloadValues
from paicli.config.env import ENVIRONMENT, EnvLookup
from paicli.config.knob_types import ConfigError, Lookup
from paicli.config.run_values import AgentValues, MemoryValues, SessionFileValues
from paicli.config.tool_values import ToolValues


@dataclass(frozen=True)
class SandboxValues:
    mode: str = knobs.COMMAND_SANDBOX.default  # off / auto / required
    allow_userns: bool = knobs.COMMAND_SANDBOX_USERNS.default
    env_allow: tuple[str, ...] = ()  # variables kept although their names look secret

    @classmethod
    def parse(cls, env: Lookup) -> SandboxValues:
        return cls(
            knobs.COMMAND_SANDBOX.read(env),
            knobs.COMMAND_SANDBOX_USERNS.read(env),
            knobs.COMMAND_ENV_ALLOW.read(env),
        )


@dataclass(frozen=True)
class PromptValues:
    runtime_date: date | None = None  # fixed date of the prompt's runtime section (tests)
    runtime_zone: str | None = None  # IANA name; None: the system's zone

    @classmethod
    def parse(cls, env: Lookup) -> PromptValues:
        raw_date = knobs.PROMPT_RUNTIME_DATE.read(env)
        zone = knobs.PROMPT_RUNTIME_ZONE.read(env)
        if zone is not None and not valid_zone(zone):
            raise ConfigError(
                f"{knobs.PROMPT_RUNTIME_ZONE.key}={zone!r} 无效：需要 IANA 时区名，例如 Asia/Shanghai"
            )
        return cls(_parse_date(raw_date), zone)


@dataclass(frozen=True)
class SessionValues:
    tools: ToolValues
    sandbox: SandboxValues = SandboxValues()
    prompt: PromptValues = PromptValues()
    exact_tokens: bool = True  # count with the model's tokenizer (False: the heuristic estimate)
    external_guard: bool = knobs.MEMORY_DISABLE_ON_EXTERNAL_CONTEXT.default  # see memory.guard
    skill_body_budget: int = knobs.SKILL_BODY_BUDGET.default
    compaction: CompactionValues = field(default_factory=CompactionValues)
    offload: OffloadValues = field(default_factory=OffloadValues)
    agent: AgentValues = field(default_factory=AgentValues)
    files: SessionFileValues = field(default_factory=SessionFileValues)
    memory: MemoryValues = field(default_factory=MemoryValues)
    browser: BrowserValues = field(default_factory=BrowserValues)
    tools_enabled: bool = knobs.TOOLS_ENABLED.default
    mcp_timeout: float = knobs.MCP_TIMEOUT.default
    mcp_startup_wait: float = knobs.MCP_STARTUP_WAIT.default
    status_bar: bool = not knobs.NO_STATUSBAR.default
    log_level: str = knobs.LOG_LEVEL.default
    vision: str = knobs.VISION.default  # on|off|auto (auto: the provider profile's known vision models)
    # what the clipboard tools (Ctrl+V) are looked up and run with: the search path and the graphical session
    clipboard_env: Mapping[str, str] = field(default_factory=dict)
    editor: str | None = None  # $VISUAL, then $EDITOR: the user's own variables only, never a .env's
    code: CodeValues = field(default_factory=CodeValues)  # the code index and the language servers

    @classmethod
    def parse(cls, env: EnvLookup) -> SessionValues:
        return cls(
            tools=ToolValues.parse(env),
            sandbox=SandboxValues.parse(env),
            prompt=PromptValues.parse(env),
            exact_tokens=knobs_compaction.TOKENIZER.read(env) not in ("heuristic", "estimate", "reference"),
            external_guard=knobs.MEMORY_DISABLE_ON_EXTERNAL_CONTEXT.read(env),
            skill_body_budget=knobs.SKILL_BODY_BUDGET.read(env),
            compaction=CompactionValues.parse(env),
            offload=OffloadValues.parse(env),
            agent=AgentValues.parse(env),
            files=SessionFileValues.parse(env),
            memory=MemoryValues.parse(env),
            browser=BrowserValues.parse(env),
            tools_enabled=knobs.TOOLS_ENABLED.read(env),
            mcp_timeout=knobs.MCP_TIMEOUT.read(env),
            mcp_startup_wait=knobs.MCP_STARTUP_WAIT.read(env),
            status_bar=not knobs.NO_STATUSBAR.read(env),
            log_level=knobs.LOG_LEVEL.read(env),
            vision=knobs.VISION.read(env),
            clipboard_env={
                name: value for name in ("PATH", "WAYLAND_DISPLAY", "DISPLAY") if (value := env.get(name))
            },
            editor=_users_own(env, "VISUAL") or _users_own(env, "EDITOR"),
            code=CodeValues.parse(env),
        )


def _users_own(env: EnvLookup, name: str) -> str | None:
    """A variable from the environment itself: a repository's .env never picks the program that is run."""
    found = [item for item in env.candidates(name) if item.rank == ENVIRONMENT]
    return found[0].value if found else None


def _parse_date(raw: str | None) -> date | None:
    if raw is None:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise ConfigError(
            f"{knobs.PROMPT_RUNTIME_DATE.key}={raw!r} 无效：需要 ISO 日期，例如 2026-09-23"
        ) from None


def valid_zone(name: str) -> bool:
    try:
        zoneinfo.ZoneInfo(name)
    except (ValueError, KeyError, OSError):
        return False
    return True
