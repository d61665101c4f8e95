"""What an agent loop reports while it runs. Front ends render these; loops never print."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, Union

from paicli.context.types import CompactionResult
from paicli.llm.messages import Usage

# the tool runner defines these two; loops re-emit them, front ends import them from here
from paicli.tools.base import ToolFinished as ToolFinished
from paicli.tools.base import ToolProgress as ToolProgress
from paicli.tools.base import ToolStarted as ToolStarted
from paicli.tools.base import ToolWaiting as ToolWaiting

if TYPE_CHECKING:
    from paicli.agent.task_events import (
        PlanProposed,
        RunStatus,
        RunTurn,
        TaskActivity,
        TaskFinished,
        TaskStarted,
        TaskToolCall,
    )

_TASK_EVENTS = "paicli.agent.task_events"


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
class CompactionStarted:
    """Before a model call the loop checks the history's size; past the threshold this summarises it (a model
    call of its own, seconds long). Display only: front ends show a wait if the check takes a while."""

    actor: str = "agent"


@dataclass(frozen=True)
class Preparing:
    """A run does work of its own before its first model call (a long-term memory lookup). Display only, like
    CompactionStarted; `what` names it for the person waiting."""

    what: str


@dataclass(frozen=True)
class Compacted:
    result: CompactionResult
    manual: bool = False


@dataclass(frozen=True)
class Notice:
    text: str
    level: Literal["info", "warn", "error"] = "info"


@dataclass(frozen=True)
class RunFinished:
    status: RunStatus
    answer: str
    error: str | None = None
    # set by the Plan and Team orchestrators: the turn the run adds to the main conversation
    turn: RunTurn | None = field(default=None, compare=False, repr=False)
    truncated: bool = False  # the answer was cut by the output limit and stays incomplete
    overflow: bool = False  # ended because the server refused the request as too long for its context
    files_changed: tuple[str, ...] = ()  # project files the run changed (set by the session, from snapshots)


@dataclass(frozen=True)
class Waiting:
    """A run waits for something slow to finish loading before its first request (start-up warm-up)."""

    what: str


# Plan and Team events are forward references: a plain run never loads their module (task_events.py)
AgentEvent = Union[  # `|` cannot join a class and a forward reference
    TextDelta,
    ReasoningDelta,
    ModelCallStarted,
    ModelCallFinished,
    ToolStarted,
    ToolProgress,
    ToolFinished,
    ToolWaiting,
    CompactionStarted,
    Preparing,
    Compacted,
    Notice,
    RunFinished,
    "PlanProposed",
    "TaskStarted",
    "TaskActivity",
    "TaskToolCall",
    "TaskFinished",
    Waiting,
]
EventSink = Callable[[AgentEvent], None]


def is_plan_event(event: object) -> bool:
    """`isinstance(event, task_events.PLAN_EVENTS)`, answered without loading them: until a Plan or Team run has
    loaded their module, no such event can exist."""
    loaded = sys.modules.get(_TASK_EVENTS)
    return loaded is not None and isinstance(event, loaded.PLAN_EVENTS)
