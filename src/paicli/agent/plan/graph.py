"""Decisions over the task graph (pure): cycles, ready batches, progress, replan-or-skip, dependents."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import Enum

from paicli.agent.plan.model import NodeState, Plan, PlanTask

REPLAN_BELOW = 0.5


def find_cycle(tasks: Sequence[PlanTask]) -> list[str]:
    """One dependency cycle as ids (first id repeated at the end), or [] when the graph is acyclic."""
    deps = {task.id: [d for d in task.dependencies] for task in tasks}
    colour: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str]:
        colour[node] = 1
        stack.append(node)
        for dep in deps.get(node, []):
            if colour.get(dep) == 1:
                return [*stack[stack.index(dep) :], dep]
            if dep in deps and colour.get(dep) is None:
                found = visit(dep)
                if found:
                    return found
        stack.pop()
        colour[node] = 2
        return []

    for task in tasks:
        if colour.get(task.id) is None:
            found = visit(task.id)
            if found:
                return found
    return []


def topological_order(plan: Plan) -> list[PlanTask]:
    """Dependencies first; ties keep the planner's order."""
    placed: set[str] = set()
    order: list[PlanTask] = []
    remaining = list(plan.tasks)
    known = set(plan.ids)
    while remaining:
        progress = False
        for task in list(remaining):
            if all(d in placed or d not in known for d in task.dependencies):
                order.append(task)
                placed.add(task.id)
                remaining.remove(task)
                progress = True
        if not progress:  # a cycle cannot come out of the parser; keep the rest in plan order
            order.extend(remaining)
            break
    return order


def ready_batch(plan: Plan, states: Mapping[str, NodeState]) -> list[PlanTask]:
    """Pending tasks whose dependencies are all done, in topological order."""

    def status(task_id: str) -> str:
        return states.get(task_id, NodeState()).status

    return [
        task
        for task in topological_order(plan)
        if status(task.id) == "pending" and all(status(d) == "done" for d in task.dependencies)
    ]


def batches(plan: Plan) -> list[list[str]]:
    """The waves a plan runs in when every task succeeds (used for display and benchmarks)."""
    states: dict[str, NodeState] = {}
    waves: list[list[str]] = []
    while True:
        ready = ready_batch(plan, states)
        if not ready:
            return waves
        waves.append([t.id for t in ready])
        states.update({t.id: NodeState("done") for t in ready})


def progress(plan: Plan, states: Mapping[str, NodeState]) -> float:
    if not plan.tasks:
        return 1.0
    done = sum(1 for task in plan.tasks if states.get(task.id, NodeState()).status == "done")
    return done / len(plan.tasks)


class FailureAction(Enum):
    REPLAN = "replan"
    STOP = "stop"  # below 50 % with no replans left: skip everything still pending
    SKIP_DEPENDENTS = "skip_dependents"


def on_failure(fraction_done: float, replans_used: int, max_replans: int) -> FailureAction:
    if fraction_done >= REPLAN_BELOW:
        return FailureAction.SKIP_DEPENDENTS
    return FailureAction.REPLAN if replans_used < max_replans else FailureAction.STOP


def dependents(plan: Plan, task_id: str) -> list[str]:
    """Every task that depends on `task_id`, directly or through others, in topological order."""
    hit = {task_id}
    found: list[str] = []
    for task in topological_order(plan):
        if task.id not in hit and any(d in hit for d in task.dependencies):
            hit.add(task.id)
            found.append(task.id)
    return found


def blocked_by(plan: Plan, states: Mapping[str, NodeState], task_id: str) -> str | None:
    """The first dependency of a pending task that can no longer complete (failed or skipped)."""
    for dep in plan.task(task_id).dependencies:
        if states.get(dep, NodeState()).status in ("failed", "skipped"):
            return dep
    return None
