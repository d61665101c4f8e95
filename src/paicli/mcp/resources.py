"""MCP resources in the conversation: the index for the Project Context section (windows >= 32,000 tokens)
and `@server:uri` mentions expanded into `<resource server="…" uri="…">…</resource>` blocks."""

from __future__ import annotations

import re
from collections.abc import Callable

from paicli.mcp.hub import McpCallError, McpHub

MAX_INDEX_ENTRIES = 50
MAX_RESOURCE_CHARS = 50_000
_MENTION = re.compile(r"(?<![\w@])@([A-Za-z0-9_.-]{1,40}):(\S+)")


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def resource_index(hub: McpHub) -> str:
    """One line per resource (uri, name, description, mimeType), sorted; empty when there are none."""
    lines: list[str] = []
    for server in sorted(hub.states):
        if hub.states[server].status == "disabled":
            continue
        listing = hub.listing(server)
        for item in sorted((listing.resources if listing else ()), key=lambda r: str(r.get("uri", ""))):
            description = str(item.get("description", "")).replace("\n", " ")[:160]
            mime = item.get("mimeType") or ""
            lines.append(
                f"- @{server}:{item.get('uri', '')} | {item.get('name', '')} | {description} | {mime}"
            )
    if not lines:
        return ""
    shown = lines[:MAX_INDEX_ENTRIES]
    more = (
        f"\n（另有 {len(lines) - len(shown)} 个资源未列出，/mcp resources 查看）"
        if len(lines) > len(shown)
        else ""
    )
    header = "MCP 资源索引（只列出地址；需要内容时请用户以 @服务器:URI 引用）：\n"
    return header + "\n".join(shown) + more


def expand_resource_mentions(text: str, hub: McpHub, note: Callable[[str, str], None] | None = None) -> str:
    """Append each mentioned resource of a known server as a `<resource>` block (the raw text is kept)."""
    blocks: list[str] = []
    for server, uri in dict.fromkeys(_MENTION.findall(text)):
        if server not in hub.states:
            continue
        try:
            contents = hub.read_resource(server, uri)
        except McpCallError as error:
            if note is not None:
                note("warn", f"⚠️ 无法读取 @{server}:{uri}: {error}")
            continue
        body = "\n".join(_content_text(item) for item in contents)
        if len(body) > MAX_RESOURCE_CHARS:
            body = body[:MAX_RESOURCE_CHARS] + "\n...(资源过长，已截断)"
        blocks.append(f'<resource server="{_attr(server)}" uri="{_attr(uri)}">\n{body}\n</resource>')
        if note is not None:
            note("info", f"📎 已附上 MCP 资源 @{server}:{uri}")
    if not blocks:
        return text
    return text + "\n\n用户通过 @ 引用的 MCP 资源：\n" + "\n\n".join(blocks)


def _content_text(item: dict[str, object]) -> str:
    if "text" in item:
        return str(item["text"])
    size = len(str(item.get("blob", ""))) * 3 // 4
    return f"[二进制内容: {item.get('mimeType') or '未知类型'}，约 {size} 字节，未展开]"
