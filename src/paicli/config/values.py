"""Settings parsed once, at start-up, into the typed values the session's components are built with: a component
receives the values it needs, never the environment lookup. `SessionValues.parse` is the one place these knobs
are read (the composition root calls it); each group's defaults are the knobs' own."""

from __future__ import annotations

import zoneinfo
from dataclasses import dataclass
from datetime import date

from paicli.config import knobs
from paicli.config.knob_types import ConfigError, Lookup


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
    sandbox: SandboxValues = SandboxValues()
    prompt: PromptValues = PromptValues()
    exact_tokens: bool = True  # count with the model's tokenizer (False: the heuristic estimate)
    external_guard: bool = knobs.MEMORY_DISABLE_ON_EXTERNAL_CONTEXT.default  # see memory.guard
    skill_body_budget: int = knobs.SKILL_BODY_BUDGET.default

    @classmethod
    def parse(cls, env: Lookup) -> SessionValues:
        return cls(
            SandboxValues.parse(env),
            PromptValues.parse(env),
            knobs.TOKENIZER.read(env) not in ("heuristic", "estimate", "reference"),
            knobs.MEMORY_DISABLE_ON_EXTERNAL_CONTEXT.read(env),
            knobs.SKILL_BODY_BUDGET.read(env),
        )


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
