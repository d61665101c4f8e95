"""web_search providers (spec 9.1): plain HTTP APIs, picked by `SEARCH_PROVIDER` or, without it, by the first
configured one in the reference's order: zhipu (GLM key) -> serpapi -> searxng -> deepseek.

* zhipu: `POST <ZHIPU_SEARCH_BASE_URL>/web_search` (default https://open.bigmodel.cn/api/paas/v4) with the GLM key,
  engine `ZHIPU_SEARCH_ENGINE` (default search_std).
* serpapi: `GET https://serpapi.com/search.json` with `SERPAPI_KEY` (`SERPAPI_BASE_URL` overrides the host).
* searxng: `GET <SEARXNG_URL>/search?format=json`.
* deepseek: DeepSeek's Anthropic-compatible messages endpoint with the server-side web_search tool
  (`DEEPSEEK_SEARCH_BASE_URL`, default https://api.deepseek.com/anthropic/v1; model `DEEPSEEK_SEARCH_MODEL`, default
  deepseek-v4-flash). Only the structured result blocks count; the model's own prose is never a result.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from paicli.cancel import CancelToken
from paicli.config import knobs_web as web
from paicli.config.tool_values import WebSearchValues

ORDER = ("zhipu", "serpapi", "searxng", "deepseek")
ZHIPU_BASE = "https://open.bigmodel.cn/api/paas/v4"
SERPAPI_BASE = "https://serpapi.com"
DEEPSEEK_SEARCH_BASE = "https://api.deepseek.com/anthropic/v1"
DEEPSEEK_SEARCH_MODEL = "deepseek-v4-flash"
ANTHROPIC_VERSION = "2023-06-01"


@dataclass(frozen=True)
class SearchHit:
    title: str
    url: str
    snippet: str


class SearchConfigError(Exception):
    """No usable provider; the message tells the model and the user what to configure."""


class Http(Protocol):
    def get_json(self, url: str, cancel: CancelToken) -> Any: ...

    def post_json(
        self, url: str, payload: dict[str, Any], headers: dict[str, str], cancel: CancelToken
    ) -> Any: ...


Search = Callable[[Http, str, int, CancelToken], list[SearchHit]]


def _configured(values: WebSearchValues, name: str) -> bool:
    keys = {
        "zhipu": values.zhipu_key,
        "serpapi": values.serpapi_key,
        "searxng": values.searxng_url,
        "deepseek": values.deepseek_key,
    }
    return bool(keys.get(name))


_NEEDS = {
    "zhipu": "GLM_API_KEY（或 ZHIPU_API_KEY）",
    "serpapi": web.SERPAPI_KEY.key,
    "searxng": web.SEARXNG_URL.key,
    "deepseek": "DEEPSEEK_API_KEY",
}


def choose_provider(values: WebSearchValues) -> str:
    explicit = values.provider
    if explicit:
        if explicit not in ORDER:
            raise SearchConfigError(f"SEARCH_PROVIDER={explicit} 不受支持（可选 {'、'.join(ORDER)}）")
        if not _configured(values, explicit):
            raise SearchConfigError(f"SEARCH_PROVIDER={explicit} 缺少配置：请设置 {_NEEDS[explicit]}")
        return explicit
    for name in ORDER:
        if _configured(values, name):
            return name
    raise SearchConfigError(
        "设置 SEARXNG_URL（SearXNG 实例地址）、SERPAPI_KEY、GLM_API_KEY（智谱搜索）或 DEEPSEEK_API_KEY 后即可使用 "
        "web_search（SEARCH_PROVIDER 可指定其中一个）；在此之前请不要假设能联网搜索"
    )


def provider_search(values: WebSearchValues, name: str) -> Search:
    if name == "zhipu":
        return lambda http, q, k, cancel: zhipu(http, values, q, k, cancel)
    if name == "serpapi":
        return lambda http, q, k, cancel: serpapi(http, values, q, k, cancel)
    if name == "searxng":
        return lambda http, q, k, cancel: searxng(http, values, q, k, cancel)
    return lambda http, q, k, cancel: deepseek(http, values, q, k, cancel)


def _text(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def searxng(
    http: Http, values: WebSearchValues, query: str, top_k: int, cancel: CancelToken
) -> list[SearchHit]:
    base = (values.searxng_url or "").rstrip("/")
    data = http.get_json(base + "/search?" + urllib.parse.urlencode({"q": query, "format": "json"}), cancel)
    items = data.get("results") if isinstance(data, dict) else None
    return [
        SearchHit(_text(i.get("title")), _text(i.get("url")), _text(i.get("content")))
        for i in (items or [])
        if isinstance(i, dict)
    ][:top_k]


def serpapi(
    http: Http, values: WebSearchValues, query: str, top_k: int, cancel: CancelToken
) -> list[SearchHit]:
    base = (values.serpapi_base or SERPAPI_BASE).rstrip("/")
    params = {"q": query, "api_key": values.serpapi_key or "", "num": top_k}
    data = http.get_json(f"{base}/search.json?" + urllib.parse.urlencode(params), cancel)
    items = data.get("organic_results") if isinstance(data, dict) else None
    return [
        SearchHit(_text(i.get("title")), _text(i.get("link")), _text(i.get("snippet")))
        for i in (items or [])
        if isinstance(i, dict)
    ][:top_k]


def zhipu(
    http: Http, values: WebSearchValues, query: str, top_k: int, cancel: CancelToken
) -> list[SearchHit]:
    base = (values.zhipu_base or ZHIPU_BASE).rstrip("/")
    payload = {
        "search_query": query,
        "search_engine": values.zhipu_engine or "search_std",
        "count": top_k,
    }
    headers = {"Authorization": f"Bearer {values.zhipu_key or ''}"}
    data = http.post_json(f"{base}/web_search", payload, headers, cancel)
    items = data.get("search_result") if isinstance(data, dict) else None
    return [
        SearchHit(_text(i.get("title")), _text(i.get("link")), _text(i.get("content")))
        for i in (items or [])
        if isinstance(i, dict)
    ][:top_k]


def deepseek(
    http: Http, values: WebSearchValues, query: str, top_k: int, cancel: CancelToken
) -> list[SearchHit]:
    base = (values.deepseek_base or DEEPSEEK_SEARCH_BASE).rstrip("/")
    payload = {
        "model": values.deepseek_model or DEEPSEEK_SEARCH_MODEL,
        "max_tokens": 1024,
        "messages": [{"role": "user", "content": query}],
        "tools": [{"type": "web_search_20250305", "name": "web_search", "max_uses": 1}],
    }
    headers = {"x-api-key": values.deepseek_key or "", "anthropic-version": ANTHROPIC_VERSION}
    data = http.post_json(f"{base}/messages", payload, headers, cancel)
    return anthropic_search_hits(data)[:top_k]


def anthropic_search_hits(data: object) -> list[SearchHit]:
    """Results from `web_search_tool_result` blocks, de-duplicated by URL; snippets from citations' cited_text."""
    blocks = data.get("content") if isinstance(data, dict) else None
    if not isinstance(blocks, list):
        return []
    cited: dict[str, list[str]] = {}
    for block in blocks:
        for citation in (block.get("citations") or []) if isinstance(block, dict) else []:
            if isinstance(citation, dict) and _text(citation.get("url")):
                cited.setdefault(_text(citation.get("url")), []).append(_text(citation.get("cited_text")))
    hits: list[SearchHit] = []
    seen: set[str] = set()
    for block in blocks:
        if not isinstance(block, dict) or block.get("type") != "web_search_tool_result":
            continue
        results = block.get("content")
        if isinstance(
            results, dict
        ):  # a tool error: {"type": "web_search_tool_result_error", "error_code": …}
            raise ValueError(f"DeepSeek 搜索出错: {_text(results.get('error_code')) or '未知错误'}")
        for item in results if isinstance(results, list) else []:
            url = _text(item.get("url")) if isinstance(item, dict) else ""
            if not url or url in seen:
                continue
            seen.add(url)
            snippet = " ".join(t for t in cited.get(url, []) if t) or _text(item.get("page_age"))
            hits.append(SearchHit(_text(item.get("title")), url, snippet))
    return hits


def decode_json(body: bytes) -> Any:
    return json.loads(body.decode("utf-8", errors="replace"))
