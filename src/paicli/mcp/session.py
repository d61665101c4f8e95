"""One session's MCP: the config read once, the hub started in the background, the tools on the runner, and
the `/mcp` command's answers."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from paicli.mcp.config import McpConfig, disabled_servers, load_config, set_disabled
from paicli.mcp.hub import McpHub
from paicli.mcp.resources import expand_resource_mentions, resource_index
from paicli.mcp.tools import McpTools, Registry

USAGE = "用法: /mcp | /mcp (restart|logs|disable|enable) <名称> | /mcp (resources|prompts) [<名称>]"
_STATUS = {"starting": "⏳ 连接中", "connected": "✅ 已连接", "failed": "❌ 失败", "disabled": "⏸️ 已停用"}


class McpSession:
    def __init__(
        self,
        config: McpConfig,
        home: Path,
        registry: Registry,
        notify: Callable[[str], None],
        *,
        timeout: float = 60.0,
        secrets: Iterable[str] = (),
    ) -> None:
        self.config = config
        self.home = home
        self.registry = registry
        self.notify_target = notify  # the front end rebinds it once its notice channel exists
        self.hub = McpHub(
            config.servers,
            home,
            timeout=timeout,
            disabled=disabled_servers(home),
            notify=self.notify,
            secrets=secrets,
        )
        self.tools = McpTools(self.hub, self.notify)
        self.tools.install(registry)
        self._index = resource_index(self.hub)

    def notify(self, text: str) -> None:
        self.notify_target(text)

    @classmethod
    def from_files(
        cls,
        home: Path,
        project_root: Path,
        env: Mapping[str, str] | Callable[[str], str | None],
        registry: Registry,
        notify: Callable[[str], None],
        *,
        trusted: bool,
        timeout: float = 60.0,
        secrets: Iterable[str] = (),
    ) -> McpSession:
        config = load_config(home, project_root, env, trusted=trusted)
        return cls(config, home, registry, notify, timeout=timeout, secrets=secrets)

    @property
    def configured(self) -> bool:
        return bool(self.hub.states)

    def start(self) -> None:
        """Start every server in the background; returns at once."""
        self.hub.start()

    def wait_cold(self, seconds: float) -> None:
        """One-shot and piped runs: wait at most `seconds` for servers whose tools are not cached yet (a first
        run could not offer them otherwise); servers with a cached listing are never waited for."""
        self.start()
        cold = [
            name
            for name, state in self.hub.states.items()
            if state.status != "disabled" and self.hub.cache.load(state.config) is None
        ]
        if cold and seconds > 0:
            self.hub.wait_settled(cold, seconds)
            self.tools.refresh(self.registry, announce=False)
            self._index = resource_index(self.hub)

    def turn_boundary(self) -> None:
        """Between turns: apply changed tool listings and resource indexes (the prompt prefix may change here,
        never inside a turn)."""
        if self.configured:
            self.tools.refresh(self.registry)
            self._index = resource_index(self.hub)

    def mentions(self) -> list[str]:
        """Every resource as `@server:uri` (REPL completion)."""
        found: list[str] = []
        for name, state in self.hub.states.items():
            listing = self.hub.listing(name) if state.status != "disabled" else None
            found.extend(f"@{name}:{item.get('uri', '')}" for item in (listing.resources if listing else ()))
        return sorted(found)

    def index_text(self) -> str:
        return self._index

    def expand(self, text: str, note: Callable[[str, str], None] | None = None) -> str:
        return expand_resource_mentions(text, self.hub, note) if self.configured else text

    def close(self) -> None:
        self.hub.close()

    # ---- /mcp ---------------------------------------------------------------------------------------------

    def counts(self) -> tuple[int, int]:
        """(connected, configured) servers, for the status bar's `MCP r/t`."""
        states = list(self.hub.states.values())
        return sum(1 for state in states if state.status == "connected"), len(states)

    def summary(self) -> str:
        """One line for the banner and /context."""
        states = self.hub.states.values()
        ready = sum(1 for state in states if state.status == "connected")
        counts = [self.tools.shown_count(name) for name in self.hub.states]
        pending = "（下一轮起可用）" if any(later for _, later in counts) else ""
        return f"MCP {ready}/{len(self.hub.states)} 已连接 · {sum(n for n, _ in counts)} 个工具{pending}"

    def command(self, args: str) -> str:
        words = args.split()
        if not words:
            return self.report()
        sub, name = words[0].lower(), (words[1] if len(words) > 1 else "")
        if sub not in ("restart", "logs", "disable", "enable", "resources", "prompts") or len(words) > 2:
            return USAGE
        if sub in ("resources", "prompts") and not name:
            return self._listed(sub, sorted(self.hub.states))
        if name not in self.hub.states:
            known = "、".join(sorted(self.hub.states)) or "（无）"
            return f"没有名为 {name or '?'} 的 MCP 服务器。已配置: {known}"
        if sub == "logs":
            tail = self.hub.log_tail(name).strip()
            return f"📜 {name} 的输出（最后部分）:\n{tail}" if tail else f"{name} 还没有任何输出"
        if sub in ("resources", "prompts"):
            return self._listed(sub, [name])
        if sub == "restart":
            self.hub.restart(name)
            return f"🔄 正在重启 MCP 服务器 {name}；工具列表在下一轮生效"
        set_disabled(self.home, name, sub == "disable")
        if sub == "disable":
            self.hub.disable(name)
            self.tools.refresh(self.registry)
            return f"⏸️ 已停用 MCP 服务器 {name}（已保存；/mcp enable {name} 恢复）"
        self.hub.restart(name)
        return f"▶️ 已启用 MCP 服务器 {name}，正在连接"

    def report(self) -> str:
        if not self.hub.states:
            lines = ["MCP: 未配置服务器（~/.paicli/mcp.json 或项目的 .paicli/mcp.json）"]
        else:
            lines = ["🔌 MCP 服务器:"]
            for name, state in self.hub.states.items():
                where = state.config.url or " ".join([state.config.command or "", *state.config.args])
                status = _STATUS[state.status] + (f": {state.error}" if state.error else "")
                count, later = self.tools.shown_count(name)
                tools = f"{count} 个工具" + ("（下一轮起可用）" if later else "")
                lines.append(f"   {name} [{state.config.source}] {status} · {tools} · {where}")
        if self.config.ignored_project:
            lines.append(
                "   项目 .paicli/mcp.json 里的服务器未启动（此文件夹未被信任）: "
                + "、".join(self.config.ignored_project)
            )
        lines.extend(f"   {notice}" for notice in self.config.notices)
        return "\n".join(lines)

    def _listed(self, what: str, names: list[str]) -> str:
        lines: list[str] = []
        for name in names:
            listing = self.hub.listing(name)
            items = (listing.resources if what == "resources" else listing.prompts) if listing else ()
            for item in items:
                key = item.get("uri") if what == "resources" else item.get("name")
                lines.append(f"   {name}: {key} — {item.get('description', '')}".rstrip(" —"))
        title = "MCP 资源" if what == "resources" else "MCP 提示词"
        return f"{title}:\n" + "\n".join(lines) if lines else f"{title}: 无"
