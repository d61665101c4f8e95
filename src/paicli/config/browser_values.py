"""The browser tools' settings (issue 48), parsed once into typed values."""

from __future__ import annotations

from dataclasses import dataclass

from paicli.config import knobs_browser as knobs
from paicli.config.knob_types import Lookup


@dataclass(frozen=True)
class BrowserValues:
    program: str | None = None  # a path or a program name; None: the known names on PATH
    allow_hosts: tuple[str, ...] = ()  # loopback/private hosts the user lets pages reach
    debug_address: str = knobs.BROWSER_DEBUG_ADDRESS.default  # the user's own browser (shared mode)

    @classmethod
    def parse(cls, env: Lookup) -> BrowserValues:
        return cls(
            knobs.BROWSER.read(env),
            knobs.BROWSER_ALLOW_HOSTS.read(env),
            knobs.BROWSER_DEBUG_ADDRESS.read(env),
        )
