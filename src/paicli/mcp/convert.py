"""MCP tool listings -> paicli ToolSpecs, and MCP call results -> the text the model gets.

Everything here is pure: the hub hands over plain dicts (as cached on disk), never SDK objects.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from paicli.llm.content_parts import MAX_IMAGE_BYTES, MEDIA_TYPES, ImagePart
from paicli.mcp.naming import tool_name
from paicli.tools.schema import McpHints, ToolSpec

MAX_DESCRIPTION = 1024
MAX_SCHEMA_CHARS = 16_000
_DROPPED_KEYS = ("$schema", "title")
_HINT_KEYS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")  # RemoteTool's order


@dataclass(frozen=True)
class RemoteTool:
    """One tool as a server lists it, reduced to what paicli keeps (and caches)."""

    server: str
    name: str
    description: str
    schema_json: str
    read_only_hint: bool | None = None
    destructive_hint: bool | None = None
    idempotent_hint: bool | None = None
    open_world_hint: bool | None = None

    @property
    def model_name(self) -> str:
        return tool_name(self.server, self.name)

    @property
    def hints(self) -> McpHints:
        return McpHints(
            self.read_only_hint, self.destructive_hint, self.idempotent_hint, self.open_world_hint
        )

    def spec(self) -> ToolSpec:
        """The server's hints are untrusted (any server may claim to be read-only): every MCP tool asks before
        it runs, runs alone, and counts as outside content. A hint only adds caution: a destructive tool is
        never granted "always", an open-world one is refused when the turn must stay offline."""
        text = self.description.strip() or f"MCP 服务器 {self.server} 的工具 {self.name}"
        return ToolSpec(
            self.model_name,
            f"[MCP {self.server}] {text}"[:MAX_DESCRIPTION],
            external=True,
            web=self.open_world_hint is True,
            origin="mcp",
            server=self.server,
            mcp_hints=self.hints,
            schema_json=self.schema_json,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "inputSchema": json.loads(self.schema_json),
            "readOnlyHint": self.read_only_hint,
            "destructiveHint": self.destructive_hint,
            "idempotentHint": self.idempotent_hint,
            "openWorldHint": self.open_world_hint,
        }


def canonical_schema(raw: Any) -> str:
    """The input schema as canonical JSON text; ValueError (for the notice) when it is not an object schema."""
    if raw is None:
        raw = {"type": "object", "properties": {}}
    if not isinstance(raw, Mapping):
        raise ValueError("inputSchema 不是 JSON 对象")
    schema = {key: value for key, value in raw.items() if key not in _DROPPED_KEYS}
    kind = schema.setdefault("type", "object")
    if kind != "object":
        raise ValueError(f"inputSchema 的 type 是 {kind!r}，必须是 object")
    properties = schema.setdefault("properties", {})
    if not isinstance(properties, Mapping):
        raise ValueError("inputSchema.properties 不是对象")
    required = schema.get("required", [])
    if not isinstance(required, list) or not all(isinstance(item, str) for item in required):
        raise ValueError("inputSchema.required 不是字符串列表")
    try:
        text = json.dumps(schema, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError) as error:
        raise ValueError(f"inputSchema 无法序列化: {error}") from None
    if len(text) > MAX_SCHEMA_CHARS:
        raise ValueError(f"inputSchema 过大（{len(text)} 字符）")
    return text


def remote_tools(server: str, listed: Sequence[Mapping[str, Any]]) -> tuple[list[RemoteTool], list[str]]:
    """Valid tools sorted by model name (a byte-stable list), plus one problem line per rejected tool."""
    tools: dict[str, RemoteTool] = {}
    problems: list[str] = []
    for item in listed:
        name = item.get("name")
        if not isinstance(name, str) or not name.strip():
            problems.append("一个工具没有名字")
            continue
        try:
            schema = canonical_schema(item.get("inputSchema"))
        except ValueError as error:
            problems.append(f"{name}: {error}")
            continue
        description = item.get("description")
        tool = RemoteTool(
            server,
            name,
            description if isinstance(description, str) else "",
            schema,
            *(_hint(item, key) for key in _HINT_KEYS),
        )
        if tool.model_name in tools:
            problems.append(f"{name}: 与另一个工具的名字冲突（{tool.model_name}）")
            continue
        tools[tool.model_name] = tool
    return [tools[key] for key in sorted(tools)], problems


def _hint(item: Mapping[str, Any], key: str) -> bool | None:
    value = item.get(key)
    return value if isinstance(value, bool) else None


def result_text(content: Sequence[Mapping[str, Any]], structured: Any = None) -> str:
    """Text blocks verbatim; images, audio and binary resources described, never dumped."""
    parts: list[str] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            parts.append(str(block.get("text", "")))
        elif kind in ("image", "audio"):
            size = len(str(block.get("data", ""))) * 3 // 4
            label = "图片" if kind == "image" else "音频"
            parts.append(f"[{label}: {block.get('mimeType') or '未知类型'}，约 {size} 字节，未展开]")
        elif kind == "resource_link":
            parts.append(f"[资源链接: {block.get('uri', '')} {block.get('name', '')}]".rstrip("] ") + "]")
        elif kind == "resource":
            parts.append(_embedded(block.get("resource") or {}))
        else:
            parts.append(f"[不支持的内容类型: {kind}]")
    if not parts and structured is not None:
        parts.append(json.dumps(structured, ensure_ascii=False, indent=1)[:MAX_SCHEMA_CHARS])
    return "\n".join(parts) if parts else "(工具没有返回内容)"


def result_images(content: Sequence[Mapping[str, Any]], source: str) -> tuple[ImagePart, ...]:
    """The image blocks of a result as image parts (base64 as the server sent it; too large or not an image
    format a model reads: left as the text's description only)."""
    images: list[ImagePart] = []
    for block in content:
        data, media_type = block.get("data"), str(block.get("mimeType") or "")
        if (
            block.get("type") != "image"
            or not isinstance(data, str)
            or media_type not in MEDIA_TYPES.values()
        ):
            continue
        try:
            raw = base64.b64decode(data, validate=True)
        except ValueError:
            continue
        if 0 < len(raw) <= MAX_IMAGE_BYTES:
            images.append(ImagePart.from_bytes(raw, media_type, source))
    return tuple(images)


def _embedded(resource: Mapping[str, Any]) -> str:
    uri = resource.get("uri", "")
    if "text" in resource:
        return f'<resource uri="{uri}">\n{resource.get("text", "")}\n</resource>'
    size = len(str(resource.get("blob", ""))) * 3 // 4
    return f"[二进制资源: {uri}，{resource.get('mimeType') or '未知类型'}，约 {size} 字节，未展开]"
