"""The composition root: builds every collaborator of a session from Settings (nothing at import time)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from paicli import __version__
from paicli.agent.plan.prompts import AssembledPlanPrompts, PlanPrompts
from paicli.agent.team.prompts import AssembledTeamPrompts, TeamPrompts
from paicli.config import knobs
from paicli.config.env import EnvLookup
from paicli.config.settings import Settings
from paicli.context.manager import AutoCompactionManager
from paicli.context.offload import ToolResultOffloader
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.llm.protocol import LLMClient
from paicli.llm.tool_fallback import ToolFallbackClient, ToolSupport
from paicli.memory.guard import ExternalContextTracker
from paicli.memory.manager import MemoryManager
from paicli.memory.project import ProjectMemoryLoader
from paicli.memory.store import LongTermMemory
from paicli.prompt.assembler import AgentPromptBuilder, PromptAssembler, PromptMode
from paicli.prompt.repository import PromptRepository
from paicli.session.ledger import ConversationLedger
from paicli.snapshots.recorder import WorkspaceSnapshots
from paicli.tools.approval import ApprovalState
from paicli.tools.base import Approver
from paicli.tools.runner import ToolRunner
from paicli.tools.skill_load import LoadSkillTool, build_skills
from paicli.tools.skills import SkillCatalog


@dataclass
class Components:
    settings: Settings
    env: EnvLookup
    llm: LLMClient
    counter: TokenCounter
    profile: ContextProfile
    compaction: AutoCompactionManager
    offloader: ToolResultOffloader
    tracker: ExternalContextTracker
    memory: MemoryManager
    approval: ApprovalState
    tools: ToolRunner
    prompt: AgentPromptBuilder
    ledger: ConversationLedger
    skills: SkillCatalog
    tools_enabled: bool = True  # False: the model has no native tool calling (turned off by a setting)
    plan_prompts: PlanPrompts | None = None
    team_prompts: TeamPrompts | None = None
    tool_support: ToolSupport | None = (
        None  # models found at run time to reject `tools` (llm/tool_fallback.py)
    )
    snapshots: WorkspaceSnapshots | None = None  # workspace snapshots before each turn's first change


def build_llm(settings: Settings, tool_support: ToolSupport | None = None) -> LLMClient:
    from paicli.llm.client import client_from_settings

    client = client_from_settings(settings)
    return client if tool_support is None else ToolFallbackClient(client, tool_support)


def memory_dir(env: EnvLookup, home: Path) -> Path:
    configured = knobs.MEMORY_DIR.read(env)
    return Path(configured).expanduser() if configured else home / "memory"


def known_secrets(settings: Settings, env: EnvLookup) -> list[str]:
    """Every configured key, so the ledger can redact each exactly, whichever provider /model switches to."""
    from paicli.config.providers import PROVIDERS

    names = {name for spec in PROVIDERS for name in spec.key_envs}
    values = {settings.api_key or ""} | {env.get(name) or "" for name in names}
    return sorted(v for v in values if len(v) >= 8)


def open_ledger(
    settings: Settings, resume_path: Path | None, notices: list[str], env: EnvLookup | None = None
) -> ConversationLedger:
    secrets = known_secrets(settings, env or EnvLookup())
    if resume_path is not None:
        ledger = ConversationLedger.open_existing(resume_path, secrets=secrets, on_error=notices.append)
    else:
        ledger = ConversationLedger.create(
            settings.paicli_home,
            settings.project_root,
            settings.model,
            settings.provider,
            __version__,
            secrets=secrets,
            on_error=notices.append,
        )
    if not ledger.claim():  # lost a race with another process after the launch check
        notices.append(f"⚠️ 会话 {ledger.session_id} 同时被另一个 paicli 进程打开，两边的记录可能交错。")
    return ledger


def build_components(
    settings: Settings,
    env: EnvLookup,
    approver: Approver,
    *,
    yes: bool = False,
    llm: LLMClient | None = None,
    resume_path: Path | None = None,
    notices: list[str] | None = None,
) -> Components:
    sink = notices if notices is not None else []
    root = settings.project_root
    repository = PromptRepository(root, settings.paicli_home)
    assembler = PromptAssembler(repository, env)
    tool_support = ToolSupport(assembler.tools_disabled, sink.append)
    client = llm if llm is not None else build_llm(settings, tool_support)
    profile = ContextProfile.from_window(settings.context_window, settings.cache_mode)
    counter = TokenCounter.from_env(env, settings.model)
    compaction = AutoCompactionManager(client, counter, profile, env)
    offloader = ToolResultOffloader(root, env, context_trigger_tokens=profile.compression_trigger_tokens)
    compaction.offloader = offloader  # unseen results too big for the window are offloaded, never cleared
    tracker = ExternalContextTracker(env)
    store = LongTermMemory(memory_dir(env, settings.paicli_home), env)
    memory = MemoryManager(store, root, env, tracker=tracker)
    approval = ApprovalState("ask" if settings.approval_mode == "ask" else "auto", yes=yes)
    tools = ToolRunner(root, approver, offloader, tracker, env, memory.save_memory_tool, approval)
    loader = ProjectMemoryLoader(root, settings.paicli_home)
    skills = build_skills(settings.paicli_home, root, repository, sink)
    tools.register(LoadSkillTool.tool(skills, env))
    tools_enabled = knobs.TOOLS_ENABLED.read(env)
    prompt = AgentPromptBuilder(assembler, PromptMode.AGENT, loader.load, skills.index_text, tools_enabled)
    ledger = open_ledger(settings, resume_path, sink, env)
    plan_prompts = AssembledPlanPrompts(
        assembler, repository.load, loader.load, skills.index_text, tools_enabled
    )
    team_prompts = AssembledTeamPrompts(
        assembler, repository.load, loader.load, skills.index_text, tools_enabled
    )
    parts = Components(
        settings,
        env,
        client,
        counter,
        profile,
        compaction,
        offloader,
        tracker,
        memory,
        approval,
        tools,
        prompt,
        ledger,
        skills=skills,
        tools_enabled=tools_enabled,
        plan_prompts=plan_prompts,
        team_prompts=team_prompts,
        tool_support=tool_support,
    )
    from paicli.cli.snapshot_commands import attach_snapshots

    parts.snapshots = attach_snapshots(parts)
    return parts
