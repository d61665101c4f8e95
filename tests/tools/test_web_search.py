"""web_search providers against a loopback fake of each search API (no network)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest

from paicli.config.tool_values import WebSearchValues
from paicli.tools.web import WebTools
from tests.tools.helpers import env, make_runner, run, unwrap

ZHIPU_REPLY = {
    "search_result": [
        {"title": "智谱结果一", "link": "https://z.example/1", "content": "第一条摘要", "media": "z"},
        {"title": "智谱结果二", "link": "https://z.example/2", "content": "第二条摘要"},
    ]
}
DEEPSEEK_REPLY = {
    "content": [
        {"type": "server_tool_use", "id": "srv_1", "name": "web_search", "input": {"query": "python"}},
        {
            "type": "web_search_tool_result",
            "tool_use_id": "srv_1",
            "content": [
                {
                    "type": "web_search_result",
                    "url": "https://d.example/a",
                    "title": "DeepSeek A",
                    "page_age": "2026-01-02",
                    "encrypted_content": "xx",
                },
                {
                    "type": "web_search_result",
                    "url": "https://d.example/b",
                    "title": "DeepSeek B",
                    "encrypted_content": "yy",
                },
                {
                    "type": "web_search_result",
                    "url": "https://d.example/a",
                    "title": "duplicate",
                    "encrypted_content": "zz",
                },
            ],
        },
        {
            "type": "text",
            "text": "Python 是一种语言，见 https://invented.example/",
            "citations": [
                {
                    "type": "web_search_result_location",
                    "url": "https://d.example/b",
                    "title": "DeepSeek B",
                    "cited_text": "B 的引用原文",
                }
            ],
        },
    ]
}
SERP_REPLY = {
    "organic_results": [{"title": "Serp One", "link": "https://s.example/1", "snippet": "serp snippet"}]
}
SEARX_REPLY = {"results": [{"title": "Searx One", "url": "https://x.example/1", "content": "searx snippet"}]}


class SearchApis(BaseHTTPRequestHandler):
    seen: ClassVar[list[dict[str, Any]]] = []

    def log_message(self, format: str, *args: object) -> None:
        return None

    def _reply(self, status: int, payload: object) -> None:
        body = json.dumps(payload, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _record(self, body: Any = None) -> None:
        self.seen.append(
            {
                "method": self.command,
                "path": self.path,
                "headers": {k.lower(): v for k, v in self.headers.items()},
                "body": body,
            }
        )

    def do_GET(self) -> None:
        self._record()
        if self.path.startswith("/search.json"):
            self._reply(200, SERP_REPLY)
        elif self.path.startswith("/search?"):
            self._reply(200, SEARX_REPLY)
        else:
            self._reply(404, {"error": "missing"})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        self._record(body)
        if self.path == "/zhipu/web_search":
            self._reply(200, ZHIPU_REPLY)
        elif self.path == "/anthropic/v1/messages":
            self._reply(200, DEEPSEEK_REPLY)
        elif self.path == "/broken/web_search":
            self._reply(503, {"error": "down"})
        else:
            self._reply(404, {"error": "missing"})


@pytest.fixture
def apis() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    seen: ClassVar[list[dict[str, Any]]] = []
    handler = type("Handler", (SearchApis,), {"seen": seen})
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", seen
    httpd.shutdown()
    httpd.server_close()


def search(
    project: Path, values: dict[str, str], query: str = "python", top_k: int = 5
) -> tuple[bool, str, Any]:
    runner = make_runner(project, values=values, web=WebTools(WebSearchValues.parse(env(values))))
    [result] = run(runner, ("web_search", json.dumps({"query": query, "top_k": top_k})), text=f"搜索 {query}")
    return result.success, unwrap(result), result.metadata.get("discovered_urls")


def test_zhipu_posts_the_query_with_the_glm_key(
    project: Path, apis: tuple[str, list[dict[str, Any]]]
) -> None:
    base, seen = apis
    values = {
        "GLM_API_KEY": "glm-key-123",
        "ZHIPU_SEARCH_BASE_URL": f"{base}/zhipu",
        "ZHIPU_SEARCH_ENGINE": "search_pro",
    }
    ok, text, urls = search(project, values, "杭州天气", top_k=2)
    assert ok and "智谱结果一" in text and "第二条摘要" in text
    assert urls == ["https://z.example/1", "https://z.example/2"]
    [request] = seen
    assert request["method"] == "POST" and request["headers"]["authorization"] == "Bearer glm-key-123"
    assert request["body"] == {"search_query": "杭州天气", "search_engine": "search_pro", "count": 2}


def test_deepseek_reads_only_structured_result_blocks(
    project: Path, apis: tuple[str, list[dict[str, Any]]]
) -> None:
    base, seen = apis
    values = {"DEEPSEEK_API_KEY": "ds-key", "DEEPSEEK_SEARCH_BASE_URL": f"{base}/anthropic/v1"}
    ok, text, urls = search(project, values)
    assert ok and urls == ["https://d.example/a", "https://d.example/b"]
    assert "B 的引用原文" in text and "2026-01-02" in text and "invented.example" not in text
    [request] = seen
    assert (
        request["headers"]["x-api-key"] == "ds-key"
        and request["headers"]["anthropic-version"] == "2023-06-01"
    )
    assert request["body"]["model"] == "deepseek-v4-flash"
    assert request["body"]["tools"][0]["name"] == "web_search"
    assert request["body"]["messages"] == [{"role": "user", "content": "python"}]


def test_serpapi_and_searxng_through_their_base_urls(
    project: Path, apis: tuple[str, list[dict[str, Any]]]
) -> None:
    base, seen = apis
    ok, text, urls = search(project, {"SERPAPI_KEY": "serp-key", "SERPAPI_BASE_URL": base})
    assert ok and urls == ["https://s.example/1"] and "serp snippet" in text
    assert "api_key=serp-key" in seen[-1]["path"]
    ok, text, urls = search(project, {"SEARXNG_URL": base})
    assert ok and urls == ["https://x.example/1"] and "format=json" in seen[-1]["path"]


def test_auto_order_prefers_zhipu_then_serpapi_then_searxng_then_deepseek(
    project: Path, apis: tuple[str, list[dict[str, Any]]]
) -> None:
    base, _ = apis
    everything = {
        "GLM_API_KEY": "g",
        "ZHIPU_SEARCH_BASE_URL": f"{base}/zhipu",
        "SERPAPI_KEY": "s",
        "SERPAPI_BASE_URL": base,
        "SEARXNG_URL": base,
        "DEEPSEEK_API_KEY": "d",
        "DEEPSEEK_SEARCH_BASE_URL": f"{base}/anthropic/v1",
    }
    assert "智谱结果一" in search(project, everything)[1]
    without_glm = {k: v for k, v in everything.items() if k != "GLM_API_KEY"}
    assert "Serp One" in search(project, without_glm)[1]
    only_last_two = {k: v for k, v in without_glm.items() if k != "SERPAPI_KEY"}
    assert "Searx One" in search(project, only_last_two)[1]
    only_deepseek = {k: v for k, v in only_last_two.items() if k != "SEARXNG_URL"}
    assert "DeepSeek A" in search(project, only_deepseek)[1]
    chosen = {**everything, "SEARCH_PROVIDER": "DeepSeek"}
    assert "DeepSeek A" in search(project, chosen)[1]


def test_provider_errors_are_clear_results(project: Path, apis: tuple[str, list[dict[str, Any]]]) -> None:
    base, _ = apis
    ok, text, _ = search(project, {"SEARCH_PROVIDER": "bing"})
    assert not ok and "SEARCH_PROVIDER=bing 不受支持" in text
    ok, text, _ = search(project, {"SEARCH_PROVIDER": "zhipu"})
    assert not ok and "GLM_API_KEY" in text
    ok, text, _ = search(project, {"GLM_API_KEY": "g", "ZHIPU_SEARCH_BASE_URL": f"{base}/broken"})
    assert not ok and "HTTP 503" in text and "zhipu" in text
