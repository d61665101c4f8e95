"""System prompt assembly (spec 7.1), ordered from most to least stable so provider prefix caches hit.

Order: base, personality, mode, approvals, context management, handoff, ## Skills, ## Runtime Context,
## Pinned (the user's pins, only when there are any), ## Project Context (PAI.md, then long-term memories, then external context). Everything before the
memories is identical from turn to turn within a day, so only the tail changes when memories do.
Without tools the tool sections give way to ## Tool Availability and ## Skills is left out (skills load
through a tool).
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from enum import Enum

from paicli.config.env import ConfigError, process_environ
from paicli.config.values import PromptValues, valid_zone
from paicli.prompt.repository import PromptRepository

LANGUAGE_HEADING = "## Language"
TOOL_SECTIONS = ("## Tools", "## Tool Policy")
SKILLS_TITLE = "Skills"
RUNTIME_HEADING = "## Runtime Context"
_VARIABLE = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_HEADING = re.compile(r"^## ", re.MULTILINE)


class PromptMode(Enum):
    AGENT = "modes/agent.md"
    PLAN = "modes/plan.md"
    PLANNER = "modes/planner.md"
    TEAM_PLANNER = "modes/team-planner.md"
    TEAM_WORKER = "modes/team-worker.md"
    TEAM_REVIEWER = "modes/team-reviewer.md"


@dataclass(frozen=True)
class PromptContext:
    tools_enabled: bool = True
    skill_index: str = ""
    project_memory: str = ""
    memory_context: str = ""
    external_context: str = ""
    variables: Mapping[str, str] = field(default_factory=dict)
    approval_mode: str = "suggest"
    pinned: str = ""  # the user's pins, a whole `## Pinned` block ('' without pins)


def dynamic_section(title: str, *parts: str) -> str:
    kept = [part.strip() for part in parts if part and part.strip()]
    return f"## {title}\n\n" + "\n\n".join(kept) if kept else ""


def substitute(text: str, variables: Mapping[str, str]) -> str:
    """Replace `{{name}}` for every given name; unknown placeholders are left visible."""
    return _VARIABLE.sub(lambda m: variables.get(m.group(1), m.group(0)), text)


def split_sections(text: str) -> list[str]:
    """Split markdown at `## ` headings; a preamble before the first heading is its own chunk."""
    starts = [m.start() for m in _HEADING.finditer(text)]
    bounds = ([0] if not starts or starts[0] != 0 else []) + starts + [len(text)]
    return [text[a:b] for a, b in itertools.pairwise(bounds) if text[a:b].strip()]


def without_tools(base: str, availability: str) -> str:
    """Drop `## Tools` / `## Tool Policy` and put the tool-availability section where they were."""
    kept: list[str] = []
    inserted = False
    for section in split_sections(base):
        heading = section.strip().splitlines()[0].strip()
        if heading in TOOL_SECTIONS:
            if not inserted:
                kept.append(availability.strip())
                inserted = True
            continue
        kept.append(section.strip())
    if not inserted:
        kept.append(availability.strip())
    return "\n\n".join(kept)


def without_skills(prompt: str) -> str:
    """Drop the `## Skills` section of an assembled prompt: its index tells the model to call `load_skill`.

    The section runs up to `## Runtime Context`, which the assembler always puts right after it (the index
    has headings of its own, so the next `## ` is not the end)."""
    runtime = re.search(rf"^{RUNTIME_HEADING}\s*$", prompt, re.MULTILINE)
    if runtime is None:
        return prompt
    head = prompt[: runtime.start()]
    skills = list(re.finditer(rf"^## {SKILLS_TITLE}[ \t]*$", head, re.MULTILINE))
    if not skills:
        return prompt
    return head[: skills[-1].start()] + prompt[runtime.start() :]


def _system_zone_name() -> str:
    configured = process_environ().get("TZ", "").lstrip(":")
    if configured and valid_zone(configured):
        return configured
    try:
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            name = target.split("zoneinfo/", 1)[1]
            if valid_zone(name):
                return name
    except OSError:
        pass
    return "UTC"


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


class PromptAssembler:
    """Builds the system prompt for every loop (ReAct, Plan tasks, Planner, Team roles)."""

    def __init__(
        self,
        repository: PromptRepository,
        values: PromptValues | None = None,
        clock: Callable[[], datetime] = _utc_now,
    ) -> None:
        self._repository = repository
        self._clock = clock
        values = values or PromptValues()  # the settings' defaults
        self._fixed_date = values.runtime_date
        self._zone = values.runtime_zone or _system_zone_name()

    def runtime_context(self) -> str:
        from zoneinfo import ZoneInfo

        today = self._fixed_date or self._clock().astimezone(ZoneInfo(self._zone)).date()
        return f"## Runtime Context\n\n- 当前日期: {today.isoformat()}\n- 当前时区: {self._zone}"

    def assemble(self, mode: PromptMode, ctx: PromptContext | None = None) -> str:
        ctx = ctx or PromptContext()
        load = self._repository.load
        base = load("base.md")
        _require_language(base, "base.md")
        if not ctx.tools_enabled:
            base = without_tools(base, load("tool-availability.md"))
        sections = [
            base,
            load("personalities/calm.md"),
            substitute(load(mode.value), ctx.variables),
            load(f"approvals/{ctx.approval_mode}.md"),
            load("context/context-management.md"),
            load("handoff.md"),
            dynamic_section(SKILLS_TITLE, ctx.skill_index) if ctx.tools_enabled else "",
            self.runtime_context(),
            ctx.pinned,
            dynamic_section("Project Context", ctx.project_memory, ctx.memory_context, ctx.external_context),
        ]
        prompt = "\n\n".join(section.strip() for section in sections if section and section.strip())
        _require_language(prompt, "system prompt")
        return prompt

    def tools_disabled(self, prompt: str) -> str:
        """An assembled prompt for a model that turned out to reject tools: what `assemble` writes with tools
        disabled (no tool sections, no skills index). A prompt without tool sections is left alone."""
        if not any(re.search(rf"^{heading}\s*$", prompt, re.MULTILINE) for heading in TOOL_SECTIONS):
            return prompt
        return without_tools(without_skills(prompt), self._repository.load("tool-availability.md"))


def _require_language(text: str, where: str) -> None:
    if LANGUAGE_HEADING not in text:
        raise ConfigError(f"{where} 缺少 {LANGUAGE_HEADING} 段落：覆盖 base.md 时请保留该段")


class AgentPromptBuilder:
    """`SystemPromptBuilder` for one loop: re-reads PAI.md (and the skill index) on every build."""

    def __init__(
        self,
        assembler: PromptAssembler,
        mode: PromptMode,
        project_memory_loader: Callable[[], str] = lambda: "",
        skill_index_loader: Callable[[], str] = lambda: "",
        tools_enabled: bool = True,
        variables: Mapping[str, str] | None = None,
        external_context_loader: Callable[[], str] = lambda: "",
        pins_loader: Callable[[], str] = lambda: "",
    ) -> None:
        self._assembler = assembler
        self._pins = pins_loader
        self._mode = mode
        self._project_memory = project_memory_loader
        self._skill_index = skill_index_loader
        self._tools_enabled = tools_enabled
        self._variables = dict(variables or {})
        self._external = external_context_loader

    def build(self, memory_context: str = "") -> str:
        ctx = PromptContext(
            tools_enabled=self._tools_enabled,
            skill_index=self._skill_index(),
            project_memory=self._project_memory(),
            memory_context=memory_context,
            external_context=self._external(),
            variables=self._variables,
            pinned=self._pins(),
        )
        return self._assembler.assemble(self._mode, ctx)
