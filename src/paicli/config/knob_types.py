"""What a `PAICLI_*` setting is (`Knob`: name, type, default, range, doc), its parsers and the helpers that
declare one. The declarations themselves are in `knobs.py`."""

from __future__ import annotations

import ipaddress
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Generic, Protocol, TypeVar

T = TypeVar("T", covariant=True)
TRUTHY = frozenset({"1", "true", "yes", "on"})
FALSY = frozenset({"0", "false", "no", "off"})


class ConfigError(Exception):
    """An invalid setting: the CLI prints the one-line message and exits 2."""


class Lookup(Protocol):
    """Where a knob's raw value is read (config.env.EnvLookup)."""

    def get(self, key: str, default: str | None = None) -> str | None: ...


def parse_bool(key: str, raw: str) -> bool:
    lowered = raw.lower()
    if lowered in TRUTHY:
        return True
    if lowered in FALSY:
        return False
    raise ConfigError(f"{key}={raw!r} 无效：请使用 true/false、1/0、yes/no 或 on/off")


@dataclass(frozen=True)
class Knob(Generic[T]):
    key: str
    component: str
    default: T
    doc: str
    kind: str
    allowed: str = ""  # the range or choices, as shown to users
    parse: Callable[[str, str], T] | None = None
    # True: a state location, guard/sandbox switch or the approval mode, which the project's ./.env (it comes
    # with the repository) may not set; see `config.env.is_protected`.
    protected: bool = False

    def read(self, env: Lookup) -> T:
        """The configured value, the default when unset; ConfigError (one line) when unusable."""
        raw = env.get(self.key)
        if raw is None or self.parse is None:
            return self.default
        return self.parse(self.key, raw)

    @property
    def default_text(self) -> str:
        if self.default is None or self.default == ():
            return "—"
        if isinstance(self.default, bool):
            return "true" if self.default else "false"
        if isinstance(self.default, tuple):
            return ",".join(str(v) for v in self.default)
        return f"{self.default:,}" if isinstance(self.default, int) else str(self.default)


# ---------------------------------------------------------------- parsers


bool_parser = parse_bool


def _range_error(
    key: str, value: float, low: float | None, high: float | None, open_low: bool
) -> ConfigError:
    lower = "(" if low is None else ("(" if open_low else "[") + f"{low:g}"
    upper = "∞)" if high is None else f"{high:g}]"
    return ConfigError(f"{key}={value:g} 超出允许范围 {lower}, {upper}")


def _int_parser(low: int | None, high: int | None) -> Callable[[str, str], int]:
    def parse(key: str, raw: str) -> int:
        try:
            value = int(raw.replace("_", "").replace(",", ""))
        except ValueError:
            raise ConfigError(f"{key}={raw!r} 无效：需要一个整数") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise _range_error(key, value, low, high, False)
        return value

    return parse


def _float_parser(low: float | None, high: float | None, open_low: bool) -> Callable[[str, str], float]:
    def parse(key: str, raw: str) -> float:
        try:
            value = float(raw)
        except ValueError:
            raise ConfigError(f"{key}={raw!r} 无效：需要一个数字") from None
        too_low = low is not None and (value <= low if open_low else value < low)
        if too_low or (high is not None and value > high):
            raise _range_error(key, value, low, high, open_low)
        return value

    return parse


def _choice_parser(options: tuple[str, ...]) -> Callable[[str, str], str]:
    def parse(key: str, raw: str) -> str:
        value = raw.strip().lower()
        if value not in options:
            raise ConfigError(f"{key}={raw!r} 无效：可选 {'、'.join(options)}")
        return value

    return parse


def _text(key: str, raw: str) -> str | None:
    return raw.strip() or None


def ports_parser(key: str, raw: str) -> tuple[int, ...]:
    if raw.strip().lower() in ("off", "none", "false", "no", "0"):
        return ()
    ports: list[int] = []
    for part in raw.replace(";", ",").split(","):
        text = part.strip()
        if not text:
            continue
        if not text.isdigit() or not 1 <= int(text) <= 65535:
            raise ConfigError(f"{key}={raw!r} 无效：需要逗号分隔的端口号（1-65535），或 off 关闭本机探测")
        ports.append(int(text))
    return tuple(ports)


def trigger_parser(key: str, raw: str) -> float:
    """A share of the window (0.6, 60%) or a token count (>= 1,000)."""
    text = raw.strip().replace("_", "").replace(",", "")
    share = text.endswith("%")
    try:
        value = float(text[:-1]) / 100 if share else float(text)
    except ValueError:
        value = -1.0
    if 0 < value < 1 or (not share and value >= 1_000 and value.is_integer()):
        return value
    raise ConfigError(
        f"{key}={raw!r} 无效：需要窗口的比例（0 到 1 之间，如 0.6 或 60%），或 token 数（不少于 1000 的整数）"
    )


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


def endpoint_parser(key: str, raw: str) -> str:
    try:
        return debug_endpoint(raw)
    except ValueError as error:
        raise ConfigError(f"{key}={raw!r} 无效：{error}") from None


def _names(key: str, raw: str) -> tuple[str, ...]:
    return tuple(part.strip().lower() for part in raw.split(",") if part.strip())


# ---------------------------------------------------------------- declaration helpers


def flag(key: str, component: str, default: bool, doc: str) -> Knob[bool]:
    return Knob(key, component, default, doc, "bool", "true/false", bool_parser)


def integer(
    key: str, component: str, default: int, doc: str, minimum: int | None = None, maximum: int | None = None
) -> Knob[int]:
    return Knob(
        key, component, default, doc, "int", _describe(minimum, maximum), _int_parser(minimum, maximum)
    )


def optional_integer(
    key: str, component: str, doc: str, minimum: int | None = None, maximum: int | None = None
) -> Knob[int | None]:
    parse = _int_parser(minimum, maximum)
    return Knob(key, component, None, doc, "int", _describe(minimum, maximum), parse)


def number(
    key: str,
    component: str,
    default: float,
    doc: str,
    minimum: float | None = None,
    maximum: float | None = None,
    *,
    open_low: bool = False,
) -> Knob[float]:
    allowed = _describe(minimum, maximum, open_low)
    return Knob(key, component, default, doc, "float", allowed, _float_parser(minimum, maximum, open_low))


def choice(key: str, component: str, default: str, options: tuple[str, ...], doc: str) -> Knob[str]:
    return Knob(key, component, default, doc, "choice", " / ".join(options), _choice_parser(options))


def text(key: str, component: str, doc: str) -> Knob[str | None]:
    return Knob(key, component, None, doc, "str", "", _text)


def names(key: str, component: str, doc: str) -> Knob[tuple[str, ...]]:
    return Knob(key, component, (), doc, "list", "a,b,…", _names)


def protect(knob: Knob[T]) -> Knob[T]:
    """The same declaration, marked as never read from a project's ./.env."""
    return replace(knob, protected=True)


def _describe(low: float | None, high: float | None, open_low: bool = False) -> str:
    if low is None and high is None:
        return ""
    lower = "(−∞" if low is None else ("(" if open_low else "[") + _figure(low)
    upper = "∞)" if high is None else f"{_figure(high)}]"
    return f"{lower} … {upper}"


def _figure(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"
