"""The environment a command gets.

A command nobody approved (auto mode's read-only class, Plan tasks, Team workers) gets an allow-list: the few
variables a program needs to find itself, its terminal and its language (`BASE_NAMES`, `LC_*`), plus the names
the user lists in the `COMMAND_ENV_ALLOW` setting (a protected setting: never from a repository's `.env`). A
credential under any other name (`DB_PASS`, `DATABASE_URL`, `SENTRY_DSN`, `*_CREDS` …) is simply not on the
list; no deny-list has to foresee it. Even an allowed variable is dropped when its value looks like a
credential (the redactor's shapes, or a configured key in any of its encodings), and no setting can let
through paicli's own key variables or a variable naming a socket or agent (`SSH_AUTH_SOCK`, `DOCKER_HOST`,
the D-Bus bus, anything in the user's runtime folder): connecting there is a way out of the sandbox.

A command a human approved runs with the user's environment (it may need the user's credentials and agents:
`git push`, `docker ps`), but never with a key paicli is configured with, under its own name or any other.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from functools import lru_cache

from paicli.config.keys import key_names
from paicli.redact import Redactor

BASE_NAMES = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LOGNAME",
        "SHELL",
        "TERM",
        "COLORTERM",
        "NO_COLOR",
        "LANG",
        "LANGUAGE",
        "TZ",
        "TMPDIR",
        "COLUMNS",
        "LINES",
        "PWD",
        # where toolchains live (paths, no credentials): builds in Plan tasks find their compilers
        "JAVA_HOME",
        "GOROOT",
        "GOPATH",
        "CARGO_HOME",
        "RUSTUP_HOME",
        "VIRTUAL_ENV",
        "CONDA_PREFIX",
        "PYENV_ROOT",
        "NVM_DIR",
    }
)
BASE_PREFIXES = ("LC_",)
SOCKET_NAMES = frozenset(
    {
        "SSH_AUTH_SOCK",
        "SSH_AGENT_PID",
        "GPG_AGENT_INFO",
        "DBUS_SESSION_BUS_ADDRESS",
        "DBUS_SYSTEM_BUS_ADDRESS",
        "DOCKER_HOST",
        "CONTAINER_HOST",
        "XDG_RUNTIME_DIR",
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "PULSE_SERVER",
        "KRB5CCNAME",
        "TMUX",
    }
)
SOCKET_SUFFIXES = ("_SOCK", "_SOCKET", "_BUS_ADDRESS", "_AGENT_INFO")
_SOCKET_VALUE_SUFFIXES = (".sock", ".socket")


def known_keys() -> frozenset[str]:
    """Every key variable paicli itself reads (see `config.keys.key_names`)."""
    return key_names()


def never_allowed(name: str) -> bool:
    """A name the user's allow setting cannot add: paicli's keys and settings, sockets and agents."""
    upper = name.upper()
    return (
        upper in known_keys()
        or upper.startswith("PAICLI_")
        or upper in SOCKET_NAMES
        or upper.endswith(SOCKET_SUFFIXES)
    )


def allowed_names(allow: Iterable[str]) -> frozenset[str]:
    """The user's extra names, upper-case, minus those no setting may add."""
    return frozenset(name.strip().upper() for name in allow if name.strip() and not never_allowed(name))


def sandbox_env(
    env: Mapping[str, str], allow: Iterable[str] = (), keys: Iterable[str] = ()
) -> dict[str, str]:
    """A command nobody approved: the allow-list only, without values that look like credentials or sockets.
    `keys`: the configured key values (`config.keys.configured_keys`)."""
    extra = allowed_names(allow)
    check = _checker(tuple(keys))
    runtime = env.get("XDG_RUNTIME_DIR", "")
    kept: dict[str, str] = {}
    for name, value in env.items():
        upper = name.upper()
        listed = upper in BASE_NAMES or upper.startswith(BASE_PREFIXES) or upper in extra
        if not listed or never_allowed(upper):
            continue
        socket = not upper.endswith("PATH") and _socket_value(value, runtime)
        if socket or _credential_value(upper, value, check):
            continue
        kept[name] = value
    return kept


def approved_env(env: Mapping[str, str], keys: Iterable[str] = ()) -> dict[str, str]:
    """A command a human approved: everything but paicli's key variables and any variable holding a configured
    key (a copy under another name, or encoded)."""
    drop = known_keys()
    check = _checker(tuple(keys))
    return {
        name: value
        for name, value in env.items()
        if name.upper() not in drop and not check.holds_configured(value)
    }


@lru_cache(maxsize=8)
def _checker(keys: tuple[str, ...]) -> Redactor:
    return Redactor(keys)


def _credential_value(name: str, value: str, check: Redactor) -> bool:
    # a search path is judged entry by entry (`/opt/apikey:/usr/bin` is two folders, not `apikey: …`)
    parts = value.split(os.pathsep) if name.endswith("PATH") else [value]
    return any(part and check.text(part) != part for part in parts)


def _socket_value(value: str, runtime_dir: str) -> bool:
    text = value.strip()
    if not text:
        return False
    runtime = runtime_dir.rstrip("/")
    return (
        text.startswith(("unix:", "@"))
        or "/run/user/" in text
        or (bool(runtime) and (text == runtime or text.startswith(runtime + "/")))
        or text.endswith(_SOCKET_VALUE_SUFFIXES)
    )
