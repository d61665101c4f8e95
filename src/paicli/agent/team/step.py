"""One team step (spec 8.5): a worker runs it, a reviewer judges the result, rejected results are retried with
the reviewer's feedback; both members' histories are cleared when the step ends, whatever the outcome."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from paicli.agent.events import EventSink, Notice
from paicli.agent.member_events import member_events
from paicli.agent.plan.model import NodeState, Plan, PlanTask
from paicli.agent.plan.task import inherited_urls
from paicli.agent.plan.writes import WriteLog
from paicli.agent.ports import ToolSource, TurnTools
from paicli.agent.task_events import TaskStarted
from paicli.agent.team.prompts import TeamPrompts
from paicli.agent.team.requests import retry_input, review_request, step_input
from paicli.agent.team.review import (
    MAX_RETRIES,
    ReviewAction,
    Verdict,
    WorkerAction,
    after_review,
    after_worker_failure,
    parse_verdict,
)
from paicli.agent.team.subagent import SubAgent
from paicli.cancel import CancelToken

NO_RESULT = "执行者没有给出任何结果"
NOTE_REVIEW_ERROR = "审查调用失败，未经审查"
NOTE_RETRIES_EXHAUSTED = "审查未通过，保留最后一次结果"
NOTE_RETRY_FAILED = "重新执行失败，保留上一次结果"


@dataclass(frozen=True)
class StepOutcome:
    state: (
        NodeState | None
    )  # None: cancelled (the step stays "running" in the ledger and runs again on resume)
    note: str = ""  # how the review ended when it was not a plain approval


@dataclass(frozen=True)
class StepJob:
    plan: Plan
    step: PlanTask
    states: Mapping[str, NodeState]  # the states when its batch started (dependencies are done)
    parallel: bool


class StepRunner:
    def __init__(
        self, prompts: TeamPrompts, tools: ToolSource, policy_text: str, max_retries: int = MAX_RETRIES
    ) -> None:
        self.prompts = prompts
        self.tools = tools
        self.policy_text = policy_text
        self.max_retries = max_retries

    def run(
        self, job: StepJob, worker: SubAgent, reviewer: SubAgent, emit: EventSink, cancel: CancelToken
    ) -> StepOutcome:
        step = job.step
        sink = member_events(step.id, emit, job.parallel, who=worker.name)
        urls = inherited_urls(step, job.states)
        turn = WriteLog(self.tools.for_turn(self.policy_text, urls))
        context = step_input(self.prompts, job.plan, step, job.states, urls)
        emit(TaskStarted(step.id, step.description, job.parallel, worker.name))
        try:
            outcome = self._attempts(job, context, worker, reviewer, turn, sink, cancel)
        finally:
            worker.reset()
            reviewer.reset()
        if outcome.state is not None and outcome.state.status == "done":
            done = NodeState("done", outcome.state.result, tuple(turn.verified_urls()), turn.files())
            outcome = StepOutcome(done, outcome.note)
        elif outcome.state is not None:
            outcome = StepOutcome(replace(outcome.state, files=turn.files()), outcome.note)
        return outcome

    def _attempts(
        self,
        job: StepJob,
        context: str,
        worker: SubAgent,
        reviewer: SubAgent,
        turn: TurnTools,
        emit: EventSink,
        cancel: CancelToken,
    ) -> StepOutcome:
        step_id = job.step.id
        text, last, retries = context, "", 0
        while True:
            finished = worker.run(text, emit, cancel, turn)
            if finished.status == "cancelled":
                return StepOutcome(None)
            answer = finished.answer if finished.status in ("done", "partial") else ""
            if not answer.strip():
                reason = finished.error or NO_RESULT
                if after_worker_failure(last) is WorkerAction.KEEP_PREVIOUS:
                    emit(Notice(f"⚠️ 步骤 [{step_id}] 重新执行失败（{reason}），保留上一次的结果", "warn"))
                    return StepOutcome(NodeState("done", last), NOTE_RETRY_FAILED)
                return StepOutcome(NodeState("failed", reason))
            last = answer
            verdict = self._review(job, worker.name, reviewer, answer, emit, cancel)
            if cancel.cancelled:
                return StepOutcome(None)
            action = after_review(verdict, retries, self.max_retries)
            if action is not ReviewAction.RETRY:
                return self._kept(step_id, answer, action, emit)
            assert verdict is not None
            emit(Notice(f"⚠️ 步骤 [{step_id}] 审查未通过，正在重新执行...\n   反馈: {verdict.issues}", "warn"))
            retries += 1
            text = retry_input(self.prompts, context, verdict.issues)

    def _review(
        self, job: StepJob, worker: str, reviewer: SubAgent, result: str, emit: EventSink, cancel: CancelToken
    ) -> Verdict | None:
        emit(Notice(f"🔍 {reviewer.name} 正在审查步骤 [{job.step.id}] 的结果..."))
        request = review_request(self.prompts, job.plan, job.step, worker, result)
        finished = reviewer.run(request, emit, cancel)
        if finished.status not in ("done", "partial"):
            return None
        return parse_verdict(finished.answer)

    @staticmethod
    def _kept(step_id: str, answer: str, action: ReviewAction, emit: EventSink) -> StepOutcome:
        if action is ReviewAction.ACCEPT:
            emit(Notice(f"✅ 步骤 [{step_id}] 审查通过"))
            return StepOutcome(NodeState("done", answer))
        if action is ReviewAction.KEEP_AFTER_REVIEW_ERROR:
            emit(Notice(f"⚠️ 步骤 [{step_id}] 审查阶段 LLM 调用失败，保留当前执行结果", "warn"))
            return StepOutcome(NodeState("done", answer), NOTE_REVIEW_ERROR)
        emit(Notice(f"⚠️ 步骤 [{step_id}] 超过最大重试次数，保留当前结果", "warn"))
        return StepOutcome(NodeState("done", answer), NOTE_RETRIES_EXHAUSTED)
