"""A scriptable ToolSource for loop tests: handlers by name, records what ran."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from paicli.agent.events import EventSink, ToolFinished, ToolStarted
from paicli.cancel import CancelToken
from paicli.llm.messages import ToolCall
from paicli.tools.base import ToolResult

Handler = Callable[[ToolCall, CancelToken], str]


@dataclass
class FakeTurnTools:
    runner: FakeToolRunner

    def definitions(self) -> list[dict[str, Any]]:
        return [
            {
                "type": "function",
                "function": {"name": name, "description": name, "parameters": {"type": "object"}},
            }
            for name in self.runner.handlers
        ]

    def notice(self) -> str | None:
        return None

    def verified_urls(self) -> list[str]:
        return list(self.runner.found_urls)

    def execute(self, calls: Sequence[ToolCall], cancel: CancelToken, emit: EventSink) -> list[ToolResult]:
        results: list[ToolResult] = []
        for call in calls:
            if cancel.cancelled:
                results.append(ToolResult(call.id, call.name, "用户取消了该工具调用。", False, blocked=True))
                continue
            emit(ToolStarted(call.id, call.name, call.arguments))
            handler = self.runner.handlers.get(call.name)
            if handler is None:
                result = ToolResult(call.id, call.name, f"❌ 未知工具: {call.name}", False)
            else:
                self.runner.executed.append(call)
                text = handler(call, cancel)
                ok = not text.startswith("❌")
                result = ToolResult(
                    call.id, call.name, f'<tool_result tool="{call.name}">\n{text}\n</tool_result>', ok
                )
            emit(ToolFinished(result))
            results.append(result)
        return results


@dataclass
class FakeToolRunner:
    handlers: dict[str, Handler] = field(default_factory=dict)
    executed: list[ToolCall] = field(default_factory=list)
    turns: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    inherited: list[list[str]] = field(default_factory=list)
    found_urls: list[str] = field(default_factory=list)  # what verified_urls() reports (web_search results)

    def for_turn(self, submitted_text: str, inherited_urls: Iterable[str] = ()) -> FakeTurnTools:
        self.turns.append(submitted_text)
        self.inherited.append(list(inherited_urls))
        return FakeTurnTools(self)


class StaticPrompt:
    def __init__(self, text: str = "## Identity\n你是 paicli。") -> None:
        self.text = text
        self.memories: list[str] = []

    def build(self, memory_context: str = "") -> str:
        self.memories.append(memory_context)
        return self.text if not memory_context else f"{self.text}\n\n## Project Context\n\n{memory_context}"
