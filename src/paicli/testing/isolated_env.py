"""The environment variables a test must not inherit from the developer's shell: paicli's own settings, every
provider's keys and the web-search keys. conftest drops them for in-process tests, `paicli_env` for subprocesses."""

from __future__ import annotations

ISOLATED_PREFIXES = (
    "PAICLI_",
    "OPENAI_",
    "DEEPSEEK_",
    "GLM_",
    "KIMI_",
    "MOONSHOT_",
    "STEP_",
    "HUNYUAN_",
    "AGNES_",
    "FREELLMAPI_",
    "XFYUN_",
    "TOKENHUB_",
    "TENCENTMAAS_",
    "SEARCH_",
    "SERPAPI_",
)
