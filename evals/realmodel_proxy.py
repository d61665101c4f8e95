"""A loopback recording proxy for `python -m evals.realmodel`: every request to the real server passes through
unchanged (streamed responses chunk by chunk), and each exchange is kept: the request body, the HTTP status,
the error body of a refusal, and the usage and finish_reason of the response."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Exchange:
    method: str
    path: str
    body: Any
    status: int = 0
    error: Any = None
    usage: dict[str, Any] | None = None
    finish_reason: str | None = None
    content: str = ""
    tool_calls: int = 0

    @property
    def chat(self) -> bool:
        return self.method == "POST" and self.path.rstrip("/").endswith("/chat/completions")


@dataclass
class Recorder:
    exchanges: list[Exchange] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, exchange: Exchange) -> None:
        with self.lock:
            self.exchanges.append(exchange)

    def since(self, mark: int) -> list[Exchange]:
        with self.lock:
            return list(self.exchanges[mark:])

    def __len__(self) -> int:
        with self.lock:
            return len(self.exchanges)


def read_sse(raw: str, exchange: Exchange) -> None:
    """Usage, finish_reason, text and call count from a streamed response."""
    text: list[str] = []
    calls: set[int] = set()
    for line in raw.splitlines():
        if not line.startswith("data:") or line[5:].strip() == "[DONE]":
            continue
        try:
            event = json.loads(line[5:].strip())
        except ValueError:
            continue
        if isinstance(event.get("usage"), dict):
            exchange.usage = event["usage"]
        for choice in event.get("choices") or []:
            exchange.finish_reason = choice.get("finish_reason") or exchange.finish_reason
            delta = choice.get("delta") or {}
            text.append(delta.get("content") or "")
            calls.update(int(call.get("index", 0)) for call in delta.get("tool_calls") or [])
    exchange.content = "".join(text)
    exchange.tool_calls = len(calls)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    upstream: urllib.parse.SplitResult
    recorder: Recorder

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        self._forward("GET")

    def do_POST(self) -> None:
        self._forward("POST")

    def _forward(self, method: str) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)) if method == "POST" else b""
        try:
            body: Any = json.loads(raw) if raw else None
        except ValueError:
            body = raw.decode("utf-8", "replace")
        exchange = Exchange(method, self.path, body)
        connection = http.client.HTTPConnection(
            self.upstream.hostname or "127.0.0.1", self.upstream.port, timeout=3600
        )
        headers = {
            k: v for k, v in self.headers.items() if k.lower() not in ("host", "connection", "content-length")
        }
        try:
            connection.request(method, self.path, body=raw or None, headers=headers)
            response = connection.getresponse()
            exchange.status = response.status
            self.send_response(response.status)
            for key, value in response.getheaders():
                if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                    self.send_header(key, value)
            self.end_headers()
            received = self._pass_through(response)
        except OSError:
            exchange.status = exchange.status or 599
            received = b""
        finally:
            connection.close()
            self._record(exchange, received)

    def _pass_through(self, response: http.client.HTTPResponse) -> bytes:
        received = bytearray()
        while True:
            chunk = response.read1(65536)
            if not chunk:
                return bytes(received)
            received += chunk
            try:
                self.wfile.write(chunk)
                self.wfile.flush()
            except OSError:  # the client went away (cancel): keep reading what the server still sends
                continue

    def _record(self, exchange: Exchange, received: bytes) -> None:
        text = received.decode("utf-8", "replace")
        if exchange.status >= 400:
            try:
                exchange.error = json.loads(text)
            except ValueError:
                exchange.error = text[:500]
        elif exchange.chat and isinstance(exchange.body, dict) and exchange.body.get("stream"):
            read_sse(text, exchange)
        elif exchange.chat:
            try:
                data = json.loads(text)
                exchange.usage = data.get("usage")
                exchange.finish_reason = (data.get("choices") or [{}])[0].get("finish_reason")
            except (ValueError, AttributeError, IndexError):
                pass
        self.recorder.add(exchange)


class RecordingProxy:
    """`with RecordingProxy("http://127.0.0.1:18080/v1") as proxy: proxy.base_url ...`"""

    def __init__(self, upstream_base_url: str) -> None:
        self.upstream = urllib.parse.urlsplit(upstream_base_url)
        self.prefix = self.upstream.path.rstrip("/")
        self.recorder = Recorder()
        handler = type("_Bound", (_Handler,), {"upstream": self.upstream, "recorder": self.recorder})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.1,), daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}{self.prefix}"

    def __enter__(self) -> RecordingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
