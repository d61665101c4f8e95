"""web_fetch / web_search against a loopback HTTP server (the address gate is relaxed only where stated)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.config.tool_values import WebSearchValues
from paicli.tools.html_text import html_to_text
from paicli.tools.web import FETCHES_PER_MINUTE, UrlGate, WebDenied, WebTools, is_public_address

from .helpers import env, make_runner, run, unwrap

PAGE = (
    "<html><head><title>Demo  Page</title><style>.x{color:red}</style><script>alert('x')</script></head>"
    "<body><nav>menu</nav><h1>Heading</h1><p>First &amp; second.</p><ul><li>one</li><li>two</li></ul>"
    "<pre>code  keeps   spaces</pre></body></html>"
)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return None

    def do_GET(self) -> None:
        routes = {
            "/page": (200, "text/html; charset=utf-8", PAGE.encode()),
            "/plain": (200, "text/plain", ("word " * 5000).encode()),
            "/big": (200, "text/plain", b"y" * (6 * 1024 * 1024)),
        }
        if self.path.startswith("/search"):
            body = json.dumps(
                {
                    "results": [
                        {"title": "Result A", "url": "https://a.example/doc", "content": "about a"},
                        {"title": "Result B", "url": "https://b.example/doc", "content": "about b"},
                    ]
                }
            ).encode()
            routes[self.path] = (200, "application/json", body)
        if self.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", "http://10.1.2.3/internal")
            self.end_headers()
            return
        status, kind, body = routes.get(self.path, (404, "text/plain", b"missing"))
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        return None  # a client that stops reading a big body (size or time limit) is expected here


@pytest.fixture
def server() -> Iterator[str]:
    httpd = QuietServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def loopback_only(address: str) -> bool:
    return address == "127.0.0.1"


def fetch(project: Path, url: str, gate: UrlGate | None = None, **extra: object) -> tuple[bool, bool, str]:
    web = WebTools(gate=gate or UrlGate(address_ok=loopback_only))
    runner = make_runner(project, web=web)
    [result] = run(runner, ("web_fetch", json.dumps({"url": url, **extra})), text=f"抓取 {url}")
    return result.success, result.blocked, unwrap(result)


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.com/x",
        "http://127.0.0.1/",
        "http://localhost:8080/",
        "http://10.0.0.5/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/",
        "http://0.0.0.0/",
        "http:///nohost",
    ],
)
def test_default_gate_refuses_non_public_targets(url: str) -> None:
    with pytest.raises(WebDenied) as denied:
        UrlGate().check(url)
    assert str(denied.value).startswith("🛡️ 策略拒绝")


def test_names_resolving_to_private_addresses_are_refused() -> None:
    gate = UrlGate(resolver=lambda host: ["93.184.216.34", "10.0.0.8"])
    with pytest.raises(WebDenied, match=r"10\.0\.0\.8"):
        gate.check("https://sneaky.example/")
    UrlGate(resolver=lambda host: ["93.184.216.34"]).check("https://public.example/")


def test_address_classification() -> None:
    assert is_public_address("93.184.216.34")
    assert is_public_address("2606:2800:220:1:248:1893:25c8:1946")
    for address in (
        "127.0.0.1",
        "10.1.1.1",
        "172.16.0.1",
        "192.168.0.1",
        "169.254.1.1",
        "::1",
        "fe80::1",
        "::ffff:127.0.0.1",
        "100.64.0.1",
        "224.0.0.1",
        "0.0.0.0",
    ):
        assert not is_public_address(address), address


def test_fetch_turns_html_into_readable_text(project: Path, server: str) -> None:
    ok, _, text = fetch(project, f"{server}/page")
    assert ok
    assert text.startswith(f"URL: {server}/page\n标题: Demo Page\n\n")
    assert "# Heading" in text and "First & second." in text and "- one" in text
    assert "code  keeps   spaces" in text
    assert "alert" not in text and "color:red" not in text and "menu" not in text


def test_fetch_respects_max_chars_and_the_size_cap(project: Path, server: str) -> None:
    ok, _, text = fetch(project, f"{server}/plain", max_chars=500)
    assert ok and "内容已截断" in text and len(text) < 700
    ok, _, text = fetch(project, f"{server}/big", max_chars=10_000_000)
    assert ok and "超过 5MB" in text


def test_a_page_that_takes_longer_than_the_time_limit_is_abandoned(project: Path, server: str) -> None:
    now = [0.0]

    def clock() -> float:
        now[0] += 20.0  # every look at the clock is 20 s later: the 30 s limit passes during the body
        return now[0]

    web = WebTools(gate=UrlGate(address_ok=loopback_only), clock=clock, timeout=30.0)
    runner = make_runner(project, web=web)
    [result] = run(runner, ("web_fetch", json.dumps({"url": f"{server}/big"})), text=f"抓取 {server}/big")
    assert not result.success and not result.blocked
    assert unwrap(result).startswith("❌ 抓取失败") and "限定时间" in unwrap(result)


def test_redirects_are_checked_again(project: Path, server: str) -> None:
    ok, blocked, text = fetch(project, f"{server}/redirect")
    assert not ok and blocked and "10.1.2.3" in text


def test_http_errors_are_results(project: Path, server: str) -> None:
    ok, blocked, text = fetch(project, f"{server}/nothing")
    assert not ok and not blocked and "HTTP 404" in text


def test_default_gate_blocks_the_loopback_server(project: Path, server: str) -> None:
    ok, blocked, text = fetch(project, f"{server}/page", gate=UrlGate())
    assert not ok and blocked and "127.0.0.1" in text


def test_rate_limit() -> None:
    now = [0.0]
    web = WebTools(clock=lambda: now[0])
    assert all(web._take_slot() for _ in range(FETCHES_PER_MINUTE))
    assert not web._take_slot()
    now[0] = 61.0
    assert web._take_slot()


def test_search_without_provider_says_not_configured(project: Path) -> None:
    [result] = run(make_runner(project), ("web_search", '{"query":"python"}'), text="搜索 python")
    assert not result.success and "未配置搜索服务" in unwrap(result)


def test_searxng_results_allow_fetching_discovered_urls_in_the_same_turn(project: Path, server: str) -> None:
    values = {"SEARXNG_URL": server}
    web = WebTools(WebSearchValues.parse(env(values)), gate=UrlGate(resolver=lambda host: ["10.9.9.9"]))
    runner = make_runner(project, values=values, web=web)
    turn = runner.for_turn("搜索一下 a 的文档")
    from paicli.llm.messages import ToolCall

    search, fetched, other = turn.execute(
        [
            ToolCall("1", "web_search", '{"query":"a","top_k":1}'),
            ToolCall("2", "web_fetch", '{"url":"https://a.example/doc"}'),
            ToolCall("3", "web_fetch", '{"url":"https://b.example/doc"}'),
        ],
        CancelToken(),
        lambda _e: None,
    )
    assert search.success and "Result A" in unwrap(search) and "Result B" not in unwrap(search)
    assert search.metadata["discovered_urls"] == ["https://a.example/doc"]
    # web_search and web_fetch of one response run together, so the fetch is judged before the search returns
    assert "WEB_FETCH_URL_NOT_ALLOWED" in unwrap(fetched) or "10.9.9.9" in unwrap(fetched)
    [again] = turn.execute(
        [ToolCall("4", "web_fetch", '{"url":"https://a.example/doc"}')], CancelToken(), lambda _e: None
    )
    assert "WEB_FETCH_URL_NOT_ALLOWED" not in unwrap(again) and "10.9.9.9" in unwrap(again)
    assert "WEB_FETCH_URL_NOT_ALLOWED" in unwrap(other)
    assert runner.for_turn("下一轮").policy.allowed_urls() == set()


def test_html_to_text_handles_broken_markup() -> None:
    title, text = html_to_text("<title>T</title><p>unclosed <b>bold<div>next")
    assert title == "T" and "unclosed bold" in text and "next" in text


def test_inherited_urls_from_a_dependency_may_be_fetched(project: Path) -> None:
    web = WebTools(gate=UrlGate(resolver=lambda host: ["10.9.9.9"]))
    runner = make_runner(project, web=web)
    turn = runner.for_turn("执行任务 2", inherited_urls=["https://a.example/doc"])
    from paicli.llm.messages import ToolCall

    [fetched] = turn.execute(
        [ToolCall("1", "web_fetch", '{"url":"https://a.example/doc"}')], CancelToken(), lambda _e: None
    )
    assert "WEB_FETCH_URL_NOT_ALLOWED" not in unwrap(fetched)
