"""Shared builders for the session tests."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from pathlib import Path

from paicli.llm.messages import Message, ToolCall
from paicli.session.ledger import ConversationLedger
from paicli.testing.protocol import protocol_errors


def counting_clock(start: int = 1_762_400_000_000) -> Callable[[], int]:
    counter = itertools.count(start)
    return lambda: next(counter)


def new_ledger(home: Path, project: Path, **kwargs: object) -> ConversationLedger:
    return ConversationLedger.create(home, project, "glm-5.1", "glm", "0.1.0", counting_clock(), **kwargs)  # type: ignore[arg-type]


def valid_protocol(messages: Sequence[Message]) -> bool:
    """Every tool call answered by exactly one tool message before the next non-tool message; no strays."""
    return not protocol_errors(messages)


class ReactRecorder:
    """Mirrors what the ReAct loop does with its history and its ledger, so a test can compare them."""

    def __init__(self, ledger: ConversationLedger, system: str = "你是 paicli。") -> None:
        self.ledger = ledger
        self.history: list[Message] = [Message.system(system)]
        ledger.append_message("react", "agent", "session_attach", self.history[0])

    def add(self, source: str, message: Message) -> None:
        self.ledger.append_message("react", "agent", source, message)
        shown = message
        if message.role == "assistant" and not message.tool_calls:
            shown = Message.assistant(message.content or "")  # what the loop keeps in the view
        self.history.append(shown)

    def user(self, text: str) -> None:
        self.add("user_input", Message.user(text))

    def tool_round(
        self, call_id: str, name: str, arguments: str, result: str, reasoning: str = "想一想"
    ) -> None:
        self.add(
            "llm_response",
            Message.assistant("先看看", (ToolCall(call_id, name, arguments),), reasoning_content=reasoning),
        )
        self.add("tool_execution", Message.tool(call_id, result))

    def answer(self, text: str, reasoning: str = "推理过程") -> None:
        self.add("llm_response", Message.assistant(text, reasoning_content=reasoning))

    def refresh_system(self, text: str) -> None:
        self.history[0] = Message.system(text)
        self.ledger.append_message("react", "agent", "memory_context_refresh", self.history[0])

    def replace_view(self, source: str, new_tail: list[Message], metadata: dict[str, object]) -> None:
        """A compaction or clearing: the view changes in place, the ledger gets an event + a checkpoint."""
        before = len(self.history)
        self.history[1:] = new_tail
        self.ledger.append_event(
            "compaction",
            "react",
            "agent",
            source,
            {"beforeMessages": before, "afterMessages": len(self.history)},
        )
        self.ledger.record_view_checkpoint(source, self.history, metadata)

    def clear(self) -> None:
        self.ledger.append_event(
            "history_clear", "react", "agent", "slash_clear", {"discardedViewMessages": len(self.history)}
        )
        self.history[:] = [Message.system("全新的系统提示")]
        self.ledger.append_message("react", "agent", "history_reset", self.history[0])
        self.ledger.record_view_checkpoint("slash_clear", self.history)

    @property
    def view(self) -> list[Message]:
        return self.history[1:]
