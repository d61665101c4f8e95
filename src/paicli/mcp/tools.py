"""The session's MCP tools: registered on the tool runner as `mcp__<server>__<tool>`, from the cached listing
at start, and replaced only at a turn boundary (with a notice) when a server's live listing differs, so the
tool list stays byte-stable within a turn and the provider's prefix cache holds."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from paicli.cancel import Cancelled
from paicli.mcp.convert import RemoteTool, remote_tools, result_images, result_text
from paicli.mcp.hub import McpCallError, McpHub
from paicli.tools.context import ToolContext
from paicli.tools.schema import Args, ToolOutput

if TYPE_CHECKING:
    from paicli.tools.registry import Tool


class Registry(Protocol):
    tools: dict[str, Tool]

    def register(self, tool: Tool) -> None: ...


class McpToolHandler:
    def __init__(self, hub: McpHub, remote: RemoteTool) -> None:
        self.hub = hub
        self.remote = remote

    def __call__(self, args: Args, ctx: ToolContext) -> ToolOutput:
        server, name = self.remote.server, self.remote.name
        try:
            blocks, structured, is_error = self.hub.call_tool(server, name, dict(args), ctx.cancel)
        except McpCallError as error:
            if ctx.cancel.cancelled:  # the hub stopped waiting because of the cancel: a cancelled result
                raise Cancelled() from None
            return ToolOutput(
                f"❌ MCP 工具调用失败（{server}/{name}）: {error}",
                success=False,
                timed_out="超时" in str(error),
            )
        text = result_text(blocks, structured)
        if is_error:
            return ToolOutput(f"❌ MCP 工具返回错误（{server}/{name}）:\n{text}", success=False)
        return ToolOutput(text, images=result_images(blocks, self.remote.model_name))


class McpTools:
    def __init__(self, hub: McpHub, notify: Callable[[str], None]) -> None:
        self.hub = hub
        self._notify = notify
        self._lock = threading.Lock()
        self.active: dict[str, list[RemoteTool]] = {}  # registered
        self.listed: dict[str, list[RemoteTool]] = {}  # as the server listed them (some may be refused)
        self.problems: dict[str, list[str]] = {}

    def _current(self, server: str) -> list[RemoteTool]:
        listing = self.hub.listing(server)
        if listing is None or self.hub.states[server].status == "disabled":
            return []
        tools, problems = remote_tools(server, listing.tools)
        if problems and self.problems.get(server) != problems:
            self._notify(
                f"⚠️ MCP 服务器 {server} 的 {len(problems)} 个工具无法使用: {'；'.join(problems[:3])}"
            )
        self.problems[server] = problems
        return tools

    def install(self, registry: Registry) -> None:
        """At session start: every server's cached (or already live) tools."""
        with self._lock:
            for server in self.hub.states:
                self._put(registry, server, self._current(server))

    def refresh(self, registry: Registry, *, announce: bool = True) -> None:
        """At a turn boundary: apply listings that changed since the last one, each with one notice."""
        with self._lock:
            for server in self.hub.states:
                tools = self._current(server)
                if tools == self.listed.get(server, []):
                    continue
                self._put(registry, server, tools)
                if announce:
                    self._notify(
                        f"🔌 MCP 服务器 {server} 的工具列表已更新: {len(tools)} 个工具（从这一轮起生效）"
                    )

    def _put(self, registry: Registry, server: str, tools: list[RemoteTool]) -> None:
        """Replace `server`'s tools. A name another server's tool already holds (a deliberate look-alike, or
        a digest clash) is refused with a notice: one server never silently replaces another's tool."""
        from paicli.tools.registry import Tool

        for old in self.active.get(server, []):
            registry.tools.pop(old.model_name, None)
        taken = {
            remote.model_name: name
            for name, listed in self.active.items()
            if name != server
            for remote in listed
        }
        kept: list[RemoteTool] = []
        for remote in tools:
            owner = taken.get(remote.model_name)
            if owner is not None or remote.model_name in registry.tools:
                self._notify(
                    f"⚠️ MCP 服务器 {server} 的工具 {remote.name} 与{f' MCP 服务器 {owner} 的' if owner else '已有'}"
                    f"工具同名（{remote.model_name}），已忽略，没有替换原来的工具"
                )
                continue
            registry.register(Tool(remote.spec(), McpToolHandler(self.hub, remote)))
            kept.append(remote)
        self.active[server] = kept
        self.listed[server] = tools

    def count(self, server: str) -> int:
        return len(self.active.get(server, []))

    def shown_count(self, server: str) -> tuple[int, bool]:
        """What `/mcp` says: the tools the model has, or, when the server's live listing has changed since
        they were registered (a first connect), the tools it gets from the next turn on, marked pending."""
        state = self.hub.states.get(server)
        if state is None or state.live is None or state.status != "connected":
            return self.count(server), False
        tools, _ = remote_tools(server, state.live.tools)
        with self._lock:
            if tools == self.listed.get(server, []):
                return self.count(server), False
        return len(tools), True
