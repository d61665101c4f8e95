"""`search_code` as the model sees it, and where a project's code index lives: the tool table and its turn hook
need no more, so a run that never searches or indexes imports nothing of the code index package."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

from paicli.tools.registry import Handler, Tool
from paicli.tools.schema import Param, ToolSpec

# Terse on purpose (every token is in each request): the default and range of top_k are the handler's.
SEARCH_CODE = ToolSpec(
    "search_code",
    "检索代码索引（中英文）",
    (Param("query", "string", "", required=True), Param("top_k", "integer", "")),
    read_only=True,
    reads_project=True,
    content_kind="代码检索结果",
)


def project_key(root: Path) -> str:
    real = str(root.resolve())
    return f"{Path(real).name or 'root'}-{hashlib.sha256(real.encode()).hexdigest()[:12]}"


def index_path(home: Path, root: Path) -> Path:
    return home / "codeindex" / project_key(root) / "index.sqlite"


def offer_search_code(
    indexed: Callable[[], bool], handler: Handler, register: Callable[[Tool], None]
) -> Callable[[], None]:
    """A turn hook: search_code joins the tools at the first turn boundary where the project has an index (a
    request never carries a tool that could only answer "run /index first"; the list changes once)."""
    tool = Tool(SEARCH_CODE, handler)
    offered = False

    def offer() -> None:
        nonlocal offered
        if not offered and indexed():
            register(tool)
            offered = True

    offer()
    return offer
