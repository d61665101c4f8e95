"""Every key paicli is configured with: the names it reads them under and the values found there.

The ledger, the audit log, offload files, snapshots, MCP logs and the environments of commands all need the
full set, whichever provider the session uses right now (`/model` and `/resume` switch providers, and a key
of another provider can still reach a file or a command). So the set is read here, once, from every place a
key can be configured: each key variable in each source (`EnvLookup.candidates`: environment, the project's
and the user's `.env` files) and every provider's `apiKey` in `<paicli home>/config.json`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from functools import lru_cache
from pathlib import Path

from paicli.config.env import EnvLookup

MIN_KEY_LENGTH = 8  # shorter values are not keys anyone configured (and masking them would garble text)

Keys = Callable[..., tuple[str, ...]]  # every configured key now, plus the given extra ones (KeySource)


def key_names() -> frozenset[str]:
    """Every variable paicli reads a key from: each provider's (aliases included) and each search provider's."""
    from paicli.config.knobs_web import SERPAPI_KEY
    from paicli.config.providers import PROVIDERS

    names = {name for spec in PROVIDERS for name in spec.key_envs}
    return frozenset(names | {SERPAPI_KEY.key})  # the generic endpoint's key is in the provider table too


def configured_keys(env: EnvLookup, home: Path | None = None, *extra: str | None) -> tuple[str, ...]:
    """Every configured key value (longest first): all sources of every key variable, every `apiKey` in
    `config.json` under `home` (default: the lookup's paicli home), plus `extra` (e.g. the session's key)."""
    values = {found.value for name in key_names() for found in env.candidates(name)}
    values.update(_saved_keys((home if home is not None else env.home) / "config.json"))
    values.update(value.strip() for value in extra if value)
    return tuple(sorted((v for v in values if len(v) >= MIN_KEY_LENGTH), key=lambda v: (-len(v), v)))


def _saved_keys(path: Path) -> tuple[str, ...]:
    try:
        stat = os.stat(path)
    except OSError:
        return ()
    return _saved_keys_of(str(path), stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=8)
def _saved_keys_of(path: str, mtime_ns: int, size: int) -> tuple[str, ...]:
    """The `apiKey` strings of `config.json`, read again only when the file changed (commands ask per call).
    Read leniently: a file the settings loader rejects still has its keys masked."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return ()
    providers = data.get("providers") if isinstance(data, dict) else None
    if not isinstance(providers, dict):
        return ()
    found: list[str] = []
    for entry in providers.values():
        for field in ("apiKey", "api_key"):  # the loader takes either spelling
            key = entry.get(field) if isinstance(entry, dict) else None
            if isinstance(key, str) and key.strip():
                found.append(key.strip())
    return tuple(found)


@dataclass(frozen=True)
class KeySource:
    """Every configured key, read when asked (`config.json` may change during a session): what a component
    that masks keys is given instead of the environment lookup."""

    env: EnvLookup = dataclass_field(repr=False)
    home: Path | None = None

    def __call__(self, *extra: str | None) -> tuple[str, ...]:
        return configured_keys(self.env, self.home, *extra)


def no_keys(*extra: str | None) -> tuple[str, ...]:
    """A key source with nothing configured (a component built without one masks only `extra`)."""
    return tuple(
        sorted((v.strip() for v in extra if v and len(v.strip()) >= MIN_KEY_LENGTH), key=len, reverse=True)
    )
