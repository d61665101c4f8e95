"""Texts the team sends: each role's system prompt and the planning request; the texts built from plan values
(a step's input, the retry note, the review request) are in team/requests.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal, Protocol

from paicli.agent.plan.prompts import AssembledPlanPrompts

Role = Literal["planner", "worker", "reviewer"]
PLANNING_REQUEST = "请为以下任务制定执行计划：\n"
_MODES: dict[Role, tuple[str, bool]] = {  # prompt mode, tools exposed
    "planner": ("TEAM_PLANNER", False),
    "worker": ("TEAM_WORKER", True),
    "reviewer": ("TEAM_REVIEWER", False),
}


class TeamPrompts(Protocol):
    def role_system(self, role: Role) -> str:
        """The role's system prompt: PAI.md (and the skills index) but no retrieved long-term memory."""
        ...

    def template(self, name: str, variables: Mapping[str, str]) -> str:
        """`modes/<name>.md` with `{{var}}` substituted."""
        ...


class AssembledTeamPrompts(AssembledPlanPrompts):
    """TeamPrompts over the PromptAssembler (same sources as the plan prompts)."""

    def role_system(self, role: Role) -> str:
        mode, tools = _MODES[role]
        return self._build(mode, tools, {})


def planning_request(goal: str) -> str:
    return PLANNING_REQUEST + goal
