"""Port of AgentMemoryHintTest (spec 12, 5.7) and the input-side external-content marking (spec 5.5)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from paicli.agent.events import AgentEvent, Notice
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.memory.guard import NO_HOST_FACT, YUQUE_FACT, browser_login_fact
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from tests.cli.served_session import command, served_parts

pytestmark = pytest.mark.timeout(60)


@pytest.mark.parametrize(
    ("text", "recent", "fact"),
    [
        ("记住：访问语雀时直接用我已登录的 Chrome", [], YUQUE_FACT),
        (
            "以后记得复用 chrome 的登录态",
            ["看看 https://www.example.com/docs/1"],
            "访问 example.com 时优先复用用户已登录的 Chrome 登录态。",
        ),
        (
            "记一下，浏览器用已登录的那个",
            ["先看 https://a.io/x", "再看 https://docs.b.dev/y"],
            "访问 docs.b.dev 时优先复用用户已登录的 Chrome 登录态。",
        ),
        ("记住，需要登录的网站直接用我的 Chrome 登录态", [], NO_HOST_FACT),
        ("记住 https://yuque.com/team 要复用 Chrome 登录态", [], YUQUE_FACT),
    ],
)
def test_browser_login_fact(text: str, recent: list[str], fact: str) -> None:
    assert browser_login_fact(text, recent) == fact


@pytest.mark.parametrize(
    "text",
    [
        "访问语雀时直接用我已登录的 Chrome",
        "记住项目用 Java 17",
        "记住打开浏览器看看结果",
        "记住用 Chrome 浏览",
    ],
)
def test_no_fact_without_all_three_signals(text: str) -> None:
    assert browser_login_fact(text, ["https://yuque.com/x"]) is None


@pytest.fixture
def backend_factory(tmp_path: Path) -> Iterator[tuple[FakeOpenAIServer, AppBackend]]:
    with FakeOpenAIServer() as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            yield server, backend
        finally:
            backend.close(5)


def stored(backend: AppBackend) -> list[tuple[str, str]]:
    return [(e.content, e.metadata.get("scope", "")) for e in backend.parts.memory.list_all()]


def test_explicit_chrome_remember_request_stores_site_preference_globally(
    backend_factory: tuple[FakeOpenAIServer, AppBackend],
) -> None:
    server, backend = backend_factory
    server.push("好的")
    events: list[AgentEvent] = []
    backend.run("记住：以后访问语雀直接复用我已登录的 Chrome 登录态", "react", events.append, CancelToken())
    assert stored(backend) == [(YUQUE_FACT, "global")]
    assert any(isinstance(e, Notice) and YUQUE_FACT in e.text for e in events)
    assert len(server.requests) == 1  # no extra model call for the hint


def test_hint_is_not_saved_after_external_content_and_clear_resets_the_tracker(tmp_path: Path) -> None:
    results = [{"title": "语雀", "url": "https://www.yuque.com", "content": "语雀是文档平台"}]
    with FakeOpenAIServer(search_results=results) as server:
        searx = f"http://127.0.0.1:{server.port}"
        backend = AppBackend(served_parts(tmp_path, server.base_url, SEARXNG_URL=searx))
        try:
            server.push(Reply.tool_calls(("web_search", '{"query": "语雀"}')), "查过了", "好的", "好的")
            backend.run("搜一下语雀是什么", "react", lambda _e: None, CancelToken())
            assert backend.parts.tracker.blocks_automatic_memory()
            backend.run("记住：访问语雀直接复用已登录的 Chrome", "react", lambda _e: None, CancelToken())
            assert stored(backend) == []
            assert "已清空当前对话历史" in command(backend, "/clear")
            backend.run("记住：访问语雀直接复用已登录的 Chrome", "react", lambda _e: None, CancelToken())
            assert stored(backend) == [(YUQUE_FACT, "global")]
            assert server.violations == []
        finally:
            backend.close(5)


def test_a_search_that_could_not_run_marks_nothing(
    backend_factory: tuple[FakeOpenAIServer, AppBackend],
) -> None:
    """Issue 40 item 6: no search service, so nothing came back and the hint is still saved."""
    server, backend = backend_factory
    server.push(Reply.tool_calls(("web_search", '{"query": "语雀"}')), "没搜到", "好的")
    backend.run("搜一下语雀是什么", "react", lambda _e: None, CancelToken())
    assert not backend.parts.tracker.blocks_automatic_memory()
    backend.run("记住：访问语雀直接复用已登录的 Chrome", "react", lambda _e: None, CancelToken())
    assert stored(backend) == [(YUQUE_FACT, "global")]


def test_mcp_resource_in_expanded_input_marks_external_content(
    backend_factory: tuple[FakeOpenAIServer, AppBackend],
) -> None:
    server, backend = backend_factory
    server.push("看过了")
    backend.run(
        '请看 <resource server="docs" uri="x">内容</resource>', "react", lambda _e: None, CancelToken()
    )
    assert backend.parts.tracker.sources() == ["mcp_resource_mention"]
    last_user = json.dumps(server.requests[0]["messages"][-1], ensure_ascii=False)
    assert "resource server" in last_user
