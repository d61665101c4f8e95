"""The team planner's reply -> a validated Plan of steps (pure). Strict: any violation rejects the whole plan."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from paicli.agent.plan.model import Plan
from paicli.agent.plan.parse import PlanParseError, extract_json, validated_plan


class _RawStep(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str = Field(min_length=1)
    description: str = Field(min_length=1)
    type: str = "ANALYSIS"  # the team prompt asks for it; a plan without it is still a plan of analysis steps
    dependencies: list[str] = Field(default_factory=list)


class _RawTeamPlan(BaseModel):
    model_config = ConfigDict(extra="ignore")

    summary: str = ""
    steps: list[_RawStep]


def _raw_team_plan(data: Any) -> _RawTeamPlan:
    if not isinstance(data, dict):
        raise PlanParseError("团队计划必须是一个 JSON 对象，包含 steps 数组")
    try:
        return _RawTeamPlan.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise PlanParseError(f"计划字段不合法（{where}）：{first['msg']}") from None


def parse_team_plan(text: str, goal: str) -> Plan:
    """Unique ids, known types, known dependencies, no cycles (PlanParseError says which rule broke)."""
    raw = _raw_team_plan(extract_json(text))
    return validated_plan(raw.steps, goal, raw.summary)
