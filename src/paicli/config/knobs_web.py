"""The settings of `web_search` (tools/web_search.py). They keep the reference's names, without the `PAICLI_`
prefix; the search providers' keys that are also model keys (`GLM_API_KEY`, `DEEPSEEK_API_KEY`) are data of the
provider table instead."""

from __future__ import annotations

from paicli.config.knob_types import Knob, text

WEB = "web"

SEARCH_PROVIDER = text(
    "SEARCH_PROVIDER",
    WEB,
    "web_search provider: zhipu, serpapi, searxng or deepseek (default: first configured)",
)
SEARXNG_URL = text("SEARXNG_URL", WEB, "address of a SearXNG instance for web_search")
SERPAPI_KEY = text("SERPAPI_KEY", WEB, "SerpApi key for web_search")
SERPAPI_BASE_URL = text("SERPAPI_BASE_URL", WEB, "SerpApi host (default https://serpapi.com)")
ZHIPU_SEARCH_BASE_URL = text(
    "ZHIPU_SEARCH_BASE_URL", WEB, "Zhipu web search endpoint (default https://open.bigmodel.cn/api/paas/v4)"
)
ZHIPU_SEARCH_ENGINE = text("ZHIPU_SEARCH_ENGINE", WEB, "Zhipu search engine (default search_std)")
DEEPSEEK_SEARCH_BASE_URL = text(
    "DEEPSEEK_SEARCH_BASE_URL",
    WEB,
    "DeepSeek Anthropic-compatible endpoint for web search (default https://api.deepseek.com/anthropic/v1)",
)
DEEPSEEK_SEARCH_MODEL = text(
    "DEEPSEEK_SEARCH_MODEL", WEB, "model of DeepSeek web search (default deepseek-v4-flash)"
)

WEB_KNOBS: tuple[Knob[str | None], ...] = (
    SEARCH_PROVIDER,
    SEARXNG_URL,
    SERPAPI_KEY,
    SERPAPI_BASE_URL,
    ZHIPU_SEARCH_BASE_URL,
    ZHIPU_SEARCH_ENGINE,
    DEEPSEEK_SEARCH_BASE_URL,
    DEEPSEEK_SEARCH_MODEL,
)
