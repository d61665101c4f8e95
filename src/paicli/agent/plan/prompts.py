"""The plan loop's system prompts (the planner's and each task's) and its templates; the request texts built
from plan values are in plan/requests.py, so building a session never loads the plan values."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from paicli.agent.plan.model import PlanTask


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
