"""Who runs what (pure): batches of ready steps, round-robin workers, reviewer names, skip reasons."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from paicli.agent.plan.graph import dependents, ready_batch
from paicli.agent.plan.model import NodeState, Plan, PlanTask

WORKERS = ("worker-1", "worker-2")
PLANNER = "planner"
REVIEWER = "reviewer"
ORCHESTRATOR = "orchestrator"
SKIPPED_REASON = "因前置步骤失败被跳过"


@dataclass(frozen=True)
class Assignment:
    worker: int  # index into WORKERS
    steps: tuple[str, ...]  # run one after another on that worker


@dataclass(frozen=True)
class Rotation:
    """The round-robin pointer: the worker the next step goes to."""

    next_worker: int = 0
    size: int = len(WORKERS)

    def assign(self, step_ids: Sequence[str]) -> tuple[list[Assignment], Rotation]:
        """Step i goes to worker (next + i) mod size; each worker runs its steps in order."""
        lanes: dict[int, list[str]] = {}
        for offset, step_id in enumerate(step_ids):
            lanes.setdefault((self.next_worker + offset) % self.size, []).append(step_id)
        assignments = [Assignment(worker, tuple(ids)) for worker, ids in lanes.items()]
        return assignments, Rotation((self.next_worker + len(step_ids)) % self.size, self.size)


def next_batch(plan: Plan, states: Mapping[str, NodeState]) -> list[PlanTask]:
    """Pending steps whose dependencies are all done (one runs inline, several in parallel)."""
    return ready_batch(plan, states)


def reviewer_name(step_id: str, parallel: bool) -> str:
    """Parallel steps are reviewed at the same time, each by a reviewer of its own."""
    return f"{REVIEWER}-{step_id}" if parallel else REVIEWER


def skip_reasons(plan: Plan, states: Mapping[str, NodeState]) -> dict[str, str]:
    """Steps still pending when nothing more can run, each with why (the failed step it waited for)."""
    status = {task.id: states.get(task.id, NodeState()).status for task in plan.tasks}
    reasons: dict[str, str] = {}
    for failed in [task_id for task_id, s in status.items() if s in ("failed", "skipped")]:
        for task_id in dependents(plan, failed):
            if status[task_id] == "pending" and task_id not in reasons:
                reasons[task_id] = f"{SKIPPED_REASON}（{failed} 未完成）"
    for task_id, s in status.items():
        if s == "pending" and task_id not in reasons:
            reasons[task_id] = SKIPPED_REASON
    return {task.id: reasons[task.id] for task in plan.tasks if task.id in reasons}
