"""What an agent loop reports while it runs. Front ends render these; loops never print."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from paicli.context.types import CompactionResult
from paicli.llm.messages import Usage
from paicli.tools.base import ToolResult


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True)
class ModelCallStarted:
    iteration: int
    actor: str = "agent"


@dataclass(frozen=True)
class ModelCallFinished:
    usage: Usage | None
    model: str
    actor: str = "agent"


@dataclass(frozen=True)
class ToolStarted:
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolFinished:
    result: ToolResult


@dataclass(frozen=True)
class Compacted:
    result: CompactionResult
    manual: bool = False


@dataclass(frozen=True)
class Notice:
    text: str
    level: Literal["info", "warn", "error"] = "info"


RunStatus = Literal["done", "partial", "cancelled", "error"]


@dataclass(frozen=True)
class RunFinished:
    status: RunStatus
    answer: str
    error: str | None = None


@dataclass(frozen=True)
class FactsSaved:
    count: int


@dataclass(frozen=True)
class Waiting:
    """A run waits for something slow to finish loading before its first request (start-up warm-up)."""

    what: str


AgentEvent = (
    TextDelta
    | ReasoningDelta
    | ModelCallStarted
    | ModelCallFinished
    | ToolStarted
    | ToolFinished
    | Compacted
    | Notice
    | RunFinished
    | FactsSaved
    | Waiting
)
EventSink = Callable[[AgentEvent], None]


def ignore_events(_: AgentEvent) -> None:
    return None
