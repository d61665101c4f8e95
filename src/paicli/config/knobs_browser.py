"""The browser tools' settings (issue 48) and their typed values. All protected: which program runs, which
private addresses a page may reach and which local browser is shared are the user's choice, never a
repository's `.env`."""

from __future__ import annotations

import ipaddress
import urllib.parse
from dataclasses import dataclass

from paicli.config.knob_types import ConfigError, Knob, Lookup, names, protect, text

BROWSER = "browser"
DEFAULT_DEBUG_PORT = 9222
_LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost"})


def debug_endpoint(raw: str | None) -> str:
    """The DevTools address of the user's own browser as an http URL: a port, host:port or a URL, on this
    machine only (the protocol has no authentication: a remote one would hand the pages to anyone on the way).
    ValueError (a message for the user) otherwise."""
    given = (raw or "").strip() or str(DEFAULT_DEBUG_PORT)
    address = f"127.0.0.1:{given}" if given.isdigit() else given
    parts = urllib.parse.urlsplit(address if "://" in address else f"http://{address}")
    try:
        port = parts.port
    except ValueError:
        port = None
    if parts.scheme not in ("http", "ws") or not parts.hostname or port is None:
        raise ValueError(f"调试地址无效：{given}（应为端口号，或 127.0.0.1:9222 这样的本机地址）")
    if not _loopback(parts.hostname):
        raise ValueError(f"只连接本机的浏览器调试端口，{parts.hostname} 不是本机地址")
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return f"http://{host}:{port}"


def _loopback(host: str) -> bool:
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _endpoint(key: str, raw: str) -> str:
    try:
        return debug_endpoint(raw)
    except ValueError as error:
        raise ConfigError(f"{key}={raw!r} 无效：{error}") from None


PROGRAM = protect(
    text(
        "PAICLI_BROWSER",
        BROWSER,
        "the Chromium the browser tools drive (a path or a program name); default: chromium, chromium-browser "
        "or google-chrome on PATH",
    )
)
ALLOW_HOSTS = protect(
    names(
        "PAICLI_BROWSER_ALLOW_HOSTS",
        BROWSER,
        "hosts the browser tools may open although they are loopback or private addresses "
        "(e.g. 127.0.0.1,localhost); others are refused like web_fetch refuses them",
    )
)
DEBUG_ADDRESS = protect(
    Knob(
        "PAICLI_BROWSER_DEBUG_ADDRESS",
        BROWSER,
        f"http://127.0.0.1:{DEFAULT_DEBUG_PORT}",
        "DevTools address of your own browser for browser_connect (a port or 127.0.0.1:PORT on this machine; "
        "start the browser with --remote-debugging-port)",
        "str",
        "port or loopback host:port",
        _endpoint,
    )
)
BROWSER_KNOBS: tuple[Knob[object], ...] = (PROGRAM, ALLOW_HOSTS, DEBUG_ADDRESS)


@dataclass(frozen=True)
class BrowserValues:
    program: str | None = None
    allow_hosts: tuple[str, ...] = ()
    debug_address: str = DEBUG_ADDRESS.default

    @classmethod
    def parse(cls, env: Lookup) -> BrowserValues:
        return cls(PROGRAM.read(env), ALLOW_HOSTS.read(env), DEBUG_ADDRESS.read(env))
