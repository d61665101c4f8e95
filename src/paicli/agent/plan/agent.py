"""PlanExecuteAgent (spec 8.4): plan -> (review) -> batches of ready tasks -> replan or skip -> result.

Each task runs on the shared loop core with its own Conversation; the plan and every node state change are
checkpointed in the ledger so an interrupted plan can be continued (spec 3.4).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

from paicli.agent.events import EventSink, Notice, RunFinished
from paicli.agent.member_events import member_events
from paicli.agent.plan.checkpoint import (
    MODE,
    PLAN_ACTOR,
    PLAN_CREATED,
    REVIEW_CANCEL,
    InterruptedPlan,
    task_actor,
)
from paicli.agent.plan.graph import FailureAction, blocked_by, dependents, on_failure, progress, ready_batch
from paicli.agent.plan.model import NodeState, Plan, PlanProgress, PlanTask
from paicli.agent.plan.orchestration import RunGuard, RunRecorder, announce_resume
from paicli.agent.plan.parallel import run_all
from paicli.agent.plan.planner import Planner, PlanningFailed
from paicli.agent.plan.requests import replan_request
from paicli.agent.plan.result import plan_result
from paicli.agent.plan.task import TaskEnv, TaskOutcome, run_task
from paicli.agent.plan.turn import RunStart
from paicli.agent.task_events import PlanProposed, TaskFinished, TaskStarted
from paicli.cancel import CancelToken

log = logging.getLogger(__name__)

DEFAULT_MAX_PARALLEL = 4
DEFAULT_MAX_REPLANS = 2
CANCELLED_PLAN = "⏹️ 已取消当前计划执行。"
CANCELLED_REVIEW = "⏹️ 已取消本次计划执行。"


@dataclass(frozen=True)
class PlanSettings:
    max_parallel: int = DEFAULT_MAX_PARALLEL
    max_replans: int = DEFAULT_MAX_REPLANS


@dataclass(frozen=True)
class PlanDraft:
    """A plan waiting for review or execution."""

    plan_id: str
    goal: str
    submitted: str
    progress: PlanProgress
    revision: int = 0
    replans_used: int = 0

    @property
    def plan(self) -> Plan:
        return self.progress.plan

    @property
    def start(self) -> RunStart:
        return RunStart(self.plan_id, self.goal, self.submitted)


class PlanExecuteAgent:
    def __init__(
        self,
        env: TaskEnv,
        settings: PlanSettings | None = None,
        on_completed: Callable[[str], None] | None = None,
    ) -> None:
        self.env = env
        self.settings = settings or PlanSettings()
        self.on_completed = on_completed
        self.planner = Planner(env.llm, env.prompts, env.ledger, env.stats)
        self.record = RunRecorder(env.ledger, MODE, PLAN_ACTOR)
        self.guard = RunGuard(self.record, failure_prefix="❌ ")

    # ---- ledger -------------------------------------------------------------------------------------

    def _record_plan(self, draft: PlanDraft, source: str) -> None:
        self.record.event(
            PLAN_CREATED,
            source,
            {"planId": draft.plan_id, "revision": draft.revision, "plan": draft.plan.to_json()},
        )

    def _record_state(self, plan_id: str, task_id: str, state: NodeState) -> None:
        self.record.task_state(plan_id, task_id, state, task_actor(task_id))

    # ---- planning and review ------------------------------------------------------------------------

    def create(
        self, goal: str, emit: EventSink, cancel: CancelToken, submitted: str | None = None
    ) -> PlanDraft | RunFinished:
        typed = self.record.user_input(goal, submitted)
        draft = PlanDraft(uuid.uuid4().hex[:12], goal, typed, PlanProgress(Plan(goal, ())))
        return self._plan(draft, goal, emit, cancel, "planner")

    def revise(
        self, draft: PlanDraft, supplement: str, emit: EventSink, cancel: CancelToken
    ) -> PlanDraft | RunFinished:
        """`I` at the review: the goal gets the supplement and is planned again."""
        goal = f"{draft.goal}\n补充要求：{supplement.strip()}"
        emit(Notice("📝 已收到补充要求，正在重新规划..."))
        revised = replace(
            draft,
            goal=goal,
            submitted=f"{draft.submitted}\n{supplement.strip()}",
            revision=draft.revision + 1,
        )
        return self._plan(revised, goal, emit, cancel, "review_supplement")

    def _plan(
        self, draft: PlanDraft, goal: str, emit: EventSink, cancel: CancelToken, source: str
    ) -> PlanDraft | RunFinished:
        emit(Notice("🧭 正在制定计划..."))
        planned = self.planner.plan(goal, goal, emit, cancel, self.env.context_factory())
        if isinstance(planned, PlanningFailed):
            return self.record.end(draft.plan_id, planned.finished, start=draft.start)
        ready = replace(draft, progress=PlanProgress(planned))
        self._record_plan(ready, source)
        emit(PlanProposed(planned, ready.revision))
        return ready

    def cancel_draft(self, draft: PlanDraft) -> RunFinished:
        cancelled = RunFinished("cancelled", CANCELLED_REVIEW)
        return self.record.end(draft.plan_id, cancelled, REVIEW_CANCEL, draft.start, draft.progress)

    def run(
        self, goal: str, emit: EventSink, cancel: CancelToken, submitted: str | None = None
    ) -> RunFinished:
        """Without review (non-interactive REPL, `-p --plan`)."""
        draft = self.create(goal, emit, cancel, submitted)
        if isinstance(draft, RunFinished):
            emit(draft)
            return draft
        return self.execute(draft, emit, cancel)

    def resume(self, interrupted: InterruptedPlan, emit: EventSink, cancel: CancelToken) -> RunFinished:
        announce_resume(interrupted, emit, "任务")
        plan = interrupted.progress.plan
        draft = PlanDraft(
            interrupted.plan_id, plan.goal, plan.goal, interrupted.progress, interrupted.revision
        )
        return self.execute(draft, emit, cancel)

    # ---- execution ----------------------------------------------------------------------------------

    def execute(self, draft: PlanDraft, emit: EventSink, cancel: CancelToken) -> RunFinished:
        emit(Notice("🚀 开始执行计划..."))
        reached = [draft]  # the newest draft, for the run's turn however the execution ends
        work = partial(self._execute, draft, emit, cancel, reached)
        return self.guard.execute(draft.start, work, emit, self.on_completed, lambda: reached[-1].progress)

    def _execute(
        self, draft: PlanDraft, emit: EventSink, cancel: CancelToken, reached: list[PlanDraft]
    ) -> RunFinished:
        current = draft
        while True:
            if cancel.cancelled:
                return RunFinished("cancelled", CANCELLED_PLAN)
            batch = ready_batch(current.plan, current.progress.states)
            if not batch:
                return plan_result(current.progress)
            current = self._run_batch(current, batch, emit, cancel)
            reached.append(current)
            if cancel.cancelled:
                return RunFinished("cancelled", CANCELLED_PLAN)
            current = self._after_failures(current, batch, emit, cancel)
            reached.append(current)

    def _run_batch(
        self, draft: PlanDraft, batch: list[PlanTask], emit: EventSink, cancel: CancelToken
    ) -> PlanDraft:
        parallel = len(batch) > 1 and self.settings.max_parallel > 1
        if parallel:
            emit(Notice(f"⚡ 本轮并行执行 {len(batch)} 个任务: {', '.join(t.id for t in batch)}"))
        snapshot = dict(draft.progress.states)
        for task in batch:
            self._record_state(draft.plan_id, task.id, NodeState("running"))
            emit(TaskStarted(task.id, task.description, parallel))

        def work(task: PlanTask) -> TaskOutcome:
            sink = member_events(task.id, emit, parallel)
            try:
                return run_task(self.env, draft.plan, task, snapshot, sink, cancel)
            except Exception as error:
                log.exception("plan task %s failed", task.id)
                return TaskOutcome(RunFinished("error", "", f"{type(error).__name__}: {error}"))

        outcomes = run_all(batch, work, self.settings.max_parallel)
        progress_now = draft.progress
        for task, outcome in zip(batch, outcomes, strict=True):
            if outcome.finished.status == "cancelled":
                continue  # stays "running" in the ledger: a continuation runs it again
            state = _state_of(outcome)
            progress_now = progress_now.with_state(task.id, state)
            self._record_state(draft.plan_id, task.id, state)
            emit(TaskFinished(task.id, state.status, state.result))
        return replace(draft, progress=progress_now)

    def _after_failures(
        self, draft: PlanDraft, batch: list[PlanTask], emit: EventSink, cancel: CancelToken
    ) -> PlanDraft:
        failed = [t.id for t in batch if draft.progress.state(t.id).status == "failed"]
        if not failed:
            return draft
        action = on_failure(
            progress(draft.plan, draft.progress.states), draft.replans_used, self.settings.max_replans
        )
        if action is FailureAction.REPLAN:
            replanned = self._replan(draft, emit, cancel)
            if replanned is not None:
                return replanned
            action = FailureAction.STOP
        if action is FailureAction.STOP:
            emit(
                Notice(f"🛑 已达到重新规划上限（{self.settings.max_replans} 次），停止执行剩余任务。", "warn")
            )
            return self._skip(draft, emit, lambda _: "已达到重新规划上限")
        return self._skip(draft, emit, lambda task_id: _dependency_reason(draft, task_id))

    def _skip(self, draft: PlanDraft, emit: EventSink, reason: Callable[[str], str | None]) -> PlanDraft:
        current = draft.progress
        for task in draft.plan.tasks:
            if current.state(task.id).status != "pending":
                continue
            why = reason(task.id)
            if why is None:
                continue
            state = NodeState("skipped", why)
            current = current.with_state(task.id, state)
            self._record_state(draft.plan_id, task.id, state)
            emit(TaskFinished(task.id, "skipped", f"任务 {task.id} 已跳过: {why}"))
        return replace(draft, progress=current)

    def _replan(self, draft: PlanDraft, emit: EventSink, cancel: CancelToken) -> PlanDraft | None:
        used = draft.replans_used + 1
        emit(Notice(f"🔄 尝试重新规划（第 {used}/{self.settings.max_replans} 次）...", "warn"))
        states = draft.progress.states
        kept = [t for t in draft.plan.tasks if states.get(t.id, NodeState()).status == "done"]
        request = replan_request(self.env.prompts, draft.plan, states)
        planned = self.planner.plan(
            draft.goal, request, emit, cancel, self.env.context_factory(), existing_ids=[t.id for t in kept]
        )
        if isinstance(planned, PlanningFailed):
            emit(Notice(f"⚠️ 重新规划没有成功：{planned.finished.error or planned.finished.answer}", "warn"))
            return None
        merged = Plan(draft.goal, (*kept, *planned.tasks), planned.summary or draft.plan.summary)
        kept_states = {t.id: states[t.id] for t in kept}
        revised = replace(
            draft, progress=PlanProgress(merged, kept_states), revision=draft.revision + 1, replans_used=used
        )
        self._record_plan(revised, "replan")
        emit(PlanProposed(merged, revised.revision, tuple(kept_states)))
        return revised


def _state_of(outcome: TaskOutcome) -> NodeState:
    finished = outcome.finished
    if finished.status in ("done", "partial"):
        return NodeState("done", finished.answer, outcome.urls, outcome.files)
    return NodeState("failed", finished.error or finished.answer or "任务失败", files=outcome.files)


def _dependency_reason(draft: PlanDraft, task_id: str) -> str | None:
    dep = blocked_by(draft.plan, draft.progress.states, task_id)
    if dep is None:
        for failed in [
            t.id for t in draft.plan.tasks if draft.progress.state(t.id).status in ("failed", "skipped")
        ]:
            if task_id in dependents(draft.plan, failed):
                return f"依赖的任务 {failed} 失败"
        return None
    return f"依赖的任务 {dep} 失败"
