"""The events of Plan and Team runs, and the turn a finished run adds to the main conversation. Only those runs
load this module; anything else asks `events.is_plan_event`, which answers without loading it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from paicli.tools.base import ToolResult, ToolStarted

if TYPE_CHECKING:
    from paicli.agent.plan.model import Plan

RunStatus = Literal["done", "partial", "cancelled", "error"]  # also events.RunFinished's


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


PLAN_EVENTS = (PlanProposed, TaskStarted, TaskActivity, TaskToolCall, TaskFinished)
