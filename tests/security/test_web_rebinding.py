"""Issue 26: web_fetch connects to the address it checked (DNS rebinding), and checks every redirect again.

The names below do not exist: a scripted resolver (the gate's Resolver seam) answers for them, and the only
address the relaxed check accepts is the loopback test server. A fetch that worked therefore connected to
the checked address; a second lookup would have gone to the system resolver (and failed) or got the
rebinding answer.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.web import Resolver, UrlGate, WebTools

served: list[tuple[str, str]] = []  # (path, Host header) of every request the server answered


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        served.append((self.path, self.headers.get("Host", "")))
        port = self.server.server_address[1]
        targets = {"/hop": f"http://good.test:{port}/page", "/evil": f"http://inner.test:{port}/page"}
        if self.path in targets:
            self.send_response(302)
            self.send_header("Location", targets[self.path])
            self.end_headers()
            return
        body = b"<html><title>ok</title><body>pinned page</body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class ScriptedResolver:
    """Answers each name from a script, one answer per lookup (the last answer repeats); counts lookups."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self._answers = answers
        self.lookups: list[str] = []

    def __call__(self, host: str, /) -> list[str]:
        self.lookups.append(host)
        script = self._answers[host]
        return script.pop(0) if len(script) > 1 else script[0]


@pytest.fixture
def port(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    for name in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"):
        monkeypatch.delenv(name, raising=False)  # this machine's proxy settings are not part of the test
    served.clear()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield int(httpd.server_address[1])
    httpd.shutdown()
    httpd.server_close()


def loopback_only(address: str) -> bool:
    return address == "127.0.0.1"


def fetch(resolver: Resolver, url: str, tmp_path: Path) -> tuple[bool, bool, str]:
    web = WebTools(gate=UrlGate(resolver=resolver, address_ok=loopback_only))
    ctx = ToolContext(tmp_path, PathGuard(tmp_path), CancelToken(), None, 5.0)
    output = web.web_fetch({"url": url}, ctx)
    return output.success, output.blocked, output.content


def test_the_checked_address_is_the_one_connected_to(port: int, tmp_path: Path) -> None:
    # First answer passes the check; any later lookup would rebind the name to an internal address.
    resolver = ScriptedResolver({"rebind.test": [["127.0.0.1"], ["10.0.0.1"]]})
    ok, blocked, text = fetch(resolver, f"http://rebind.test:{port}/page", tmp_path)
    assert ok and not blocked and "pinned page" in text
    assert resolver.lookups == ["rebind.test"]  # resolved once, for the check
    assert served == [("/page", f"rebind.test:{port}")]  # the name stays in the Host header


def test_a_redirect_is_resolved_checked_and_pinned_again(port: int, tmp_path: Path) -> None:
    resolver = ScriptedResolver({"start.test": [["127.0.0.1"]], "good.test": [["127.0.0.1"], ["10.0.0.1"]]})
    ok, _, text = fetch(resolver, f"http://start.test:{port}/hop", tmp_path)
    assert ok and "pinned page" in text
    assert resolver.lookups == ["start.test", "good.test"]
    assert served == [("/hop", f"start.test:{port}"), ("/page", f"good.test:{port}")]


def test_a_redirect_to_a_name_on_an_internal_address_is_refused(port: int, tmp_path: Path) -> None:
    resolver = ScriptedResolver({"start.test": [["127.0.0.1"]], "inner.test": [["10.0.0.1"]]})
    ok, blocked, text = fetch(resolver, f"http://start.test:{port}/evil", tmp_path)
    assert not ok and blocked and "10.0.0.1" in text
    assert [path for path, _ in served] == ["/evil"]  # the internal target was never requested


def test_one_internal_address_among_public_ones_refuses_the_name(port: int, tmp_path: Path) -> None:
    resolver = ScriptedResolver({"mixed.test": [["127.0.0.1", "10.0.0.1"]]})
    ok, blocked, text = fetch(resolver, f"http://mixed.test:{port}/page", tmp_path)
    assert not ok and blocked and "10.0.0.1" in text and served == []


def test_a_redirect_to_another_scheme_is_refused() -> None:
    gate = UrlGate(resolver=ScriptedResolver({}), address_ok=loopback_only)
    with pytest.raises(Exception, match="http/https"):
        gate.host_of("file:///etc/passwd")
