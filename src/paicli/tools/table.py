"""The session's tools by name, in registration order: the built-ins, then what skills, MCP servers and the
session add. The order is the order of the definitions the model sees, so it must stay stable."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli.config.tool_values import ToolValues
from paicli.tools.context import SaveMemory
from paicli.tools.handlers import DeferredWeb
from paicli.tools.registry import Tool, builtin_tools

if TYPE_CHECKING:
    from paicli.tools.handlers import WebHandlers


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
