"""Configuration lookup shared by every module: process env, ./.env, <paicli home>/.env, ~/.env (first match).

The project's ./.env comes with the repository: it never sets protected settings (`is_protected`), and each
value keeps its source's trust rank so a key is sent only to a base URL at least as trusted (`Found.rank`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from paicli.config.knob_types import FALSY as FALSY
from paicli.config.knob_types import TRUTHY as TRUTHY
from paicli.config.knob_types import ConfigError as ConfigError
from paicli.config.knob_types import parse_bool as parse_bool

# set by paicli on every command it runs (tools/shell.py finds a command's leftovers by it): a paicli started by
# such a command sees it and must not warn about it as an unknown setting
COMMAND_MARKER_ENV = "PAICLI_COMMAND_MARKER"


def home_dir(env: EnvLookup | Mapping[str, str] | None = None) -> Path:
    """The paicli home, resolved here only: `knobs.HOME` from the environment, else from `~/.env` (a home
    cannot be named by the `.env` inside it, nor by a project's), default `~/.paicli`. `env`: a lookup, or the
    environment mapping to build one on (default the process environment)."""
    return (env if isinstance(env, EnvLookup) else EnvLookup(env)).home


def process_environ() -> Mapping[str, str]:
    """The process environment, read-only: what a child process's environment is built from, and where
    conventions of other programs (TZ, tiktoken's cache folders, git's variables) are looked up. Settings of
    paicli's own are read through `EnvLookup` instead."""
    return os.environ


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


# Trust ranks of the places a value can come from, most trusted first. Lookup order is a different thing
# (environment, ./.env, <paicli home>/.env, ~/.env): the project's ./.env comes second there but is the least
# trusted, since it arrives with whatever repository the user opened.
ENVIRONMENT, HOME_DOTENV, USER_DOTENV, PROJECT_DOTENV = 0, 1, 2, 3
ENVIRONMENT_LABEL = "环境变量"

# Settings a project file may never set whatever knobs.py says: where state lives, sandbox and approval
# switches (so a knob added later with such a name is protected without anyone remembering to mark it).
_PROTECTED_NAMES = frozenset({"HOME", "USERPROFILE"})
_PROTECTED_PATTERN = re.compile(
    r"^(?:XDG_\w+|PAICLI_\w*(?:_HOME|_DIR|_DIRS|_FOLDER|_PATH)|PAICLI_\w*(?:SANDBOX|APPROVAL|GUARD)\w*)$"
)


def is_protected(key: str) -> bool:
    """True for a setting that must not come from the project's ./.env (see `Knob.protected`)."""
    from paicli.config.knobs import protected_keys

    return key in _PROTECTED_NAMES or key in protected_keys() or bool(_PROTECTED_PATTERN.match(key))


@dataclass(frozen=True)
class Found:
    value: str
    rank: int  # ENVIRONMENT … PROJECT_DOTENV
    source: str  # ENVIRONMENT_LABEL or the .env file's path


@dataclass
class _Dotenv:
    path: Path
    rank: int
    values: dict[str, str]


class EnvLookup:
    """Reads a key from the environment, then each .env file in order. Files are read once, lazily.

    The project's ./.env is read only through `projectfile` (never through a symlink out of the project), and
    the protected settings it names are ignored (`refused_protected` lists them for the start-up warning).
    """

    def __init__(self, environ: Mapping[str, str] | None = None, cwd: Path | None = None) -> None:
        self._environ = os.environ if environ is None else environ
        self._cwd = cwd
        self._files: list[_Dotenv] | None = None
        self._refused: list[str] = []
        self._home: Path | None = None

    @property
    def home(self) -> Path:
        """See `home_dir`."""
        if self._home is None:
            from paicli.config.knobs import HOME

            configured = (self._environ.get(HOME.key) or "").strip()
            if not configured:
                user_env = _read_dotenv(self._user_home / ".env")
                configured = parse_dotenv(user_env).get(HOME.key, "").strip() if user_env else ""
            self._home = Path(configured).expanduser() if configured else self._user_home / ".paicli"
        return self._home

    @property
    def _user_home(self) -> Path:
        return Path(self._environ.get("HOME") or Path.home()).expanduser()

    def source_of(self, key: str) -> str | None:
        """Where `get(key)` finds its value: "环境变量", the .env file's path, or None when unset."""
        found = self.lookup(key)
        return None if found is None else found.source

    def lookup(self, key: str) -> Found | None:
        """The value `get(key)` returns, with where it came from."""
        candidates = self.candidates(key)
        return candidates[0] if candidates else None

    def candidates(self, key: str) -> list[Found]:
        """Every usable value of `key`, in lookup order (the first one is what `get` returns)."""
        found: list[Found] = []
        value = self._environ.get(key)
        if value is not None and value.strip() != "":
            found.append(Found(value.strip(), ENVIRONMENT, ENVIRONMENT_LABEL))
        for dotenv in self._dotenv_files():
            raw = dotenv.values.get(key)
            if raw is not None and raw.strip() != "":
                found.append(Found(raw.strip(), dotenv.rank, str(dotenv.path)))
        return found

    def endpoint_for(self, url_key: str, *key_names: str) -> str | None:
        """The first value of `url_key` that may receive the key found under `key_names`: one from the key's
        own source or a more trusted one (a project ./.env never redirects a key saved elsewhere)."""
        key = next((found for name in key_names if (found := self.lookup(name)) is not None), None)
        for found in self.candidates(url_key):
            if key is None or found.rank <= key.rank:
                return found.value
        return None

    def refused_protected(self) -> tuple[str, ...]:
        """Protected settings the project's ./.env tried to set (ignored), in file order."""
        self._dotenv_files()
        return tuple(self._refused)

    @property
    def project_dotenv(self) -> Path:
        return (self._cwd or Path.cwd()) / ".env"

    def _dotenv_files(self) -> list[_Dotenv]:
        if self._files is None:
            trusted = [(self.home / ".env", HOME_DOTENV), (self._user_home / ".env", USER_DOTENV)]
            files: list[_Dotenv] = []
            seen: dict[Path, int] = {}
            for path, rank in trusted:
                text = _read_dotenv(path)
                resolved = _resolved(path)
                if text is None or resolved is None or resolved in seen:
                    continue
                seen[resolved] = rank
                files.append(_Dotenv(path, rank, parse_dotenv(text)))
            resolved = _resolved(self.project_dotenv)
            if resolved is not None and resolved in seen:  # paicli run in ~: ./.env is the user's own file
                index = list(seen).index(resolved)
                files.insert(0, files.pop(index))
            else:
                project = self._project_file()
                files = ([project] if project is not None else []) + files
            self._files = files
        return self._files

    def _project_file(self) -> _Dotenv | None:
        from paicli.config.projectfile import read_project_text

        path = self.project_dotenv
        text = read_project_text(path, path.parent)
        if text is None:
            return None
        values = parse_dotenv(text)
        for key in list(values):
            if is_protected(key):
                del values[key]
                self._refused.append(key)
        return _Dotenv(path, PROJECT_DOTENV, values)

    def names(self, prefix: str) -> list[tuple[str, str]]:
        """Every set name that starts with `prefix`, once, with where it is set (as `source_of` says)."""
        found = {key: ENVIRONMENT_LABEL for key in self._environ if key.startswith(prefix)}
        for dotenv in self._dotenv_files():
            for key in dotenv.values:
                if key.startswith(prefix):
                    found.setdefault(key, str(dotenv.path))
        return sorted(found.items())

    def get(self, key: str, default: str | None = None) -> str | None:
        found = self.lookup(key)
        return default if found is None else found.value


def _resolved(path: Path) -> Path | None:
    try:
        return path.resolve() if path.is_file() else None
    except (OSError, RuntimeError):
        return None


def _read_dotenv(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace") if path.is_file() else None
    except OSError:
        return None
