"""Model-facing compaction prompts, read from the packaged `prompts/compaction/` folder once."""

from __future__ import annotations

import functools
import re
from importlib import resources

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")


@functools.cache
def load_prompt(name: str) -> str:
    return (resources.files("paicli") / "prompts" / "compaction" / name).read_text(encoding="utf-8")


def fill(template: str, **values: str) -> str:
    """Single-pass substitution, so inserted text containing `{...}` is never substituted again."""

    def replace(match: re.Match[str]) -> str:
        key = match.group(1)
        return values[key] if key in values else match.group(0)

    return _PLACEHOLDER.sub(replace, template)


def render(name: str, **values: str) -> str:
    return fill(load_prompt(name), **values)


def system_text(name: str) -> str:
    return load_prompt(name).strip()
