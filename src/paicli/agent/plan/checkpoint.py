"""Plan checkpoints in the ledger (spec 3.4) and the pure fold that finds an interrupted plan again.

Events (mode `plan`): `plan_created` {planId, revision, plan} by `plan-agent`; `task_state` {planId, taskId,
status, result} by `task:<id>`; the run ends with `run_result` / `run_error` {planId} by `plan-agent` (or `run_cancelled` from
the review: the plan was turned down).
A plan whose run has no end event was interrupted (Esc, Ctrl+C, SIGKILL, crash) and can be continued.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from paicli.agent.plan.model import NodeState, Plan, PlanProgress

MODE = "plan"
PLAN_ACTOR = "plan-agent"
PLAN_CREATED = "plan_created"
TASK_STATE = "task_state"
ENDED = frozenset({"run_result", "run_error"})
REVIEW_CANCEL = (
    "review_cancel"  # run_cancelled from this source: the user turned the plan down, nothing to continue
)
_STATUSES = frozenset({"pending", "running", "done", "failed", "skipped"})


def task_actor(task_id: str) -> str:
    return f"task:{task_id}"


class EntryLike(Protocol):
    @property
    def event(self) -> str: ...

    @property
    def source(self) -> str: ...

    @property
    def mode(self) -> str: ...

    @property
    def metadata(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True)
class InterruptedPlan:
    plan_id: str
    progress: PlanProgress
    revision: int
    mode: str = MODE  # "plan", or "team" for a Team run (same events, its own mode)

    @property
    def completed(self) -> list[str]:
        return [t.id for t in self.progress.plan.tasks if self.progress.state(t.id).status == "done"]

    @property
    def completed_writes(self) -> list[str]:
        return [
            t.id
            for t in self.progress.plan.tasks
            if self.progress.state(t.id).status == "done" and not t.type.read_only
        ]


@dataclass
class _Run:
    plan: Plan
    revision: int
    states: dict[str, NodeState]
    ended: bool = False
    mode: str = MODE


def _apply(runs: dict[str, _Run], order: list[str], entry: EntryLike) -> None:
    meta = entry.metadata
    plan_id = str(meta.get("planId", ""))
    if not plan_id:
        return
    if entry.event == PLAN_CREATED and isinstance(meta.get("plan"), dict):
        run = runs.get(plan_id)
        plan = Plan.from_json(meta["plan"])
        states = run.states if run else {}
        runs[plan_id] = _Run(
            plan,
            int(meta.get("revision", 0)),
            {k: v for k, v in states.items() if k in plan.ids},
            mode=entry.mode,
        )
        if plan_id not in order:
            order.append(plan_id)
    elif entry.event == TASK_STATE and plan_id in runs and meta.get("status") in _STATUSES:
        urls = tuple(str(u) for u in meta.get("urls") or ())
        files = tuple(str(f) for f in meta.get("files") or ())
        runs[plan_id].states[str(meta.get("taskId"))] = NodeState(
            meta["status"], str(meta.get("result") or ""), urls, files
        )
    elif plan_id in runs and (
        entry.event in ENDED or (entry.event == "run_cancelled" and entry.source == REVIEW_CANCEL)
    ):
        runs[plan_id].ended = True


def resumable(state: NodeState) -> NodeState:
    """Done stays done (its result feeds dependents); anything else runs again."""
    return state if state.status == "done" else NodeState()


def fold_interrupted(
    entries: Iterable[EntryLike], modes: Collection[str] = (MODE,)
) -> InterruptedPlan | None:
    """The newest plan in the ledger that has not ended, with node states ready to continue.

    `modes`: whose runs count ("plan"; "team" runs record the same events under their own mode)."""
    runs: dict[str, _Run] = {}
    order: list[str] = []
    for entry in entries:
        if entry.mode in modes:
            try:
                _apply(runs, order, entry)
            except (KeyError, ValueError, TypeError):  # a damaged line must not hide the rest
                continue
    for plan_id in reversed(order):
        run = runs[plan_id]
        if run.ended:
            return None
        states = {task_id: resumable(state) for task_id, state in run.states.items()}
        if all(s.status == "done" for s in states.values()) and len(states) == len(run.plan.tasks):
            return None
        return InterruptedPlan(plan_id, PlanProgress(run.plan, states), run.revision, run.mode)
    return None
