"""Texts the plan loop sends built from the plan's values: each task's input and the replan request."""

from __future__ import annotations

from collections.abc import Mapping

from paicli.agent.plan.model import NodeState, Plan, PlanTask
from paicli.agent.plan.prompts import PlanPrompts


def dependency_block(plan: Plan, task: PlanTask, states: Mapping[str, NodeState]) -> str:
    if not task.dependencies:
        return "依赖任务：无"
    lines = ["依赖任务结果："]
    for dep_id in task.dependencies:
        state = states.get(dep_id, NodeState())
        description = plan.task(dep_id).description if dep_id in plan.ids else ""
        lines.append(f"- {dep_id} / {description} / 状态={state.status.upper()}")
        lines.append(state.result.strip() or "（无输出）")
    urls = list(dict.fromkeys(url for dep in task.dependencies for url in states.get(dep, NodeState()).urls))
    if urls:
        lines.append("依赖任务经 web_search 找到的 URL（当前任务可以抓取）：")
        lines.extend(f"- {url}" for url in urls)
    return "\n".join(lines)


def task_input(prompts: PlanPrompts, plan: Plan, task: PlanTask, states: Mapping[str, NodeState]) -> str:
    variables = {
        "goal": plan.goal,
        "description": task.description,
        "dependencies": dependency_block(plan, task, states),
    }
    return prompts.template("plan-task-input", variables)


def replan_request(prompts: PlanPrompts, plan: Plan, states: Mapping[str, NodeState]) -> str:
    def lines(status: str) -> str:
        found = [
            f"- [{t.id}] {t.description}（{t.type.value}）：{states[t.id].result.strip()[:500]}"
            for t in plan.tasks
            if t.id in states and states[t.id].status == status
        ]
        return "\n".join(found) or "（无）"

    return prompts.template(
        "planner-replan", {"goal": plan.goal, "completed": lines("done"), "failed": lines("failed")}
    )
