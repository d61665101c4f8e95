"""Start-up validation of the optional settings: every declaration in `config/knobs.py` is read once, so a
typo is a one-line configuration error (exit 2) instead of a silently ignored setting."""

from __future__ import annotations

from paicli.config.env import EnvLookup
from paicli.config.knobs import ALL_KNOBS, Knob, validate_all

KNOBS: tuple[Knob[object], ...] = ALL_KNOBS


def validate_knobs(env: EnvLookup) -> None:
    """Raises ConfigError naming the first set setting whose value cannot be used."""
    validate_all(env)
