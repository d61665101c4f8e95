"""Who runs what: batches of ready steps, round-robin workers, the queue a parallel batch is taken from,
reviewer names, skip reasons (pure apart from the queue's lock)."""

from __future__ import annotations

import threading
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
class Rotation:
    """The round-robin pointer: the worker the next step goes to."""

    next_worker: int = 0
    size: int = len(WORKERS)

    def lanes(self, steps: int) -> tuple[list[int], Rotation]:
        """The workers (indexes) a batch of `steps` runs on, the next one in turn first; one step runs inline on
        that worker alone. The pointer moves on by the number of steps, as if they were dealt out in turn."""
        used = [(self.next_worker + k) % self.size for k in range(min(steps, self.size))]
        return used, Rotation((self.next_worker + steps) % self.size, self.size)


class StepQueue:
    """The steps of one parallel batch in plan order; each worker takes the next one when it is free."""

    def __init__(self, step_ids: Sequence[str]) -> None:
        self._pending = list(step_ids)
        self._lock = threading.Lock()

    def take(self) -> str | None:
        with self._lock:
            return self._pending.pop(0) if self._pending else None


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
