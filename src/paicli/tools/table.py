"""The session's tools by name, in registration order: the built-ins, then what skills, MCP servers and the
session add. The order is the order of the definitions the model sees, so it must stay stable."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli.config.tool_values import ToolValues, WebSearchValues
from paicli.deferred import Deferred
from paicli.tools.context import SaveMemory, ToolContext
from paicli.tools.registry import Tool, builtin_tools
from paicli.tools.schema import Args, ToolOutput

if TYPE_CHECKING:
    from paicli.tools.handlers import WebHandlers


class DeferredWeb:
    """The session's web tools, built at the first fetch or search (a run that does neither never loads
    tools/web.py): one WebTools (its address gate, rate limit and search settings) shared by both, as when it
    was built up front."""

    def __init__(self, search: WebSearchValues) -> None:
        self._tools: Deferred[WebHandlers] = Deferred(lambda: _load_web(search))

    def web_fetch(self, args: Args, ctx: ToolContext) -> ToolOutput:
        return self._tools.get().web_fetch(args, ctx)

    def web_search(self, args: Args, ctx: ToolContext) -> ToolOutput:
        return self._tools.get().web_search(args, ctx)


def _load_web(search: WebSearchValues) -> WebHandlers:
    from paicli.tools.web import WebTools

    return WebTools(search)


class ToolTable:
    """Built before the runner, so what registers tools (the MCP session) needs no runner to exist first."""

    def __init__(self, tools: dict[str, Tool]) -> None:
        self.tools = tools

    @classmethod
    def builtin(
        cls, values: ToolValues, save_memory: SaveMemory | None = None, web: WebHandlers | None = None
    ) -> ToolTable:
        """`web`: the web tools (default: built from `values` at the first fetch or search)."""
        return cls(builtin_tools(web or DeferredWeb(values.web), save_memory, values.command_timeout))

    def register(self, tool: Tool) -> None:
        """Add or replace a tool (skills, MCP, the session's own)."""
        self.tools[tool.spec.name] = tool
