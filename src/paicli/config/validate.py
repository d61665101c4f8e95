"""Start-up validation of the optional PAICLI_* knobs.

Modules read these leniently (the reference falls back to defaults on bad values); the CLI checks them once at
start-up so that a typo is a one-line configuration error (exit 2) instead of a silently ignored setting.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from paicli.config.env import ConfigError, EnvLookup


@dataclass(frozen=True)
class Knob:
    key: str
    kind: Literal["bool", "int", "float", "ports"]
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False


KNOBS: tuple[Knob, ...] = (
    Knob("PAICLI_MEMORY_AUTO_EXTRACT_ENABLED", "bool"),
    Knob("PAICLI_MEMORY_DISABLE_ON_EXTERNAL_CONTEXT", "bool"),
    Knob("PAICLI_MEMORY_VECTOR", "bool"),
    Knob("PAICLI_SESSION_MEMORY_COMPACTION_ENABLED", "bool"),
    Knob("PAICLI_TOOL_OFFLOAD_ENABLED", "bool"),
    Knob("PAICLI_TOOL_RESULT_CLEARING_ENABLED", "bool"),
    Knob("PAICLI_NO_STATUSBAR", "bool"),
    Knob("PAICLI_REASONING_IN_WIRE", "bool"),
    Knob("PAICLI_TOOLS_ENABLED", "bool"),
    Knob("PAICLI_SKILL_BODY_BUDGET", "int", 1024),
    Knob("PAICLI_MEMORY_STALE_DAYS", "int"),
    Knob("PAICLI_MEMORY_CONFLICT_THRESHOLD", "float", 0.0, 1.0, exclusive_minimum=True),
    Knob("PAICLI_MEMORY_LOCK_TIMEOUT_SECONDS", "float", 0.0, exclusive_minimum=True),
    Knob("PAICLI_TOOL_OFFLOAD_THRESHOLD_CHARS", "int", 0),
    Knob("PAICLI_TOOL_RESULT_CLEARING_KEEP", "int", 0),
    Knob("PAICLI_TOOL_RESULT_CLEARING_TRIGGER_TOKENS", "int", 0),
    Knob("PAICLI_REACT_TOKEN_BUDGET", "int", 1),
    Knob("PAICLI_REACT_STAGNATION_WINDOW", "int", 2),
    Knob("PAICLI_REACT_HARD_MAX_ITERATIONS", "int", 1),
    Knob("PAICLI_LOCAL_PORTS", "ports"),
)


def _check(env: EnvLookup, knob: Knob) -> None:
    if knob.kind == "bool":
        env.get_bool(knob.key, False)
        return
    if knob.kind == "ports":
        from paicli.config.settings import local_server_ports

        local_server_ports(env)
        return
    value: float = env.get_int(knob.key, 0) if knob.kind == "int" else env.get_float(knob.key, 0.0)
    low, high = knob.minimum, knob.maximum
    too_low = low is not None and (value <= low if knob.exclusive_minimum else value < low)
    too_high = high is not None and value > high
    if too_low or too_high:
        lower = "" if low is None else ("(" if knob.exclusive_minimum else "[") + f"{low:g}"
        upper = "" if high is None else f"{high:g}]"
        raise ConfigError(f"{knob.key}={env.get(knob.key)} 超出允许范围 {lower or '('}, {upper or '∞)'}")


def validate_knobs(env: EnvLookup) -> None:
    """Raises ConfigError naming the first set knob whose value cannot be used."""
    for knob in KNOBS:
        if env.get(knob.key) is not None:
            _check(env, knob)
