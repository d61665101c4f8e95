"""The planner's reply -> a validated Plan (pure). Any violation rejects the whole plan with a reason."""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from paicli.agent.plan.graph import find_cycle
from paicli.agent.plan.model import Plan, PlanTask, TaskType

_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n(.*?)\n?```", re.DOTALL)
TYPE_NAMES = "|".join(t.value for t in TaskType)


class PlanParseError(ValueError):
    """Why a planner reply is not a usable plan (Chinese; shown to the user and sent back for repair)."""


class RawTaskLike(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def type(self) -> str: ...

    @property
    def dependencies(self) -> list[str]: ...


class _RawTask(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1)
    description: str = Field(min_length=1)
    type: str
    dependencies: list[str] = Field(default_factory=list)


class _RawPlan(BaseModel):
    model_config = ConfigDict(extra="ignore")

    summary: str = ""
    tasks: list[_RawTask]


def extract_json(text: str) -> Any:
    """The reply is a JSON object, either bare or inside one ``` fence."""
    stripped = text.strip()
    if not stripped:
        raise PlanParseError("规划回复为空")
    fences = _FENCE.findall(stripped)
    if len(fences) > 1:
        raise PlanParseError("规划回复包含多个代码块，无法确定哪一个是计划")
    candidate = fences[0].strip() if fences else stripped
    try:
        return json.loads(candidate)
    except ValueError as error:
        raise PlanParseError(f"规划回复不是合法的 JSON：{error}") from None


def _raw_plan(data: Any) -> _RawPlan:
    if not isinstance(data, dict):
        raise PlanParseError("计划必须是一个 JSON 对象，包含 tasks 数组")
    try:
        return _RawPlan.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise PlanParseError(f"计划字段不合法（{where}）：{first['msg']}") from None


def _check_task(raw: RawTaskLike, seen: set[str], existing: Collection[str]) -> PlanTask:
    task_id = raw.id.strip()
    if task_id in seen or task_id in existing:
        raise PlanParseError(f"任务 id 重复：{task_id}")
    try:
        task_type = TaskType(raw.type.strip().upper())
    except ValueError:
        raise PlanParseError(f"任务 {task_id} 的类型 {raw.type!r} 未知，只能是 {TYPE_NAMES}") from None
    deps = tuple(dict.fromkeys(d.strip() for d in raw.dependencies))
    if task_id in deps:
        raise PlanParseError(f"任务 {task_id} 依赖了自己")
    seen.add(task_id)
    return PlanTask(task_id, raw.description.strip(), task_type, deps)


def parse_plan(text: str, goal: str, existing_ids: Collection[str] = ()) -> Plan:
    """`existing_ids`: completed tasks kept across a replan; new tasks may depend on them but not reuse them."""
    raw = _raw_plan(extract_json(text))
    return validated_plan(raw.tasks, goal, raw.summary, existing_ids)


def validated_plan(
    items: Sequence[RawTaskLike], goal: str, summary: str = "", existing_ids: Collection[str] = ()
) -> Plan:
    """The checks every planner's tasks pass (Plan tasks, Team steps): unique ids, known types and
    dependencies, no self-dependency, no cycle."""
    if not items:
        raise PlanParseError("计划里没有任何任务")
    seen: set[str] = set()
    tasks = [_check_task(item, seen, existing_ids) for item in items]
    known = seen | set(existing_ids)
    for task in tasks:
        unknown = [d for d in task.dependencies if d not in known]
        if unknown:
            raise PlanParseError(f"任务 {task.id} 依赖了不存在的任务：{'、'.join(unknown)}")
    cycle = find_cycle(tasks)
    if cycle:
        raise PlanParseError(f"任务之间存在循环依赖：{' -> '.join(cycle)}")
    return Plan(goal, tuple(tasks), summary.strip())
