"""What the Plan and Team orchestrators share around their steps: the ledger record of a run (user input, node
states, the end event that `fold_interrupted` looks for), the announcement of a continued run, and the guarded
execution that always ends in one RunFinished and then calls the post-run hook."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from paicli.agent.events import EventSink, Notice, RunFinished
from paicli.agent.plan.checkpoint import TASK_STATE, InterruptedPlan
from paicli.agent.plan.model import NodeState, PlanProgress
from paicli.agent.plan.turn import RunStart, run_turn
from paicli.agent.ports import LedgerPort
from paicli.agent.task_events import PlanProposed
from paicli.llm.messages import Message

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class RunRecorder:
    """Writes one orchestrated run's events under its mode ("plan" or "team", also the end events' source)."""

    ledger: LedgerPort
    mode: str
    actor: str  # who records the run's own events: plan-agent, orchestrator
    answered_error_is_result: bool = False  # Team: an error that still has an answer ends as a run_result

    def event(
        self, event: str, source: str, metadata: Mapping[str, object], actor: str | None = None
    ) -> None:
        self.ledger.append_event(event, self.mode, actor or self.actor, source, metadata)

    def user_input(self, goal: str, submitted: str | None) -> str:
        """Records the goal; returns what the user typed (the goal itself when nothing else was submitted)."""
        typed = goal if submitted is None else submitted
        self.ledger.append_message(
            self.mode, self.actor, "user_input", Message.user(goal), {"submittedInput": typed}
        )
        return typed

    def task_state(self, run_id: str, task_id: str, state: NodeState, actor: str, review: str = "") -> None:
        metadata: dict[str, object] = {
            "planId": run_id,
            "taskId": task_id,
            "status": state.status,
            "result": state.result,
        }
        if state.urls:
            metadata["urls"] = list(state.urls)
        if state.files:
            metadata["files"] = list(state.files)
        if review:
            metadata["review"] = review
        self.event(TASK_STATE, state.status, metadata, actor)

    def end(
        self,
        run_id: str,
        finished: RunFinished,
        cancel_source: str = "user_cancel",
        start: RunStart | None = None,
        progress: PlanProgress | None = None,
    ) -> RunFinished:
        """Records how the run ended; with `start`, the result also carries the run as a conversation turn."""
        finished = self._recorded(run_id, finished, cancel_source)
        return finished if start is None else self.as_turn(finished, start, progress)

    def as_turn(
        self, finished: RunFinished, start: RunStart, progress: PlanProgress | None = None
    ) -> RunFinished:
        return replace(finished, turn=run_turn(self.mode, start, progress, finished))

    def _recorded(self, run_id: str, finished: RunFinished, cancel_source: str) -> RunFinished:
        failed = finished.status == "error" and not (self.answered_error_is_result and finished.answer)
        if finished.status == "cancelled":
            self.event("run_cancelled", cancel_source, {"planId": run_id})
        elif failed:
            self.event("run_error", self.mode, {"planId": run_id, "error": finished.error or ""})
        else:
            self.event(
                "run_result",
                self.mode,
                {"planId": run_id, "status": finished.status, "result": finished.answer},
            )
        return finished


def announce_resume(interrupted: InterruptedPlan, emit: EventSink, unit: str) -> None:
    """`unit`: what the user calls a node of this run (任务, 步骤)."""
    emit(PlanProposed(interrupted.progress.plan, interrupted.revision, tuple(interrupted.completed)))
    if interrupted.completed_writes:
        emit(
            Notice(f"ℹ️ 这些修改类{unit}上次已经完成，不会重复执行：{'、'.join(interrupted.completed_writes)}")
        )


@dataclass(frozen=True)
class RunGuard:
    """Runs an orchestrated execution so that it always ends in one recorded and emitted RunFinished, then
    gives a done run's submitted text to the post-run hook (memory extraction)."""

    recorder: RunRecorder
    failure_prefix: str = ""  # before "执行失败: …" when the execution itself crashed

    def execute(
        self,
        start: RunStart,
        work: Callable[[], RunFinished],
        emit: EventSink,
        on_completed: Callable[[str], None] | None,
        progress: Callable[[], PlanProgress],
    ) -> RunFinished:
        """`progress`: the node states reached so far (read once the work has ended, however it ended)."""
        kind = self.recorder.mode
        try:
            finished = work()
        except Exception as error:  # the front end must always get a RunFinished
            log.exception("%s execution failed", kind)
            finished = RunFinished("error", "", f"{self.failure_prefix}执行失败: {error}")
        finished = self.recorder.end(start.run_id, finished, start=start, progress=progress())
        if finished.status == "done" and on_completed is not None:
            try:
                on_completed(start.submitted)
            except Exception:
                log.exception("post-%s hook failed", kind)
        return finished
