"""The HTTP transport under the SDK client. The HTTP library builds its TLS context when the client is built,
and that reads the system's whole CA bundle (about 30 ms of CPU, most of what building the client costs), even
for a plain-http endpoint (a local server) that never speaks TLS. Here each scheme's transport is built at its
first request: https gets the library's own default (its TLS context and trust store, as before); http gets one
whose TLS context is created empty and never used (it still verifies, so it could only fail closed).

Imported with the SDK (llm/connection.py), never at start-up."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Callable
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

from openai import _base_client
from openai._constants import DEFAULT_CONNECTION_LIMITS


class TlsWhenNeeded:
    """The client's default transport (the library's transport interface: `handle_request`, `close`, a context
    manager); the proxies the library mounts from the environment stay its own."""

    def __init__(self, build: Callable[..., Any], limits: Any) -> None:
        self._build = build  # the library's HTTPTransport
        self._limits = limits
        self._lock = threading.Lock()
        self._by_scheme: dict[str, Any] = {}

    def prepare(self, scheme: str) -> None:
        """Build the endpoint's own transport now (the client is built on a side thread at start-up, so the
        HTTP library's connection code loads there, not on the first request's path)."""
        self._transport(scheme)

    def _transport(self, scheme: str) -> Any:
        with self._lock:
            transport = self._by_scheme.get(scheme)
            if transport is None:
                if scheme == "http":
                    unused = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # no http request does a TLS handshake
                    transport = self._build(verify=unused, limits=self._limits)
                else:
                    transport = self._build(limits=self._limits)
                self._by_scheme[scheme] = transport
            return transport

    def handle_request(self, request: Any) -> Any:
        return self._transport(request.url.scheme).handle_request(request)

    def close(self) -> None:
        with self._lock:
            transports = list(self._by_scheme.values())
            self._by_scheme.clear()
        for transport in transports:
            transport.close()

    def __enter__(self) -> TlsWhenNeeded:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None = None,
        error: BaseException | None = None,
        trace: TracebackType | None = None,
    ) -> None:
        self.close()


def http_client(openai: Any, base_url: str) -> Any:
    """The SDK's own default client (its limits, timeouts and redirects) over `TlsWhenNeeded`, built with the
    HTTP library the SDK itself uses (`httpx2` from openai 3.x on, `httpx` before); the endpoint's scheme is
    prepared at once."""
    library = vars(_base_client).get("httpx2") or vars(_base_client)["httpx"]
    transport = TlsWhenNeeded(library.HTTPTransport, DEFAULT_CONNECTION_LIMITS)
    transport.prepare(urlsplit(base_url).scheme.lower() or "https")
    return openai.DefaultHttpxClient(transport=transport)
