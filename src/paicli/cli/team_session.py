"""The Team side of the session backend: builds the team orchestrator from the session's parts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from paicli.agent.events import EventSink, Notice, RunFinished
from paicli.cancel import CancelToken
from paicli.cli.orchestrated_session import OrchestratedSession, loaded

if TYPE_CHECKING:  # the team machinery loads with the first team run
    from paicli.agent.plan.checkpoint import InterruptedPlan
    from paicli.agent.team.agent import TeamAgent

NO_TEAM_PROMPTS = "Team 模式需要的提示词没有加载，无法执行多智能体协作。"


class TeamSession(OrchestratedSession):
    def agent(self, policy_text: str) -> TeamAgent:
        from paicli.agent.team.agent import TeamAgent, TeamEnv

        parts = self.parts
        prompts = loaded(parts.team_prompts, NO_TEAM_PROMPTS)
        env = TeamEnv(
            parts.llm,
            self._tools(),
            prompts,
            parts.ledger,
            self._context,
            self.budget,
            self.stats,
            policy_text,
        )
        return TeamAgent(env, self.on_completed)

    def continue_interrupted(
        self, found: InterruptedPlan, emit: EventSink, cancel: CancelToken
    ) -> RunFinished:
        emit(Notice(f"⏩ 继续未完成的团队任务：跳过 {len(found.completed)} 个已完成的步骤"))
        return self.agent(found.progress.plan.goal).resume(found, emit, cancel)
