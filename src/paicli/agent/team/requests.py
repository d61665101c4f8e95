"""Texts the team sends built from the plan's values: a step's input, the retry note and the review request."""

from __future__ import annotations

from collections.abc import Mapping

from paicli.agent.plan.model import NodeState, Plan, PlanTask
from paicli.agent.team.prompts import TeamPrompts

DEPENDENCY_RESULT_CHARS = 500


def _clip(text: str) -> str:
    stripped = text.strip()
    if len(stripped) <= DEPENDENCY_RESULT_CHARS:
        return stripped or "（无输出）"
    return stripped[:DEPENDENCY_RESULT_CHARS] + "..."


def dependency_block(plan: Plan, step: PlanTask, states: Mapping[str, NodeState], urls: list[str]) -> str:
    """Each completed dependency's description and the start of its result, then the URLs its web_search found."""
    lines: list[str] = []
    for dep_id in step.dependencies:
        state = states.get(dep_id, NodeState())
        if state.status != "done":
            continue
        description = plan.task(dep_id).description if dep_id in plan.ids else ""
        lines.append(f"已完成的依赖步骤 [{dep_id}]: {description}\n结果：{_clip(state.result)}\n")
    if urls:
        lines.append("依赖步骤经 web_search 验证的 URL（当前步骤可以抓取）：")
        lines.extend(f"- {url}" for url in urls)
    return "\n".join(lines)


def step_input(
    prompts: TeamPrompts, plan: Plan, step: PlanTask, states: Mapping[str, NodeState], urls: list[str]
) -> str:
    variables = {
        "goal": plan.goal,
        "id": step.id,
        "description": step.description,
        "dependencies": dependency_block(plan, step, states, urls),
    }
    return prompts.template("team-step-input", variables)


def retry_input(prompts: TeamPrompts, context: str, issues: str) -> str:
    return f"{context}\n\n{prompts.template('team-retry', {'issues': issues})}"


def review_request(prompts: TeamPrompts, plan: Plan, step: PlanTask, worker: str, result: str) -> str:
    variables = {
        "goal": plan.goal,
        "id": step.id,
        "description": step.description,
        "worker": worker,
        "result": result.strip() or "（无输出）",
    }
    return prompts.template("team-review-request", variables)
