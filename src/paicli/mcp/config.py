"""mcp.json: the user's (<paicli home>/mcp.json) and the project's (.paicli/mcp.json, only in a trusted folder).

The shape other clients use: `{"mcpServers": {"<name>": {"command", "args", "env", "cwd"} | {"url", "headers"}}}`.
The project file overrides the user's by server name. `${VAR}` in `env` and `headers` values is expanded from
paicli's environment; an unset variable becomes empty and is reported.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from paicli import fsperm
from paicli.config.projectfile import contained_file, read_project_text
from paicli.mcp.files import PROJECT_FILE, USER_FILE

Source = Literal["user", "project"]
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,40}$")
DISABLED_FILE = "mcp-disabled.json"


class _Entry(BaseModel):
    model_config = ConfigDict(
        extra="ignore", defer_build=True
    )  # built when a server is configured (issue 49)

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)


@dataclass(frozen=True)
class ServerConfig:
    name: str
    source: Source
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()

    def fingerprint(self) -> str:
        """What identifies the server for the tool-list cache (never the expanded secrets)."""
        return json.dumps([self.command, list(self.args), self.cwd, self.url], ensure_ascii=False)


@dataclass
class McpConfig:
    servers: dict[str, ServerConfig] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    ignored_project: list[str] = field(default_factory=list)  # servers of an untrusted project's mcp.json


def _expand(value: str, env: Callable[[str], str | None], missing: set[str]) -> str:
    def replace(match: re.Match[str]) -> str:
        found = env(match.group(1))
        if found is None:
            missing.add(match.group(1))
            return ""
        return found

    return _VAR.sub(replace, value)


def _server(
    name: str, raw: Any, source: Source, env: Callable[[str], str | None], notices: list[str]
) -> ServerConfig | None:
    if not _NAME.match(name):
        notices.append(f"⚠️ MCP 服务器名 {name!r} 无效（只允许字母、数字、_ . -，最多 40 个字符），已跳过")
        return None
    try:
        entry = _Entry.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        notices.append(f"⚠️ MCP 服务器 {name} 的配置无效（{where}: {first['msg']}），已跳过")
        return None
    if bool(entry.command) == bool(entry.url):
        notices.append(f"⚠️ MCP 服务器 {name} 需要 command（stdio）或 url（HTTP）二者之一，已跳过")
        return None
    missing: set[str] = set()
    env_pairs = tuple(sorted((k, _expand(v, env, missing)) for k, v in entry.env.items()))
    headers = tuple(sorted((k, _expand(v, env, missing)) for k, v in entry.headers.items()))
    if missing:
        names = "、".join(sorted(missing))
        notices.append(f"⚠️ MCP 服务器 {name} 引用的环境变量未设置: {names}（按空值处理）")
    return ServerConfig(
        name, source, entry.command, tuple(entry.args), env_pairs, entry.cwd, entry.url, headers
    )


def _read_json(path: Path, notices: list[str], root: Path | None = None) -> dict[str, Any]:
    """`root`: the project folder, for the project's file (read only through `read_project_text`)."""
    try:
        if root is None:
            text = path.read_text(encoding="utf-8")
        else:
            found = read_project_text(path, root)
            if found is None:
                return {}
            text = found
        data = json.loads(text)
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
        notices.append(f"⚠️ 无法读取 MCP 配置 {path}: {type(error).__name__}，已忽略")
        return {}
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    if not isinstance(servers, dict):
        if data:
            notices.append(f"⚠️ MCP 配置 {path} 没有 mcpServers 对象，已忽略")
        return {}
    return servers


def project_file(project_root: Path) -> Path | None:
    """`.paicli/mcp.json` when its real path is a regular file inside the project (never through a symlink out)."""
    return contained_file(project_root / PROJECT_FILE, project_root)


def project_launches(project_root: Path) -> list[tuple[str, str]]:
    """What trusting the folder would start, per server of the project's mcp.json: (name, the command line
    with its arguments, or the URL), as written in the file (`${VAR}` not expanded: no value of the user's
    environment is shown); an entry that would not start says so."""
    path = project_file(project_root)
    servers = _read_json(path, [], project_root) if path is not None else {}
    launches: list[tuple[str, str]] = []
    for name, raw in servers.items():
        try:
            entry = _Entry.model_validate(raw)
        except ValidationError:
            entry = None
        if entry is None or not _NAME.match(str(name)) or bool(entry.command) == bool(entry.url):
            launches.append((str(name), "（配置无效，不会启动）"))
            continue
        if entry.url:
            launches.append((str(name), f"连接 {entry.url}"))
            continue
        line = shlex.join([entry.command or "", *entry.args])
        launches.append((str(name), line + (f"（工作目录 {entry.cwd}）" if entry.cwd else "")))
    return launches


def load_config(
    home: Path, project_root: Path, env: Mapping[str, str] | Callable[[str], str | None], *, trusted: bool
) -> McpConfig:
    lookup = env.get if isinstance(env, Mapping) else env
    config = McpConfig()
    for name, raw in _read_json(home / USER_FILE, config.notices).items():
        server = _server(str(name), raw, "user", lookup, config.notices)
        if server is not None:
            config.servers[server.name] = server
    path = project_file(project_root)
    if path is not None and path == (home / USER_FILE).resolve():
        path = None  # paicli started in the home folder: the user's own file, read once
    project = _read_json(path, config.notices, project_root) if path is not None else {}
    if project and not trusted:
        config.ignored_project = sorted(str(name) for name in project)
        return config
    for name, raw in project.items():
        server = _server(str(name), raw, "project", lookup, config.notices)
        if server is not None:
            config.servers[server.name] = server
    return config


def disabled_servers(home: Path) -> set[str]:
    try:
        data = json.loads((home / DISABLED_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return set()
    return {str(name) for name in data} if isinstance(data, list) else set()


def set_disabled(home: Path, name: str, disabled: bool) -> None:
    names = disabled_servers(home)
    names = names | {name} if disabled else names - {name}
    fsperm.write_private_text(home / DISABLED_FILE, json.dumps(sorted(names), ensure_ascii=False))
