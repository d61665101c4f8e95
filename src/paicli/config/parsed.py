"""Everything the composition root reads from the configuration, read once: the typed settings, the key
source and the provenance snapshot for `/config`. Built from the environment lookup here, so nothing outside
`config/` is handed the lookup itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from paicli.config.env import EnvLookup
from paicli.config.keys import KeySource
from paicli.config.sources import ConfigSources
from paicli.config.values import SessionValues


@dataclass(frozen=True)
class ParsedConfig:
    values: SessionValues
    keys: KeySource  # every configured key, read when asked
    sources: ConfigSources  # where each setting came from (/config)
    # `${NAME}` in mcp.json: what a server's command line and environment are built from
    variables: Callable[[str], str | None]
    # the lookup this was read from, kept only to open further sessions the way this one was opened (background
    # tasks); no component reads a setting through it
    lookup: EnvLookup | None = None

    @classmethod
    def read(cls, env: EnvLookup) -> ParsedConfig:
        return cls(SessionValues.parse(env), KeySource(env), ConfigSources.parse(env), env.get, env)
