"""Model-facing names of MCP tools: `mcp__<server>__<tool>`, sanitised to the function-name alphabet, <= 64 chars."""

from __future__ import annotations

import hashlib
import re

PREFIX = "mcp__"
MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def safe_part(text: str) -> str:
    return _UNSAFE.sub("_", text.strip()) or "_"


def tool_name(server: str, tool: str) -> str:
    """Deterministic: the same server and tool always give the same name, and two long names that share their
    first 55 characters still differ (a hash of the full name replaces the cut tail)."""
    name = f"{PREFIX}{safe_part(server)}__{safe_part(tool)}"
    if len(name) <= MAX_NAME:
        return name
    digest = hashlib.sha256(f"{server}\0{tool}".encode()).hexdigest()[:8]
    return f"{name[: MAX_NAME - 9]}_{digest}"
