"""The Plan-and-Execute side of the session backend: builds the plan agent from the session's parts."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from paicli.agent.events import EventSink, Notice, RunFinished
from paicli.cancel import CancelToken
from paicli.cli.compose import Components
from paicli.cli.orchestrated_session import OrchestratedSession, loaded
from paicli.config import knobs

if TYPE_CHECKING:  # the plan machinery loads with the first plan, not with every -p
    from paicli.agent.plan.agent import PlanDraft, PlanExecuteAgent, PlanSettings
    from paicli.agent.plan.checkpoint import InterruptedPlan

NO_PLAN_PROMPTS = "Plan-and-Execute 需要的提示词没有加载，无法执行计划。"


def plan_settings(parts: Components) -> PlanSettings:
    from paicli.agent.plan.agent import PlanSettings

    env = parts.env
    return PlanSettings(knobs.PLAN_MAX_PARALLEL.read(env), knobs.PLAN_MAX_REPLANS.read(env))


@dataclass(eq=False)
class PlanSession(OrchestratedSession):
    _settings: PlanSettings | None = field(init=False, default=None)

    @property
    def settings(self) -> PlanSettings:
        if self._settings is None:
            self._settings = plan_settings(self.parts)
        return self._settings

    def agent(self, policy_text: str) -> PlanExecuteAgent:
        from paicli.agent.plan.agent import PlanExecuteAgent
        from paicli.agent.plan.task import TaskEnv

        parts = self.parts
        env = TaskEnv(
            parts.llm,
            self._tools(),
            loaded(parts.plan_prompts, NO_PLAN_PROMPTS),
            parts.ledger,
            parts.memory,
            parts.profile.memory_context_tokens,
            self._context,
            self.budget,
            self.stats,
            policy_text,
        )
        return PlanExecuteAgent(env, self.settings, self.on_completed)

    def create(
        self, text: str, submitted: str, emit: EventSink, cancel: CancelToken
    ) -> PlanDraft | RunFinished:
        return self.agent(submitted).create(text, emit, cancel, submitted)

    def revise(
        self, draft: PlanDraft, supplement: str, emit: EventSink, cancel: CancelToken
    ) -> PlanDraft | RunFinished:
        return self.agent(draft.submitted).revise(draft, supplement, emit, cancel)

    def execute(self, draft: PlanDraft, emit: EventSink, cancel: CancelToken) -> RunFinished:
        return self.agent(draft.submitted).execute(draft, emit, cancel)

    def cancel(self, draft: PlanDraft) -> RunFinished:
        return self.agent(draft.submitted).cancel_draft(draft)

    def interrupted(self, modes: Collection[str] = ("plan",)) -> InterruptedPlan | None:
        """`modes`: ("plan", "team") also finds an interrupted Team run (its steps are checkpointed the same way)."""
        from paicli.agent.plan.checkpoint import fold_interrupted

        try:
            return fold_interrupted(self.parts.ledger.read_all(), modes)
        except Exception:  # an unreadable ledger simply has nothing to continue
            return None

    def describe_interrupted(self, modes: Collection[str] = ("plan",)) -> str | None:
        found = self.interrupted(modes)
        if found is None:
            return None
        plan = found.progress.plan
        what, unit = ("团队任务", "个步骤") if found.mode == "team" else ("计划", "个任务")
        return (
            f"📋 上次有一个没有执行完的{what}：{plan.goal.splitlines()[0][:60]}"
            f"（{len(found.completed)}/{len(plan.tasks)} {unit}已完成）"
        )

    def continue_interrupted(self, emit: EventSink, cancel: CancelToken) -> RunFinished:
        found = self.interrupted()
        if found is None:
            finished = RunFinished("error", "", "没有找到未完成的计划。")
            emit(finished)
            return finished
        emit(Notice(f"⏩ 继续未完成的计划：跳过 {len(found.completed)} 个已完成的任务"))
        return self.agent(found.progress.plan.goal).resume(found, emit, cancel)
