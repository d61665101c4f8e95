"""TeamAgent (spec 8.5, AgentOrchestrator): plan with the planner, then batches of ready steps on two workers,
each result judged by a reviewer; every step's state is checkpointed like a plan task so an interrupted run
can be continued (spec 3.4)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial

from paicli.agent.budget import AgentBudget
from paicli.agent.events import AgentEvent, EventSink, Notice, ReasoningDelta, RunFinished, TextDelta
from paicli.agent.loop import LoopOptions, LoopStats
from paicli.agent.plan.checkpoint import PLAN_CREATED, InterruptedPlan
from paicli.agent.plan.model import NodeState, Plan, PlanProgress, PlanTask
from paicli.agent.plan.orchestration import RunGuard, RunRecorder, announce_resume
from paicli.agent.plan.parallel import run_all
from paicli.agent.plan.parse import PlanParseError
from paicli.agent.plan.turn import RunStart
from paicli.agent.ports import ContextPort, LedgerPort, ToolSource
from paicli.agent.task_events import PlanProposed, TaskActivity, TaskFinished
from paicli.agent.team.parse import parse_team_plan
from paicli.agent.team.prompts import Role, TeamPrompts, planning_request
from paicli.agent.team.result import team_result
from paicli.agent.team.review import MAX_RETRIES
from paicli.agent.team.schedule import (
    ORCHESTRATOR,
    PLANNER,
    REVIEWER,
    WORKERS,
    Rotation,
    StepQueue,
    next_batch,
    reviewer_name,
    skip_reasons,
)
from paicli.agent.team.step import StepJob, StepOutcome, StepRunner
from paicli.agent.team.subagent import MODE, SubAgent
from paicli.cancel import CancelToken
from paicli.llm.protocol import LLMClient

log = logging.getLogger(__name__)

CANCELLED = "⏹️ 已取消当前多 Agent 任务。"
THREAD_NAME = "paicli-multi-agent"


@dataclass(frozen=True)
class TeamEnv:
    """What every member of one team run shares: one model client, one tool registry, one ledger."""

    llm: LLMClient
    tools: ToolSource
    prompts: TeamPrompts
    ledger: LedgerPort
    context_factory: Callable[[], ContextPort]  # each member gets its own compaction manager
    budget_factory: Callable[[], AgentBudget]
    stats: LoopStats
    policy_text: str  # what the user typed: each step's tool policy is built from it


@dataclass
class TeamRun:
    run_id: str
    progress: PlanProgress
    submitted: str
    revision: int = 0
    notes: dict[str, str] = field(default_factory=dict)
    rotation: Rotation = field(default_factory=Rotation)
    batches: int = 0


def _quiet(emit: EventSink) -> EventSink:
    """The planner's raw JSON is not for the user (the parsed plan is shown)."""

    def forward(event: AgentEvent) -> None:
        if not isinstance(event, (TextDelta, ReasoningDelta)):
            emit(event)

    return forward


class TeamAgent:
    def __init__(
        self, env: TeamEnv, on_completed: Callable[[str], None] | None = None, max_retries: int = MAX_RETRIES
    ) -> None:
        self.env = env
        self.on_completed = on_completed
        self.steps = StepRunner(env.prompts, env.tools, env.policy_text, max_retries)
        self.record = RunRecorder(env.ledger, MODE, ORCHESTRATOR, answered_error_is_result=True)
        self.guard = RunGuard(self.record)

    # ---- members ------------------------------------------------------------------------------------

    def member(self, name: str, role: Role) -> SubAgent:
        env = self.env
        options = LoopOptions(
            env.budget_factory,
            blank_answer_fallback=role == "worker",
            budget_notice=f"⚠️ {name} 执行预算已触发，正在整理部分结果",
        )
        return SubAgent(
            name,
            env.prompts.role_system(role),
            env.llm,
            env.ledger,
            env.context_factory(),
            env.stats,
            options,
        )

    # ---- the run ------------------------------------------------------------------------------------

    def run(
        self, goal: str, emit: EventSink, cancel: CancelToken, submitted: str | None = None
    ) -> RunFinished:
        typed = self.record.user_input(goal, submitted)
        run_id = uuid.uuid4().hex[:12]
        start = RunStart(run_id, goal, typed)
        if cancel.cancelled:
            self.record.event("run_cancelled", "before_planning", {"planId": run_id})
            return self.record.as_turn(RunFinished("cancelled", CANCELLED), start)
        emit(Notice("📋 第一阶段：规划"))
        emit(Notice("🧑‍💼 规划者正在分析任务..."))
        planned = self._plan(goal, emit, cancel)
        if isinstance(planned, RunFinished):
            return self.record.end(run_id, planned, start=start)
        self.record.event(
            PLAN_CREATED, "planner", {"planId": run_id, "revision": 0, "plan": planned.to_json()}
        )
        emit(PlanProposed(planned))
        return self.execute(TeamRun(run_id, PlanProgress(planned), typed), emit, cancel)

    def resume(self, interrupted: InterruptedPlan, emit: EventSink, cancel: CancelToken) -> RunFinished:
        announce_resume(interrupted, emit, "步骤")
        plan = interrupted.progress.plan
        run = TeamRun(interrupted.plan_id, interrupted.progress, plan.goal, interrupted.revision)
        return self.execute(run, emit, cancel)

    def _plan(self, goal: str, emit: EventSink, cancel: CancelToken) -> Plan | RunFinished:
        planner = self.member(PLANNER, "planner")
        try:
            finished = planner.run(planning_request(goal), _quiet(emit), cancel)
        finally:
            planner.reset()
        if finished.status == "cancelled":
            return RunFinished("cancelled", CANCELLED)
        if finished.status == "error":
            return RunFinished("error", "", f"规划阶段失败，规划者 LLM 调用出错：{finished.error}")
        if not finished.answer.strip():
            return RunFinished("error", "", "规划失败：规划者未能生成有效计划")
        try:
            return parse_team_plan(finished.answer, goal)
        except PlanParseError as error:
            return RunFinished(
                "error", "", f"规划失败：无法解析执行计划（{error}）\n原始输出:\n{finished.answer}"
            )

    def execute(self, run: TeamRun, emit: EventSink, cancel: CancelToken) -> RunFinished:
        emit(Notice("⚡ 第二阶段：执行"))
        work = partial(self._execute, run, emit, cancel)
        start = RunStart(run.run_id, run.progress.plan.goal, run.submitted)
        return self.guard.execute(start, work, emit, self.on_completed, lambda: run.progress)

    def _execute(self, run: TeamRun, emit: EventSink, cancel: CancelToken) -> RunFinished:
        workers = [self.member(name, "worker") for name in WORKERS]
        reviewer = self.member(REVIEWER, "reviewer")
        while True:
            if cancel.cancelled:
                return RunFinished("cancelled", CANCELLED)
            batch = next_batch(run.progress.plan, run.progress.states)
            if not batch:
                break
            self._run_batch(run, batch, workers, reviewer, emit, cancel)
            if cancel.cancelled:
                return RunFinished("cancelled", CANCELLED)
        self._skip_rest(run, emit)
        return team_result(run.progress, run.notes)

    def _run_batch(
        self,
        run: TeamRun,
        batch: list[PlanTask],
        workers: list[SubAgent],
        reviewer: SubAgent,
        emit: EventSink,
        cancel: CancelToken,
    ) -> None:
        run.batches += 1
        parallel = len(batch) > 1
        lanes, run.rotation = run.rotation.lanes(len(batch))
        if parallel:
            emit(
                Notice(
                    f"⚡ 批次 #{run.batches}：{len(batch)} 个独立步骤并行执行（最多 {len(WORKERS)} 个并发 Worker）"
                )
            )
        snapshot = dict(run.progress.states)
        plan = run.progress.plan
        for step in batch:
            self.record.task_state(run.run_id, step.id, NodeState("running"), ORCHESTRATOR)
        queue = StepQueue([step.id for step in batch])

        def lane(index: int) -> list[tuple[str, StepOutcome]]:
            worker = workers[index]
            done: list[tuple[str, StepOutcome]] = []
            while not cancel.cancelled and (step_id := queue.take()) is not None:
                job = StepJob(plan, plan.task(step_id), snapshot, parallel)
                judge = self.member(reviewer_name(step_id, True), "reviewer") if parallel else reviewer
                outcome = self._run_step(job, worker, judge, emit, cancel)
                if outcome.state is not None:
                    self.record.task_state(run.run_id, step_id, outcome.state, worker.name, outcome.note)
                    if parallel:
                        emit(TaskActivity(step_id, "已结束，等待同一批次的其他步骤"))
                done.append((step_id, outcome))
            return done

        outcomes = dict(
            pair for lane_result in run_all(lanes, lane, len(WORKERS), THREAD_NAME) for pair in lane_result
        )
        for step in batch:  # results are shown in plan order, whichever worker finished first
            outcome = outcomes.get(step.id)
            if outcome is None or outcome.state is None:
                continue  # cancelled: stays "running" in the ledger, so a continuation runs it again
            run.progress = run.progress.with_state(step.id, outcome.state)
            if outcome.note:
                run.notes[step.id] = outcome.note
            emit(TaskFinished(step.id, outcome.state.status, outcome.state.result))

    def _run_step(
        self, job: StepJob, worker: SubAgent, reviewer: SubAgent, emit: EventSink, cancel: CancelToken
    ) -> StepOutcome:
        try:
            return self.steps.run(job, worker, reviewer, emit, cancel)
        except Exception as error:  # one broken step must not take its batch down
            log.exception("team step %s failed", job.step.id)
            return StepOutcome(NodeState("failed", f"{type(error).__name__}: {error}"))

    def _skip_rest(self, run: TeamRun, emit: EventSink) -> None:
        for step_id, reason in skip_reasons(run.progress.plan, run.progress.states).items():
            step = run.progress.plan.task(step_id)
            state = NodeState("skipped", reason)
            run.progress = run.progress.with_state(step_id, state)
            self.record.task_state(run.run_id, step_id, state, ORCHESTRATOR)
            emit(TaskFinished(step_id, "skipped", f"步骤 [{step_id}] {reason}: {step.description}"))
