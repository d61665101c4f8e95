"""Tool specifications and argument validation: model JSON is parsed into typed arguments or a clear error."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, TypedDict

from paicli.llm.content_parts import ImagePart

if TYPE_CHECKING:
    from paicli.tools.base import ToolOutcome

ParamType = str  # "string" | "integer" | "boolean"
Args = dict[str, Any]


class ParamSchema(TypedDict, total=False):
    """One parameter's JSON Schema as sent to the model (keys in this order, absent when unset)."""

    type: str
    description: str
    enum: list[str]
    default: Any


@dataclass(frozen=True)
class Param:
    name: str
    type: ParamType
    description: str
    required: bool = False
    default: Any = None
    enum: tuple[str, ...] = ()
    minimum: int | None = None

    def schema(self) -> ParamSchema:
        entry: ParamSchema = {"type": self.type}
        if (
            self.description
        ):  # a parameter whose name says it all carries no description (fewer prompt tokens)
            entry["description"] = self.description
        if self.enum:
            entry["enum"] = list(self.enum)
        if self.default is not None:
            entry["default"] = self.default
        # `minimum` is checked here (`_coerce`, whose error names the bound) and not sent: it cost about 56
        # tokens of every request for bounds a model rarely misses
        return entry


ToolOrigin = Literal["builtin", "mcp"]


@dataclass(frozen=True)
class McpHints:
    """A server's own annotations of one tool, as listed (None: not stated). Untrusted: they may raise the
    friction a tool gets (destructive: no "always"; open world: offline turns refuse it), never lower it."""

    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None


@dataclass(frozen=True)
class ToolSpec:
    """Everything paicli knows about one tool: what the model sees (name, description, parameters) and every
    fact the policies read. A fact left out takes its worst case: a tool that does not declare `read_only`
    asks before it runs in ask mode and under /hitl on, and in auto mode too unless it sets `auto_approve`."""

    name: str
    description: str
    params: tuple[Param, ...] = ()
    # Effects. read_only: changes nothing anywhere, so it never needs approval.
    read_only: bool = False
    parallel_safe: bool | None = None  # runs concurrently with other such calls; None: same as read_only
    path_params: tuple[
        str, ...
    ] = ()  # arguments that are paths inside the project (checked by the PathGuard)
    writes_files: bool = False  # writes its path argument: protected files ask, "always" is the edits grant
    command_param: str | None = (
        None  # runs this argument as a shell command (rules, read-only judgement, sandbox)
    )
    writes_memory: bool = False  # writes long-term memory: the memory guard and memory approval apply
    auto_approve: bool = False  # auto mode runs it unasked once its kind's own checks pass
    snapshot_first: bool = True  # a changing call is preceded by the turn's workspace snapshot
    # Content and network.
    external: bool = False  # brings outside content into the session (memory guard)
    reads_project: bool = False  # its output carries repository text (a memory write after it needs a person)
    content_kind: str = ""  # what its output is, in words for the person (the memory approval names it)
    web: bool = False  # refused at execution when the turn must stay offline (the definition stays)
    url_param: str | None = None  # fetches this URL: only URLs the user gave or this turn's search found
    discovers_urls: bool = False  # the `discovered_urls` of its results become fetchable in this turn
    # Origin and wording of its approval.
    origin: ToolOrigin = "builtin"
    server: str = ""  # the MCP server, for origin "mcp"
    mcp_hints: McpHints | None = None
    ask_reason: str = ""  # why it asks where the mode alone would not say
    summary: str = ""  # the approval's one-line summary, `{argument}` fields filled from the call
    # A JSON-Schema object given as is (MCP tools), kept as text so the spec stays hashable and byte-stable;
    # `params` is then empty and the server validates the arguments.
    schema_json: str | None = None

    @property
    def runs_in_parallel(self) -> bool:
        return self.read_only if self.parallel_safe is None else self.parallel_safe

    @property
    def runs_command(self) -> bool:
        return self.command_param is not None

    @property
    def destructive(self) -> bool:
        """Declared destructive by its MCP server: every call asks, "always" is never offered."""
        return self.mcp_hints is not None and self.mcp_hints.destructive is True

    def command(self, args: Args) -> str:
        return str(args.get(self.command_param, "")) if self.command_param is not None else ""

    def summary_text(self, args: Args) -> str:
        """The approval's one-line summary of this call (what would happen)."""
        if self.origin == "mcp":
            shown = json.dumps(args, ensure_ascii=False)
            return f"调用 MCP 工具 {self.name}: {shown if len(shown) <= 200 else shown[:200] + '…'}"
        if not self.summary:
            return f"调用工具 {self.name}"
        defaults = {param.name: param.default for param in self.params if param.default is not None}
        return self.summary.format_map(_Fields({**defaults, **args}))

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


class _Fields(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return ""


class ArgumentError(ValueError):
    """Arguments that do not fit the tool's schema; the message is meant for the model."""


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
    outcome: ToolOutcome | None = None  # when the flags do not say it all (cancelled, denied): see tools.base
    # False: the text is paicli's own (a search that could not run, a refused address), so nothing from outside
    # reached the model and the memory guard has nothing to record
    outside_content: bool = True
    images: tuple[ImagePart, ...] = ()  # images the tool returned (MCP), sent after the results as tool data
