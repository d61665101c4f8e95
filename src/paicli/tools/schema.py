"""Tool specifications and argument validation: model JSON is parsed into typed arguments or a clear error."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

ParamType = str  # "string" | "integer" | "boolean"


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    description: str
    required: bool = False
    default: Any = None
    enum: tuple[str, ...] = ()
    minimum: int | None = None

    def schema(self) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": self.type}
        if (
            self.description
        ):  # a parameter whose name says it all carries no description (fewer prompt tokens)
            entry["description"] = self.description
        if self.enum:
            entry["enum"] = list(self.enum)
        if self.default is not None:
            entry["default"] = self.default
        if self.minimum is not None:
            entry["minimum"] = self.minimum
        return entry


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    params: tuple[Param, ...] = ()
    read_only: bool = False  # parallel-safe: runs concurrently with other read-only calls
    external: bool = False  # brings outside content into the session
    web: bool = False  # refused at execution when the turn must stay offline (the definition stays)
    # A JSON-Schema object given as is (MCP tools), kept as text so the spec stays hashable and byte-stable;
    # `params` is then empty and the server validates the arguments.
    schema_json: str | None = None

    def definition(self) -> dict[str, Any]:
        parameters: dict[str, Any]
        if self.schema_json is not None:
            parameters = json.loads(self.schema_json)
        else:
            parameters = {"type": "object", "properties": {p.name: p.schema() for p in self.params}}
            required = [p.name for p in self.params if p.required]
            if required:
                parameters["required"] = required
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": parameters},
        }

    def signature(self) -> str:
        if self.schema_json is not None:
            return self.schema_json
        parts = [f"{p.name} ({p.type}{'，必填' if p.required else ''})" for p in self.params]
        return "、".join(parts) or "无参数"


class ArgumentError(ValueError):
    """Arguments that do not fit the tool's schema; the message is meant for the model."""


Args = dict[str, Any]


def parse_arguments(spec: ToolSpec, raw: str | None) -> Args:
    """Parse and validate raw JSON arguments. Defaults are filled in; unknown keys are dropped."""
    data = _load_object(raw)
    if spec.schema_json is not None:
        return _required_present(spec, data)
    known = {p.name for p in spec.params}
    unknown = sorted(set(data) - known)
    note = f"（收到不认识的参数 {', '.join(unknown)}）" if unknown else ""
    result: Args = {}
    for param in spec.params:
        value = data.get(param.name)
        if value is None:
            if param.required:
                raise ArgumentError(f"缺少必填参数 {param.name}{note}")
            if param.default is not None:
                result[param.name] = param.default
            continue
        result[param.name] = _coerce(param, value)
    if unknown and not any(data.get(name) is not None for name in known):
        raise ArgumentError(f"不认识的参数 {', '.join(unknown)}")
    return result


def _required_present(spec: ToolSpec, data: Args) -> Args:
    required = json.loads(spec.schema_json or "{}").get("required") or []
    missing = [name for name in required if isinstance(name, str) and name not in data]
    if missing:
        raise ArgumentError(f"缺少必填参数 {', '.join(missing)}")
    return data


def _load_object(raw: str | None) -> dict[str, Any]:
    text = (raw or "").strip()
    if not text:
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise ArgumentError(f"参数不是合法的 JSON（{error.msg}，位置 {error.pos}）") from None
    if isinstance(data, str) and data.strip().startswith("{"):
        # Some models JSON-encode the arguments twice; the inner object is unambiguous.
        return _load_object(data)
    if not isinstance(data, dict):
        raise ArgumentError(f"参数必须是 JSON 对象，收到的是 {type(data).__name__}")
    return data


def _coerce(param: Param, value: Any) -> Any:
    if param.type == "string":
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise ArgumentError(f"参数 {param.name} 应为字符串，收到 {_kind(value)}")
        text = value if isinstance(value, str) else str(value)
        if param.enum and text not in param.enum:
            raise ArgumentError(f"参数 {param.name} 只能是 {' / '.join(param.enum)}，收到 {text!r}")
        return text
    if param.type == "integer":
        number = _as_int(param, value)
        if param.minimum is not None and number < param.minimum:
            raise ArgumentError(f"参数 {param.name} 不能小于 {param.minimum}，收到 {number}")
        return number
    if param.type == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "false"):
            return value.strip().lower() == "true"
        raise ArgumentError(f"参数 {param.name} 应为布尔值 true/false，收到 {_kind(value)}")
    raise ArgumentError(f"参数 {param.name} 的类型 {param.type} 不受支持")


def _as_int(param: Param, value: Any) -> int:
    # Models often send "10" or 10.0 for integers; those are unambiguous, anything else is an error.
    if isinstance(value, bool):
        raise ArgumentError(f"参数 {param.name} 应为整数，收到布尔值")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("-").isdigit():
        return int(value.strip())
    raise ArgumentError(f"参数 {param.name} 应为整数，收到 {_kind(value)}")


def _kind(value: Any) -> str:
    if isinstance(value, str):
        return f"字符串 {value[:40]!r}"
    if isinstance(value, bool):
        return "布尔值"
    if isinstance(value, (int, float)):
        return f"数字 {value}"
    if isinstance(value, list):
        return "数组"
    if isinstance(value, dict):
        return "对象"
    return type(value).__name__


def argument_error_text(spec: ToolSpec, error: ArgumentError) -> str:
    return f"❌ 参数错误（{spec.name}）: {error}。参数应为: {spec.signature()}"


@dataclass(frozen=True)
class ToolOutput:
    """What a tool handler returns; the runner turns it into a ToolResult."""

    content: str
    success: bool = True
    timed_out: bool = False
    blocked: bool = False
    display: str | None = None
    metadata: dict[str, Any] = field(default_factory=dict)
    offloaded: bool = False  # the handler already applied L1 offload (execute_command)
