"""Plan values: tasks, their types, node states (pure)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Literal


class TaskType(str, Enum):
    FILE_READ = "FILE_READ"
    FILE_WRITE = "FILE_WRITE"
    COMMAND = "COMMAND"
    ANALYSIS = "ANALYSIS"
    VERIFICATION = "VERIFICATION"

    @property
    def read_only(self) -> bool:
        return self in (TaskType.FILE_READ, TaskType.ANALYSIS, TaskType.VERIFICATION)


TaskStatus = Literal["pending", "running", "done", "failed", "skipped"]


@dataclass(frozen=True)
class PlanTask:
    id: str
    description: str
    type: TaskType
    dependencies: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "description": self.description,
            "type": self.type.value,
            "dependencies": list(self.dependencies),
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> PlanTask:
        return PlanTask(
            str(data["id"]),
            str(data["description"]),
            TaskType(data["type"]),
            tuple(str(d) for d in data.get("dependencies") or ()),
        )


@dataclass(frozen=True)
class Plan:
    goal: str
    tasks: tuple[PlanTask, ...]
    summary: str = ""

    @property
    def ids(self) -> list[str]:
        return [task.id for task in self.tasks]

    def task(self, task_id: str) -> PlanTask:
        for task in self.tasks:
            if task.id == task_id:
                return task
        raise KeyError(task_id)

    def to_json(self) -> dict[str, Any]:
        return {"goal": self.goal, "summary": self.summary, "tasks": [t.to_json() for t in self.tasks]}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Plan:
        return Plan(
            str(data.get("goal", "")),
            tuple(PlanTask.from_json(t) for t in data.get("tasks") or ()),
            str(data.get("summary", "")),
        )


@dataclass(frozen=True)
class NodeState:
    status: TaskStatus = "pending"
    result: str = ""
    urls: tuple[str, ...] = ()  # URLs the task may fetch (web_search results): its dependents inherit them
    files: tuple[str, ...] = ()  # files the task wrote (write_file / edit_file), as the calls named them


@dataclass(frozen=True)
class PlanProgress:
    """The plan and every node's state: what the executor decides on and what the ledger can rebuild."""

    plan: Plan
    states: dict[str, NodeState] = field(default_factory=dict)

    def state(self, task_id: str) -> NodeState:
        return self.states.get(task_id, NodeState())

    def with_state(self, task_id: str, state: NodeState) -> PlanProgress:
        return PlanProgress(self.plan, {**self.states, task_id: state})
