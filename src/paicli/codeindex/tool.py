"""`search_code(query, top_k=5)`: the chunks of this project's index that best match the query, with path, line
range and symbol. Read-only; the runner frames the result as untrusted repository data like every tool result.
Before answering, the files the session wrote are read again (and, now and then, the whole project is checked
for changed files), so the agent's own edits are found."""

from __future__ import annotations

from dataclasses import dataclass

from paicli.codeindex.indexer import CodeIndex
from paicli.codeindex.store import Hit, IndexUnavailable
from paicli.deferred import Deferred
from paicli.tools.code_search_spec import SEARCH_CODE
from paicli.tools.context import ToolContext
from paicli.tools.registry import Tool
from paicli.tools.schema import Args, ToolOutput

NOT_INDEXED = "⚠️ 代码库尚未索引，请先使用 /index 命令"
MAX_TOP_K = 20
SNIPPET_LINES = 30
SNIPPET_CHARS = 2_000

DEFAULT_TOP_K = 5


def snippet(text: str) -> str:
    lines = text.splitlines()
    shown = "\n".join(lines[:SNIPPET_LINES])
    if len(shown) > SNIPPET_CHARS:
        shown = shown[:SNIPPET_CHARS] + "…"
    if len(lines) > SNIPPET_LINES:
        shown += f"\n…（共 {len(lines)} 行，用 read_file 读全）"
    return shown


def heading(rank: int, hit: Hit) -> str:
    symbol = f" · {hit.symbol}（{hit.kind}）" if hit.symbol else ""
    return f"{rank}. {hit.path}:{hit.start}-{hit.end}{symbol}"


def render_hits(query: str, hits: list[Hit], note: str = "") -> str:
    if not hits:
        return f"没有找到与「{query}」相关的代码。{note}".strip()
    parts = [f"「{query}」的前 {len(hits)} 个结果：{note}".strip()]
    for rank, hit in enumerate(hits, 1):
        parts.append(f"{heading(rank, hit)}\n{snippet(hit.text)}")
    return "\n\n".join(parts)


def progress_note(index: CodeIndex) -> str:
    if not index.running:
        return ""
    done, total = index.progress
    return f"（索引仍在建立：{done}/{total} 个文件，结果可能不全）"


@dataclass
class SearchCodeTool:
    index: CodeIndex

    def __call__(self, args: Args, ctx: ToolContext) -> ToolOutput:
        query = str(args["query"]).strip()
        if not query:
            return ToolOutput("❌ query 不能为空", success=False, outside_content=False)
        if not self.index.ready:
            return ToolOutput(NOT_INDEXED + "（也可改用 grep_code）", success=False, outside_content=False)
        top_k = max(1, min(int(args.get("top_k") or DEFAULT_TOP_K), MAX_TOP_K))
        try:
            self.index.fresh()  # the agent's own edits since the last search
            hits = self.index.search(query, top_k)
        except IndexUnavailable as error:
            return ToolOutput(f"❌ {error}", success=False, outside_content=False)
        return ToolOutput(render_hits(query, hits, progress_note(self.index)))

    @classmethod
    def tool(cls, index: CodeIndex) -> Tool:
        return Tool(SEARCH_CODE, cls(index))


def search_handler(index: Deferred[CodeIndex]) -> SearchCodeTool:
    """search_code's handler as the composition root loads it at the first search (the index with it)."""
    return SearchCodeTool(index.get())
