"""Model-facing names of MCP tools: `mcp__<server>__<tool>`, sanitised to the function-name alphabet, <= 64 chars.

Sanitising must not make two tools one: `my.srv` and `my_srv`, or `get.item` and `get_item`, would both become
`…my_srv…get_item`, and one would silently replace the other. So a part that had to be changed (or that could
blur the `__` between server and tool) carries a short digest of what it really was; a part that needed no
change keeps its plain name.
"""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp__"
MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def safe_part(text: str) -> str:
    return _UNSAFE.sub("_", text.strip()) or "_"


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:6]


def distinct_part(text: str, *, server: bool = False) -> str:
    """`safe_part`, plus `_<digest>` when sanitising changed the text; for a server also when the name holds
    `__` or ends in `_` (either would blur where the server part ends)."""
    cleaned = safe_part(text)
    blurred = server and ("__" in cleaned or cleaned.endswith("_"))
    return cleaned if cleaned == text and not blurred else f"{cleaned}_{_digest(text)}"


def server_file_name(server: str) -> str:
    """The server's name in its log and cache file names (two servers never share a file)."""
    return distinct_part(server, server=True)


def tool_name(server: str, tool: str) -> str:
    """Deterministic: the same server and tool always give the same name; two different (server, tool) pairs
    give different names, also when they share their first 55 characters (a hash of the full name replaces
    the cut tail)."""
    name = f"{PREFIX}{distinct_part(server, server=True)}__{distinct_part(tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"
