"""Endpoint checks and loopback discovery against the fake server (real HTTP on 127.0.0.1 only)."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from paicli.config.env import ConfigError, EnvLookup
from paicli.config.providers import LOCAL_SERVERS
from paicli.config.settings import local_server_ports
from paicli.config.validate import validate_knobs
from paicli.llm.probe import discover_local, list_models, one_token, probe_local
from paicli.testing.openai_server import FakeOpenAIServer

pytestmark = pytest.mark.timeout(60)


def _fake_on_a_usual_port() -> tuple[FakeOpenAIServer, str, int]:
    for name, port in LOCAL_SERVERS:
        server = FakeOpenAIServer(models=("llama3.1:8b", "qwen2.5-coder:7b"), port=port)
        try:
            server.start()
        except OSError:
            continue  # taken (maybe by a real local server): never talk to it
        return server, name, port
    pytest.skip("every usual local-server port is taken on this machine")


def test_discovery_finds_a_server_on_its_usual_port_and_lists_its_models() -> None:
    server, name, port = _fake_on_a_usual_port()
    try:
        found = discover_local([(name, port)], timeout=30)  # only the port this test owns is probed
    finally:
        server.stop()
    assert [(s.name, s.port, s.base_url, s.models) for s in found] == [
        (name, port, f"http://127.0.0.1:{port}/v1", ("llama3.1:8b", "qwen2.5-coder:7b"))
    ]
    assert server.gets == ["/v1/models"]


def test_discovery_only_ever_probes_loopback_addresses() -> None:
    for host in ("192.168.1.10", "example.com", "0.0.0.0"):
        with pytest.raises(ValueError, match="loopback"):
            discover_local([("Ollama", 11434)], hosts=(host,))
        with pytest.raises(ValueError, match="loopback"):
            probe_local("Ollama", 11434, host=host)


@pytest.fixture
def not_openai() -> Iterator[int]:
    class Html(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<html>some other web app</html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Html)
    thread = threading.Thread(target=httpd.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield int(httpd.server_address[1])
    httpd.shutdown()
    httpd.server_close()


def test_closed_silent_and_foreign_ports_are_not_offered(not_openai: int) -> None:
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    closed_port = closed.getsockname()[1]
    closed.close()
    silent = socket.socket()  # accepts connections (backlog) but never answers: the short timeout ends it
    silent.bind(("127.0.0.1", 0))
    silent.listen(4)
    try:
        found = discover_local(
            [("a", closed_port), ("b", silent.getsockname()[1]), ("c", not_openai)], timeout=0.3
        )
    finally:
        silent.close()
    assert found == []


def test_local_ports_setting() -> None:
    def ports(raw: str | None) -> tuple[tuple[str, int], ...]:
        return local_server_ports(EnvLookup(environ={} if raw is None else {"PAICLI_LOCAL_PORTS": raw}))

    assert (
        ports(None)
        == LOCAL_SERVERS
        == (("Ollama", 11434), ("LM Studio", 1234), ("llama.cpp server", 8080), ("vLLM", 8000))
    )
    assert ports("off") == () and ports("none") == ()
    assert ports("11434, 9999") == (("Ollama", 11434), ("OpenAI 兼容服务 :9999", 9999))
    for bad in ("abc", "70000", "11434,x"):
        with pytest.raises(ConfigError, match="PAICLI_LOCAL_PORTS"):
            ports(bad)
        with pytest.raises(
            ConfigError, match="PAICLI_LOCAL_PORTS"
        ):  # checked at start-up with the other knobs
            validate_knobs(EnvLookup(environ={"PAICLI_LOCAL_PORTS": bad}))


def test_list_models_and_one_token_classify_answers() -> None:
    with FakeOpenAIServer(api_key="sk-good", models=("m1",), default_reply="pong") as server:
        assert list_models(server.base_url, "sk-good").models == ("m1",)
        refused = list_models(server.base_url, "sk-bad")
        assert (refused.kind, refused.status) == ("auth", 401) and "Incorrect API key" in refused.detail
        assert one_token(server.base_url, "sk-good", "m1").ok
        assert one_token(server.base_url, "sk-bad", "m1").kind == "auth"
        url = server.base_url
    with FakeOpenAIServer(models_route=False) as unlisted:
        assert list_models(unlisted.base_url, None).kind == "not_found"
    assert list_models(url, "sk-good", timeout=2).kind == "unreachable"
