"""Texts the plan loop sends: the planner's and each task's system prompt, task input, repair and replan."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Protocol

from paicli.agent.plan.model import NodeState, Plan, PlanTask


class PlanPrompts(Protocol):
    def planner_system(self) -> str: ...

    def task_system(self, task: PlanTask) -> str: ...

    def template(self, name: str, variables: Mapping[str, str]) -> str:
        """`modes/<name>.md` with `{{var}}` substituted."""
        ...


class AssembledPlanPrompts:
    """PlanPrompts over the PromptAssembler (PAI.md and skills are re-read on every build)."""

    def __init__(
        self,
        assembler: object,
        load: Callable[[str], str],
        project_memory: Callable[[], str],
        skill_index: Callable[[], str] = lambda: "",
        tools_enabled: bool = True,
    ) -> None:
        from paicli.prompt.assembler import PromptAssembler

        assert isinstance(assembler, PromptAssembler)
        self._assembler = assembler
        self._load = load
        self._project_memory = project_memory
        self._skill_index = skill_index
        self._tools_enabled = tools_enabled

    def _build(self, mode_name: str, tools: bool, variables: Mapping[str, str]) -> str:
        from paicli.prompt.assembler import PromptContext, PromptMode

        ctx = PromptContext(
            tools_enabled=tools and self._tools_enabled,
            skill_index=self._skill_index() if tools else "",
            project_memory=self._project_memory(),
            variables=dict(variables),
        )
        return self._assembler.assemble(PromptMode[mode_name], ctx)

    def planner_system(self) -> str:
        return self._build("PLANNER", False, {})

    def task_system(self, task: PlanTask) -> str:
        return self._build("PLAN", True, {"taskType": task.type.value, "taskDescription": task.description})

    def template(self, name: str, variables: Mapping[str, str]) -> str:
        from paicli.prompt.assembler import substitute

        return substitute(self._load(f"modes/{name}.md"), variables).strip()


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
