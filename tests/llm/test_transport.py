"""The SDK client's transport (llm/transport.py): an http endpoint never loads the CA bundle, an https one gets
the HTTP library's own verifying default, and requests still reach the server through it."""

from __future__ import annotations

import ssl
from typing import Any

from paicli.llm.client import OpenAIChatClient
from paicli.llm.connection import ClientOptions, Connection
from paicli.llm.messages import Message
from paicli.llm.transport import TlsWhenNeeded
from paicli.llm.wire import open_stream
from paicli.testing.openai_server import FakeOpenAIServer


class _Url:
    def __init__(self, scheme: str) -> None:
        self.scheme = scheme


class _Request:
    def __init__(self, scheme: str) -> None:
        self.url = _Url(scheme)


class _Built:
    """What the library's HTTPTransport was built with, and what it was asked."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.handled: list[_Request] = []
        self.closed = False

    def handle_request(self, request: _Request) -> str:
        self.handled.append(request)
        return f"response over {request.url.scheme}"

    def close(self) -> None:
        self.closed = True


def _recording() -> tuple[TlsWhenNeeded, list[_Built]]:
    built: list[_Built] = []

    def build(**options: Any) -> _Built:
        built.append(_Built(**options))
        return built[-1]

    return TlsWhenNeeded(build, limits="the SDK's limits"), built


def test_nothing_is_built_before_the_first_request() -> None:
    _, built = _recording()
    assert built == []


def test_an_http_request_gets_an_empty_but_verifying_tls_context() -> None:
    transport, built = _recording()
    assert transport.handle_request(_Request("http")) == "response over http"
    assert transport.handle_request(_Request("http")) == "response over http"
    assert len(built) == 1  # one transport (one connection pool) for every http request
    context = built[0].options["verify"]
    assert isinstance(context, ssl.SSLContext)
    assert context.cert_store_stats()["x509_ca"] == 0  # no CA bundle was read
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname  # fails closed if ever used
    assert built[0].options["limits"] == "the SDK's limits"


def test_an_https_request_gets_the_librarys_own_default() -> None:
    transport, built = _recording()
    transport.handle_request(_Request("http"))
    assert transport.handle_request(_Request("https")) == "response over https"
    assert len(built) == 2
    assert "verify" not in built[1].options  # the library's default: its TLS context and trust store
    assert built[1].options["limits"] == "the SDK's limits"
    assert [len(b.handled) for b in built] == [1, 1]


def test_the_endpoints_scheme_can_be_prepared_ahead_of_the_first_request() -> None:
    transport, built = _recording()
    transport.prepare("http")
    assert len(built) == 1 and built[0].handled == []
    transport.handle_request(_Request("http"))
    assert len(built) == 1 and len(built[0].handled) == 1  # the prepared one serves the request


def test_close_closes_every_transport_built() -> None:
    transport, built = _recording()
    with transport:
        transport.handle_request(_Request("http"))
        transport.handle_request(_Request("https"))
    assert [b.closed for b in built] == [True, True]


def test_the_connection_streams_through_it_from_an_http_endpoint() -> None:
    with FakeOpenAIServer(default_reply="你好") as server:
        options = ClientOptions(server.base_url, "sk-test")
        connection = Connection(options)
        sdk = connection.sdk()
        transport = sdk._client._transport
        assert isinstance(transport, TlsWhenNeeded)
        assert set(transport._by_scheme) == {"http"}  # prepared with the client, no TLS transport built
        request = OpenAIChatClient.from_options(options, "fake-model").request([Message.user("嗨")])
        chunks = list(open_stream(sdk, request))
    text = "".join(
        str(choice["delta"].get("content") or "")
        for chunk in chunks
        if isinstance(chunk, dict)
        for choice in chunk.get("choices", [])
    )
    assert text == "你好"
    assert server.requests[0]["messages"] == [{"role": "user", "content": "嗨"}]
