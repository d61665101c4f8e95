"""The Team side of the session backend: builds the team orchestrator from the session's parts."""

from __future__ import annotations

from collections.abc import Callable

from paicli.agent.budget import AgentBudget
from paicli.agent.events import EventSink, Notice, RunFinished
from paicli.agent.loop import LoopStats
from paicli.agent.plan.checkpoint import InterruptedPlan
from paicli.agent.ports import ContextPort
from paicli.agent.team.agent import TeamAgent, TeamEnv
from paicli.cancel import CancelToken
from paicli.cli.compose import Components
from paicli.context.manager import AutoCompactionManager
from paicli.tools.disabled import ToolsDisabled

NO_TEAM_PROMPTS = "Team 模式需要的提示词没有加载，无法执行多智能体协作。"


class TeamSession:
    def __init__(
        self,
        parts: Components,
        stats: LoopStats,
        budget: Callable[[], AgentBudget],
        on_completed: Callable[[str], None] | None,
    ) -> None:
        self.parts = parts
        self.stats = stats
        self.budget = budget
        self.on_completed = on_completed

    def _context(self) -> ContextPort:
        parts = self.parts
        return AutoCompactionManager(parts.llm, parts.counter, parts.profile, parts.env)

    def agent(self, policy_text: str) -> TeamAgent:
        """Built per run: /model and /resume may have switched the client or the ledger since the last one."""
        parts = self.parts
        if parts.team_prompts is None:
            raise RuntimeError(NO_TEAM_PROMPTS)
        tools = parts.tools if parts.tools_enabled else ToolsDisabled()
        env = TeamEnv(
            parts.llm,
            tools,
            parts.team_prompts,
            parts.ledger,
            self._context,
            self.budget,
            self.stats,
            policy_text,
        )
        return TeamAgent(env, self.on_completed)

    def run(self, text: str, submitted: str, emit: EventSink, cancel: CancelToken) -> RunFinished:
        return self.agent(submitted).run(text, emit, cancel, submitted)

    def continue_interrupted(
        self, found: InterruptedPlan, emit: EventSink, cancel: CancelToken
    ) -> RunFinished:
        emit(Notice(f"⏩ 继续未完成的团队任务：跳过 {len(found.completed)} 个已完成的步骤"))
        return self.agent(found.progress.plan.goal).resume(found, emit, cancel)
