"""Where each setting came from, read once: the `/config` report shows every value with its source, and is
given this snapshot instead of the environment lookup."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from paicli.config.env import EnvLookup, Found


@dataclass(frozen=True)
class ConfigSources:
    """Every usable value of each declared setting and provider variable, in lookup order."""

    found: Mapping[str, tuple[Found, ...]]

    @classmethod
    def parse(cls, env: EnvLookup, extra_keys: Iterable[str] = ()) -> ConfigSources:
        from paicli.config.knobs import ALL_KNOBS
        from paicli.config.knobs_web import WEB_KNOBS
        from paicli.config.providers import PROVIDERS

        keys = {knob.key for knob in (*ALL_KNOBS, *WEB_KNOBS)}
        for spec in PROVIDERS:
            keys.update((*spec.key_envs, *spec.model_envs, *spec.base_url_envs))
        keys.update(extra_keys)
        found = {key: tuple(env.candidates(key)) for key in sorted(keys)}
        return cls({key: values for key, values in found.items() if values})

    def candidates(self, key: str) -> tuple[Found, ...]:
        return self.found.get(key, ())

    def get(self, key: str) -> str | None:
        values = self.candidates(key)
        return values[0].value if values else None

    def source_of(self, key: str) -> str | None:
        values = self.candidates(key)
        return values[0].source if values else None
