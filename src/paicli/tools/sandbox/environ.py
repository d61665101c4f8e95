"""The environment a command gets: never paicli's own keys; without a human's yes, no secret-looking variable."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

SECRET_SUFFIXES = ("_KEY", "_TOKEN", "_SECRET", "_PASSWORD")


def known_keys() -> frozenset[str]:
    """Every key variable paicli itself reads: each provider's (aliases included) and each search provider's."""
    from paicli.config.knobs_web import SERPAPI_KEY
    from paicli.config.providers import PROVIDERS

    names = {name for spec in PROVIDERS for name in spec.key_envs}
    return frozenset(names | {SERPAPI_KEY.key})  # the generic endpoint's key is in the provider table too


def secret_looking(name: str) -> bool:
    upper = name.upper()
    return upper.endswith(SECRET_SUFFIXES) or "PASSWORD" in upper or upper.endswith("_APIKEY")


def approved_env(env: Mapping[str, str], allow: Iterable[str] = ()) -> dict[str, str]:
    """A command a human approved: everything except the keys paicli knows (unless allow-listed)."""
    keep = {name.upper() for name in allow}
    drop = known_keys()
    return {name: value for name, value in env.items() if name.upper() in keep or name not in drop}


def sandbox_env(env: Mapping[str, str], allow: Iterable[str] = ()) -> dict[str, str]:
    """A command nobody approved: also without any variable whose name says it holds a secret."""
    keep = {name.upper() for name in allow}
    drop = known_keys()
    return {
        name: value
        for name, value in env.items()
        if name.upper() in keep or (name not in drop and not secret_looking(name))
    }
