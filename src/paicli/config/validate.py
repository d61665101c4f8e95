"""Start-up validation of the optional settings: every declaration in `config/knobs.py` is read once, so a
typo in a value is a one-line configuration error (exit 2) instead of a silently ignored setting, and a
`PAICLI_*` name paicli does not know gets a warning naming the closest known one."""

from __future__ import annotations

from collections.abc import Collection

from paicli.config.env import EnvLookup
from paicli.config.knob_types import Knob
from paicli.config.knobs import ALL_KNOBS, validate_all
from paicli.config.providers import PROVIDERS

KNOBS: tuple[Knob[object], ...] = ALL_KNOBS
PREFIX = "PAICLI_"


def validate_knobs(env: EnvLookup) -> None:
    """Raises ConfigError naming the first set setting whose value cannot be used."""
    validate_all(env)


def known_names() -> frozenset[str]:
    provider_names = (
        name for spec in PROVIDERS for name in (*spec.key_envs, *spec.model_envs, *spec.base_url_envs)
    )
    names = {knob.key for knob in KNOBS} | set(provider_names)
    return frozenset(name for name in names if name.startswith(PREFIX))


def unknown_name_warnings(env: EnvLookup, internal: Collection[str] = ()) -> list[str]:
    """One line per `PAICLI_*` name set in the environment or a .env file that no setting reads.
    `internal`: names paicli itself puts in the environment of what it starts (never a typo)."""
    known = known_names() | frozenset(internal)
    lines = []
    for name, source in env.names(PREFIX):
        if name in known:
            continue
        import difflib  # only for a name no setting reads: a run without one never loads it

        where = "" if source == "环境变量" else f"（{source}）"
        # Compared without the shared prefix, which would make every name look close to every other.
        close = difflib.get_close_matches(
            name[len(PREFIX) :], sorted(k[len(PREFIX) :] for k in known), 1, 0.6
        )
        hint = f"，是不是 {PREFIX}{close[0]}？" if close else "（paicli 没有这个设置）。"
        lines.append(f"⚠️ 未知的设置 {name}{where}，已忽略{hint}")
    return lines
