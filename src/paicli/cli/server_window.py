"""The context window of a local server, asked of the server itself and remembered per endpoint and model.

A session configured only by an endpoint and a model (no configured window, none in config.json, a
model the provider table does not know) would otherwise assume 128K, and a local server with an 8K context
refuses every request once the conversation grows. At start, a local endpoint is asked once (llm/probe.py);
the answer (or that it said nothing) is kept under `cache/context-windows.json` in the paicli home for a day, so
start-up does not pay a request each time. A window learned from a refusal at run time is kept there too.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paicli import fsperm
from paicli.config.settings import Settings
from paicli.llm.endpoints import is_local_endpoint as is_local

# the forms a server states its window in load with the probe or a refusal, never with a cached answer
if TYPE_CHECKING:
    from paicli.llm.window_forms import ServerWindow

log = logging.getLogger(__name__)

CACHE_FILE = Path("cache") / "context-windows.json"
MAX_AGE_SECONDS = 24 * 3600
LEARNED = "服务端拒绝过长请求时给出的 n_ctx"

Probe = Callable[[str, str | None, str], "ServerWindow | None"]


@dataclass(frozen=True)
class Remembered:
    tokens: int | None  # None: the server was asked and did not say
    source: str
    at: float


def _key(base_url: str, model: str) -> str:
    return f"{base_url.rstrip('/')}|{model}"


def _read(home: Path) -> dict[str, Any]:
    try:
        data = json.loads((home / CACHE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return {}
    return data if isinstance(data, dict) else {}


def recall(home: Path, base_url: str, model: str, now: float | None = None) -> Remembered | None:
    entry = _read(home).get(_key(base_url, model))
    if not isinstance(entry, dict):
        return None
    at, tokens, source = entry.get("at"), entry.get("tokens"), entry.get("source")
    if not isinstance(at, (int, float)) or (now or time.time()) - at > MAX_AGE_SECONDS:
        return None
    valid = isinstance(tokens, int) and not isinstance(tokens, bool) and tokens > 0
    return Remembered(tokens if valid else None, str(source or ""), float(at))


def remember(home: Path, base_url: str, model: str, found: ServerWindow | None) -> None:
    """Keep what the server said (never raises: a cache that cannot be written is asked again next time)."""
    data = _read(home)
    data[_key(base_url, model)] = {
        "tokens": found.tokens if found else None,
        "source": found.source if found else "",
        "at": time.time(),
    }
    try:
        fsperm.ensure_private_dir((home / CACHE_FILE).parent)
        fsperm.write_private_text(home / CACHE_FILE, json.dumps(data, ensure_ascii=False, indent=1) + "\n")
    except OSError:
        log.warning("could not write the context window cache", exc_info=True)


def _ask(base_url: str, api_key: str | None, model: str) -> ServerWindow | None:
    """What the server says; ConnectionError when it did not answer at all (then nothing is remembered)."""
    from paicli.llm.probe import list_models, server_window

    listed = list_models(base_url, api_key, timeout=2.0)
    if listed.kind == "unreachable":
        raise ConnectionError(listed.detail)
    return server_window(base_url, api_key, model, listing=listed.data if listed.ok else None, timeout=2.0)


def with_server_window(settings: Settings, probe: Probe = _ask) -> Settings:
    """`settings` with the window the local server reports, when nothing else named one."""
    if settings.window_source != "default":
        return settings
    home, url, model = settings.paicli_home, settings.base_url, settings.model
    known = recall(home, url, model)  # also a window learned from a cloud endpoint's refusal
    if known is None and is_local(url):
        try:
            found = probe(url, settings.api_key, model)
        except Exception as exc:  # not running yet, say: start-up goes on with the default and asks next time
            # info, not a warning: at start-up logging is not configured yet, and Python would print a
            # warning's traceback on the user's terminal
            log.info("asking %s for its context window failed: %r", url, exc)
            return settings
        remember(home, url, model, found)
        known = Remembered(found.tokens if found else None, found.source if found else "", time.time())
    if known is None or known.tokens is None:
        return settings
    return replace(settings, context_window=known.tokens, window_source="server")


def learned(settings: Settings, tokens: int) -> None:
    """A refusal named the server's window: the next start uses it (until the server is asked again)."""
    if settings.window_source in ("default", "server"):
        from paicli.llm.window_forms import ServerWindow

        remember(settings.paicli_home, settings.base_url, settings.model, ServerWindow(tokens, LEARNED))
