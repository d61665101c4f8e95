"""What an agent loop reports while it runs. Front ends render these; loops never print."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from paicli.context.types import CompactionResult
from paicli.llm.messages import Usage

# the tool runner defines these two; loops re-emit them, front ends import them from here
from paicli.tools.base import ToolFinished as ToolFinished
from paicli.tools.base import ToolProgress as ToolProgress
from paicli.tools.base import ToolResult
from paicli.tools.base import ToolStarted as ToolStarted
from paicli.tools.base import ToolWaiting as ToolWaiting

if TYPE_CHECKING:
    from paicli.agent.plan.model import Plan  # plan runs only; a plain run never loads the plan values


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


RunStatus = Literal["done", "partial", "cancelled", "error"]


@dataclass(frozen=True)
class RunTurn:
    """A finished Plan or Team run as one plain turn of the main conversation: `goal` as the user message,
    `answer` (a bounded summary) as the assistant's; `full` is every task's whole result, for the screen only."""

    mode: str  # plan | team
    run_id: str
    goal: str
    submitted: str
    answer: str
    full: str
    status: RunStatus
    tasks: int = 0  # how many tasks (steps) the run planned: 0 when it failed at the planner


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
class PlanProposed:
    """A plan to show (and, in the REPL, to review); `done` lists tasks already completed (resume)."""

    plan: Plan
    revision: int = 0
    done: tuple[str, ...] = ()


@dataclass(frozen=True)
class TaskStarted:
    task_id: str
    description: str
    parallel: bool = False
    worker: str = ""  # Team mode: the worker running the step


@dataclass(frozen=True)
class TaskActivity:
    """A live status for a task running in parallel (its own tool lines and text are not shown)."""

    task_id: str
    text: str


@dataclass(frozen=True)
class TaskToolCall:
    """A finished tool call of a task running in parallel, shown whole (its line, result and diff) at once, so
    two members' calls never interleave; `who` names the member (Team: the worker)."""

    task_id: str
    who: str
    started: ToolStarted
    result: ToolResult


@dataclass(frozen=True)
class TaskFinished:
    task_id: str
    status: str  # done / failed / skipped
    result: str


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
    | ToolProgress
    | ToolFinished
    | ToolWaiting
    | CompactionStarted
    | Preparing
    | Compacted
    | Notice
    | RunFinished
    | PlanProposed
    | TaskStarted
    | TaskActivity
    | TaskToolCall
    | TaskFinished
    | Waiting
)
EventSink = Callable[[AgentEvent], None]
PLAN_EVENTS = (PlanProposed, TaskStarted, TaskActivity, TaskToolCall, TaskFinished)
