"""The tool runner used when the model has no native tool calling (tools turned off by a setting).

No tool definitions are sent and the system prompt carries the `## Tool Availability` section instead of the
tool sections. Should a model still emit a call, it gets an error result, so the history stays protocol-valid.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from paicli.cancel import CancelToken
from paicli.llm.messages import ToolCall
from paicli.tools.base import ToolEventSink, ToolResult
from paicli.tools.boundary import ToolResultBoundary

NO_TOOLS_RESULT = (
    "❌ 当前模型不支持工具调用，这个调用没有执行。请直接用文字回答，需要的命令写出来让用户自己运行。"
)


class _NoToolTurn:
    def definitions(self) -> list[dict[str, Any]]:
        return []

    def notice(self) -> str | None:
        return None

    def verified_urls(self) -> list[str]:
        return []

    def execute(
        self, calls: Sequence[ToolCall], cancel: CancelToken, emit: ToolEventSink
    ) -> list[ToolResult]:
        text = ToolResultBoundary.wrap
        return [
            ToolResult(
                c.id, c.name, text(c.name, NO_TOOLS_RESULT), success=False, blocked=True, outcome="refused"
            )
            for c in calls
        ]


class ToolsDisabled:
    """Satisfies paicli.agent.ports.ToolSource with no tools at all."""

    def for_turn(self, submitted_text: str, inherited_urls: Iterable[str] = ()) -> _NoToolTurn:
        return _NoToolTurn()
