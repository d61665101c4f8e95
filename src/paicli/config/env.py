"""Configuration lookup shared by every module: process env, ./.env, <paicli home>/.env, ~/.env (first match)."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

TRUTHY = frozenset({"1", "true", "yes", "on"})
FALSY = frozenset({"0", "false", "no", "off"})


class ConfigError(Exception):
    """An invalid setting: the CLI prints the one-line message and exits 2."""


def paicli_home(environ: Mapping[str, str] | None = None) -> Path:
    from paicli.config.knobs import HOME

    env = os.environ if environ is None else environ
    raw = env.get(HOME.key)
    if raw:
        return Path(raw).expanduser()
    return Path(env.get("HOME") or Path.home()) / ".paicli"


def parse_dotenv(text: str) -> dict[str, str]:
    values: dict[str, str] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#") or "=" not in line:
            continue
        key, value = line.split("=", 1)
        key = key.strip()
        if key.startswith("export "):
            key = key[len("export ") :].strip()
        value = _dotenv_value(value.strip())
        if key:
            values.setdefault(key, value)
    return values


def _dotenv_value(value: str) -> str:
    """`"quoted"` / `'quoted'` keep everything inside the quotes; an unquoted value ends at ` #` (a comment)."""
    if value[:1] in ("'", '"'):
        end = value.find(value[0], 1)
        if end != -1:
            return value[1:end]
    return _INLINE_COMMENT.split(value, maxsplit=1)[0].strip()


_INLINE_COMMENT = re.compile(r"\s+#")


class EnvLookup:
    """Reads a key from the environment, then each .env file in order. Files are read once, lazily."""

    def __init__(self, environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> None:
        self._environ = os.environ if environ is None else environ
        self._cwd = cwd
        self._files: list[dict[str, str]] | None = None
        self._paths: list[Path] = []

    def source_of(self, key: str) -> str | None:
        """Where `get(key)` finds its value: "环境变量", the .env file's path, or None when unset."""
        value = self._environ.get(key)
        if value is not None and value.strip() != "":
            return "环境变量"
        self._dotenv_files()
        for path, values in zip(self._paths, self._files or [], strict=False):
            found = values.get(key)
            if found is not None and found.strip() != "":
                return str(path)
        return None

    def _dotenv_files(self) -> list[dict[str, str]]:
        if self._files is None:
            cwd = self._cwd or Path.cwd()
            home = Path(self._environ.get("HOME") or Path.home())
            candidates = [cwd / ".env", paicli_home(self._environ) / ".env", home / ".env"]
            files: list[dict[str, str]] = []
            seen: set[Path] = set()
            for path in candidates:
                try:
                    resolved = path.resolve()
                    if resolved in seen or not path.is_file():
                        continue
                    seen.add(resolved)
                    files.append(parse_dotenv(path.read_text(encoding="utf-8", errors="replace")))
                    self._paths.append(path)
                except OSError:
                    continue
            self._files = files
        return self._files

    def names(self, prefix: str) -> list[tuple[str, str]]:
        """Every set name that starts with `prefix`, once, with where it is set (as `source_of` says)."""
        found = {key: "环境变量" for key in self._environ if key.startswith(prefix)}
        for path, values in zip(self._paths_read(), self._files or [], strict=False):
            for key in values:
                if key.startswith(prefix):
                    found.setdefault(key, str(path))
        return sorted(found.items())

    def _paths_read(self) -> list[Path]:
        self._dotenv_files()
        return self._paths

    def get(self, key: str, default: str | None = None) -> str | None:
        value = self._environ.get(key)
        if value is not None and value.strip() != "":
            return value.strip()
        for values in self._dotenv_files():
            found = values.get(key)
            if found is not None and found.strip() != "":
                return found.strip()
        return default

    def get_bool(self, key: str, default: bool) -> bool:
        raw = self.get(key)
        if raw is None:
            return default
        lowered = raw.lower()
        if lowered in TRUTHY:
            return True
        if lowered in FALSY:
            return False
        raise ConfigError(f"{key}={raw!r} 无效：请使用 true/false、1/0、yes/no 或 on/off")

    def get_int(self, key: str, default: int, minimum: int | None = None, maximum: int | None = None) -> int:
        raw = self.get(key)
        if raw is None:
            return default
        try:
            value = int(raw.replace("_", "").replace(",", ""))
        except ValueError:
            raise ConfigError(f"{key}={raw!r} 无效：需要一个整数") from None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            low = "" if minimum is None else f"{minimum}"
            high = "" if maximum is None else f"{maximum}"
            raise ConfigError(f"{key}={value} 超出允许范围 [{low}, {high}]")
        return value

    def get_float(self, key: str, default: float) -> float:
        raw = self.get(key)
        if raw is None:
            return default
        try:
            return float(raw)
        except ValueError:
            raise ConfigError(f"{key}={raw!r} 无效：需要一个数字") from None
