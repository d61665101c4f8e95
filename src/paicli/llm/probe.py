"""Cheap endpoint checks for the first-run setup: list models, a one-token completion, local-server discovery.

Plain `urllib` (no SDK import): each check is one small request with a short timeout. Endpoint checks honour
the usual proxy variables like the chat client does; the loopback discovery never goes through a proxy and
refuses any address that is not a loopback one.
"""

from __future__ import annotations

import ipaddress
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Literal

from paicli.llm import window_forms
from paicli.llm.window_forms import ServerWindow

LOOPBACK = "127.0.0.1"
CheckKind = Literal["ok", "auth", "not_found", "unreachable", "error"]


@dataclass(frozen=True)
class CheckResult:
    kind: CheckKind
    detail: str = ""
    status: int | None = None
    models: tuple[str, ...] = ()
    data: Any = field(default=None, compare=False, repr=False)  # the JSON answer (a model listing's metadata)

    @property
    def ok(self) -> bool:
        return self.kind == "ok"


@dataclass(frozen=True)
class LocalServer:
    name: str
    port: int
    base_url: str
    models: tuple[str, ...]
    listing: Any = field(default=None, compare=False, repr=False)  # its /models answer (context sizes)


def _headers(api_key: str | None) -> dict[str, str]:
    headers = {"Accept": "application/json", "User-Agent": "paicli-setup"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    return headers


def _request(request: urllib.request.Request, timeout: float, direct: bool) -> CheckResult:
    opener = (
        urllib.request.build_opener(urllib.request.ProxyHandler({}))
        if direct
        else urllib.request.build_opener()
    )
    try:
        with opener.open(request, timeout=timeout) as response:
            body = response.read(2_000_000)
    except urllib.error.HTTPError as exc:
        return _http_failure(exc)
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        return CheckResult("unreachable", _one_line(str(reason)))
    try:
        data: Any = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return CheckResult("error", "服务返回的不是 JSON，可能不是 OpenAI 兼容接口")
    return CheckResult("ok", models=_model_ids(data), data=data)


def _http_failure(exc: urllib.error.HTTPError) -> CheckResult:
    detail = ""
    try:
        raw = exc.read(4000).decode("utf-8", "replace")
        data = json.loads(raw)
        error = data.get("error", data) if isinstance(data, dict) else data
        detail = str(error.get("message", "") if isinstance(error, dict) else error)
    except (OSError, ValueError, AttributeError):
        detail = ""
    detail = _one_line(detail or str(exc.reason or ""))
    if exc.code in (401, 403):
        return CheckResult("auth", detail, exc.code)
    if exc.code in (404, 405):
        return CheckResult("not_found", detail, exc.code)
    return CheckResult("error", detail, exc.code)


def _model_ids(data: Any) -> tuple[str, ...]:
    items = data.get("data") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return ()
    ids = [str(item["id"]) for item in items if isinstance(item, dict) and isinstance(item.get("id"), str)]
    return tuple(dict.fromkeys(ids))


def _one_line(text: str, limit: int = 200) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def list_models(base_url: str, api_key: str | None, timeout: float = 10.0) -> CheckResult:
    """GET {base_url}/models: checks address and key at once and tells which models the endpoint serves."""
    request = urllib.request.Request(f"{base_url.rstrip('/')}/models", headers=_headers(api_key))
    return _request(request, timeout, direct=False)


def one_token(base_url: str, api_key: str | None, model: str, timeout: float = 20.0) -> CheckResult:
    """A one-token chat completion, for endpoints that do not list their models."""
    body = {
        "model": model,
        "messages": [{"role": "user", "content": "ping"}],
        "max_tokens": 1,
        "stream": False,
    }
    headers = {**_headers(api_key), "Content-Type": "application/json"}
    request = urllib.request.Request(
        f"{base_url.rstrip('/')}/chat/completions",
        data=json.dumps(body).encode("utf-8"),
        headers=headers,
        method="POST",
    )
    result = _request(request, timeout, direct=False)
    return CheckResult("ok") if result.ok else result


def _require_loopback(host: str) -> None:
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise ValueError(f"local discovery only probes loopback addresses, not {host!r}")


# A loopback connect is accepted or refused at once; the timeout only bounds a listener that never answers.
PROBE_TIMEOUT = 2.5


def probe_local(
    name: str, port: int, host: str = LOOPBACK, timeout: float = PROBE_TIMEOUT
) -> LocalServer | None:
    """One loopback port: an OpenAI-compatible server there answers GET /v1/models with a model list."""
    _require_loopback(host)
    base_url = f"http://{host}:{port}/v1"
    request = urllib.request.Request(f"{base_url}/models", headers=_headers(None))
    result = _request(request, timeout, direct=True)
    if not result.ok or not result.models:
        return None
    return LocalServer(name, port, base_url, result.models, result.data)


def discover_local(
    servers: Sequence[tuple[str, int]], hosts: Sequence[str] = (LOOPBACK,), timeout: float = PROBE_TIMEOUT
) -> list[LocalServer]:
    """Probe every (name, port) on each loopback host in parallel; servers that list models, in table order."""
    for host in hosts:
        _require_loopback(host)
    targets = [(name, port, host) for host in hosts for name, port in servers]
    if not targets:
        return []
    with ThreadPoolExecutor(max_workers=min(8, len(targets)), thread_name_prefix="paicli-probe") as pool:
        found = list(pool.map(lambda t: probe_local(t[0], t[1], t[2], timeout), targets))
    return [server for server in found if server is not None]


def _root(base_url: str) -> str:
    """The server's root: native routes (llama.cpp /props, Ollama /api, LM Studio /api/v0) live beside /v1."""
    url = base_url.rstrip("/")
    return url[: -len("/v1")] if url.endswith("/v1") else url


def _get_json(url: str, api_key: str | None, timeout: float, body: Any = None) -> Any:
    headers = _headers(api_key)
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if data else "GET")
    result = _request(request, timeout, direct=False)
    return result.data if result.ok else None


def server_window(
    base_url: str,
    api_key: str | None,
    model: str,
    *,
    listing: Any = None,
    native: bool = True,
    timeout: float = 3.0,
) -> ServerWindow | None:
    """The context size the server at `base_url` gives `model`, where it says it (llm/window_forms.py).

    `listing`: a `GET /models` answer already in hand. `native`: also ask the servers' own routes beside /v1
    (llama.cpp, Ollama, LM Studio), one request each until one answers; meant for local servers."""
    if listing is None:
        listing = _get_json(f"{base_url.rstrip('/')}/models", api_key, timeout)
    found = window_forms.from_listing(listing, model)
    if found is not None or not native:
        return found
    root = _root(base_url)
    quoted = urllib.parse.quote(model, safe="")
    attempts: tuple[tuple[Callable[[Any], ServerWindow | None], str, Any], ...] = (
        (window_forms.from_llamacpp_props, f"{root}/props", None),
        (lambda data: window_forms.from_ollama_ps(data, model), f"{root}/api/ps", None),
        (window_forms.from_ollama_show, f"{root}/api/show", {"model": model}),
        (window_forms.from_lmstudio, f"{root}/api/v0/models/{quoted}", None),
    )
    for parse, url, body in attempts:
        found = parse(_get_json(url, api_key, timeout, body))
        if found is not None:
            return found
    return None
