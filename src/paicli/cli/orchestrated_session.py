"""The Plan and Team side of the session: an orchestrating agent built fresh for every run from the session's
current parts (the factory rebuilds those on /model and /resume), with a compaction manager of its own for each
task or member, made by the factory like the ReAct agent's (offloader included)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from paicli.agent.budget import AgentBudget
from paicli.agent.events import EventSink, Notice, RunFinished
from paicli.agent.loop import LoopStats
from paicli.agent.ports import ContextPort, ToolSource
from paicli.cancel import CancelToken
from paicli.cli.compose import Components
from paicli.config.modes import orchestrated
from paicli.llm.protocol import LLMClient

if TYPE_CHECKING:  # the plan and team machinery load with the first such run, not with every -p
    from paicli.agent.plan.agent import PlanDraft, PlanExecuteAgent, PlanSettings
    from paicli.agent.plan.checkpoint import InterruptedPlan
    from paicli.agent.team.agent import TeamAgent

T = TypeVar("T")
NO_PLAN_PROMPTS = "Plan-and-Execute 需要的提示词没有加载，无法执行计划。"
NO_TEAM_PROMPTS = "Team 模式需要的提示词没有加载，无法执行多智能体协作。"


def loaded(prompts: T | None, missing: str) -> T:
    """The mode's prompts; a mode whose prompt files did not load cannot run at all."""
    if prompts is None:
        raise RuntimeError(missing)
    return prompts


def plan_settings(parts: Components) -> PlanSettings:
    from paicli.agent.plan.agent import PlanSettings

    agent = parts.values.agent
    return PlanSettings(agent.plan_max_parallel, agent.plan_max_replans)


@dataclass(eq=False)
class OrchestratedRuns:
    """Plan and Team runs of one session: both wired from the same parts, stats, budget and member context."""

    parts: Components
    tools: ToolSource  # the session's (each turn snapshotted when the session keeps snapshots)
    stats: LoopStats
    budget: Callable[[], AgentBudget]
    on_completed: Callable[[str], None] | None
    member_context: Callable[[], ContextPort]  # SessionFactory.compaction for this model
    _plan_settings: PlanSettings | None = field(init=False, default=None)

    def _shared(self) -> tuple[LLMClient, ToolSource]:
        """What every task and member of a run calls: this session's model and tools."""
        return self.parts.llm, self.tools

    def _per_member(self) -> tuple[Callable[[], ContextPort], Callable[[], AgentBudget], LoopStats]:
        """Each task or member gets its own compaction manager and budget; stats are the session's."""
        return self.member_context, self.budget, self.stats

    def plan_agent(self, policy_text: str) -> PlanExecuteAgent:
        from paicli.agent.plan.agent import PlanExecuteAgent
        from paicli.agent.plan.task import TaskEnv

        parts = self.parts
        prompts = loaded(parts.plan_prompts, NO_PLAN_PROMPTS)
        (llm, tools), (context, budget, stats) = self._shared(), self._per_member()
        tokens = parts.profile.memory_context_tokens
        env = TaskEnv(
            llm, tools, prompts, parts.ledger, parts.memory, tokens, context, budget, stats, policy_text
        )
        if self._plan_settings is None:
            self._plan_settings = plan_settings(parts)
        return PlanExecuteAgent(env, self._plan_settings, self.on_completed)

    def team_agent(self, policy_text: str) -> TeamAgent:
        from paicli.agent.team.agent import TeamAgent, TeamEnv

        prompts = loaded(self.parts.team_prompts, NO_TEAM_PROMPTS)
        (llm, tools), (context, budget, stats) = self._shared(), self._per_member()
        env = TeamEnv(llm, tools, prompts, self.parts.ledger, context, budget, stats, policy_text)
        return TeamAgent(env, self.on_completed)

    # ---- runs ----------------------------------------------------------------------------------------

    def run(self, mode: str, text: str, submitted: str, emit: EventSink, cancel: CancelToken) -> RunFinished:
        """A whole plan or team run: the one place an orchestrated run starts and finishes."""
        if mode == "team":
            return self.team_agent(submitted).run(text, emit, cancel, submitted)
        return self.plan_agent(submitted).run(text, emit, cancel, submitted)

    def create(
        self, text: str, submitted: str, emit: EventSink, cancel: CancelToken
    ) -> PlanDraft | RunFinished:
        return self.plan_agent(submitted).create(text, emit, cancel, submitted)

    def revise(
        self, draft: PlanDraft, supplement: str, emit: EventSink, cancel: CancelToken
    ) -> PlanDraft | RunFinished:
        return self.plan_agent(draft.submitted).revise(draft, supplement, emit, cancel)

    def execute(self, draft: PlanDraft, emit: EventSink, cancel: CancelToken) -> RunFinished:
        return self.plan_agent(draft.submitted).execute(draft, emit, cancel)

    def cancel(self, draft: PlanDraft) -> RunFinished:
        return self.plan_agent(draft.submitted).cancel_draft(draft)

    # ---- interrupted runs ----------------------------------------------------------------------------

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
        run = orchestrated(found.mode)
        return (
            f"📋 上次有一个没有执行完的{run.what}：{plan.goal.splitlines()[0][:60]}"
            f"（{len(found.completed)}/{len(plan.tasks)} 个{run.unit}已完成）"
        )

    def continue_interrupted(
        self, found: InterruptedPlan | None, emit: EventSink, cancel: CancelToken
    ) -> RunFinished:
        if found is None:
            return RunFinished("error", "", "没有找到未完成的计划。")
        goal, run = found.progress.plan.goal, orchestrated(found.mode)
        emit(Notice(f"⏩ 继续未完成的{run.what}：跳过 {len(found.completed)} 个已完成的{run.unit}"))
        if found.mode == "team":
            return self.team_agent(goal).resume(found, emit, cancel)
        return self.plan_agent(goal).resume(found, emit, cancel)
