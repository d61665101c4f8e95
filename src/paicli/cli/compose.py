"""The composition root: builds the long-lived collaborators of a session from Settings (nothing at import
time); the model-bound ones (compaction managers, agents) are built by cli/session_factory.py."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from paicli import __version__
from paicli.agent.plan.prompts import AssembledPlanPrompts, PlanPrompts
from paicli.agent.team.prompts import AssembledTeamPrompts, TeamPrompts
from paicli.cli.notices import NoticeBoard, ShownMemories
from paicli.config.env import EnvLookup
from paicli.config.keys import Keys
from paicli.config.parsed import ParsedConfig
from paicli.config.settings import Settings
from paicli.config.sources import ConfigSources
from paicli.config.trust import ProjectTrust
from paicli.config.values import SessionValues
from paicli.context.offload import ToolResultOffloader
from paicli.context.pins import PinBoard
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.deferred import Deferred
from paicli.llm.protocol import LLMClient
from paicli.llm.tool_fallback import ToolFallbackClient, ToolSupport
from paicli.mcp.files import mcp_files_present
from paicli.memory.guard import ExternalContextTracker
from paicli.memory.manager import MemoryManager
from paicli.memory.project import ProjectMemoryLoader
from paicli.memory.store import LongTermMemory
from paicli.prompt.assembler import AgentPromptBuilder, PromptAssembler, PromptMode
from paicli.prompt.instructions import NestedInstructions
from paicli.prompt.repository import PromptRepository
from paicli.redact import Redactor
from paicli.session.ledger import ConversationLedger
from paicli.session.opener import LedgerOpener
from paicli.tools.approval import ApprovalState, start_mode
from paicli.tools.base import Approver
from paicli.tools.browser_specs import browser_tools
from paicli.tools.code_search_spec import index_path, offer_search_code
from paicli.tools.context import ToolContext
from paicli.tools.hook_paths import hooks_files_present
from paicli.tools.registry import Tool
from paicli.tools.rule_book import RuleBook
from paicli.tools.runner import ToolRunner
from paicli.tools.sandbox.status import SANDBOX_OFF_WARNING, SandboxGate
from paicli.tools.schema import Args, ToolOutput
from paicli.tools.skill_load import LoadSkillTool, build_skills
from paicli.tools.skills import SkillCatalog
from paicli.tools.table import ToolTable

if TYPE_CHECKING:
    from paicli.browser.tools import BrowserTools
    from paicli.codeindex.indexer import CodeIndex
    from paicli.codeindex.tool import SearchCodeTool
    from paicli.lsp.session import LspSession
    from paicli.mcp.session import McpSession
    from paicli.tools.hooks import Hooks


@dataclass
class Components:
    settings: Settings
    values: SessionValues  # every setting, parsed once at start-up
    keys: Keys  # every configured key, read when asked (what each file and command masks)
    sources: ConfigSources  # where each setting came from (/config)
    llm: LLMClient
    counter: TokenCounter
    profile: ContextProfile
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
    mcp: McpSession | None = None  # None: no MCP server configured
    browser: Deferred[BrowserTools] | None = None  # the browser tools' handlers, loaded at first use
    pins: PinBoard = field(default_factory=PinBoard)  # /pin: in the ReAct system prompt, in the ledger
    notices: NoticeBoard = field(default_factory=NoticeBoard)  # what every collaborator posts to
    shown_memories: ShownMemories = field(
        default_factory=ShownMemories
    )  # what the memory injects, as it does
    reopen: EnvLookup | None = (
        None  # opens background tasks' sessions as this one was opened (ParsedConfig.lookup)
    )
    trust: ProjectTrust | None = None  # whether the folder's configuration applies (read when used)
    code_index: Deferred[CodeIndex] | None = None  # /index, /search, /graph, search_code (first use)
    lsp: Deferred[LspSession] | None = None  # language servers: diagnostics after a write (the first loads)


def build_llm(
    settings: Settings, tool_support: ToolSupport | None = None, *, prewarm: bool = False
) -> LLMClient:
    """The model client for `settings`; `prewarm`: its SDK loads on a side thread from now on (start-up)."""
    from paicli.llm.client import client_from_settings

    client = client_from_settings(settings)
    if prewarm:
        client.prewarm()
    if tool_support is None:
        return client
    from paicli.llm.endpoints import is_local_endpoint

    return ToolFallbackClient(client, tool_support, check_dropped=is_local_endpoint(settings.base_url))


def known_secrets(settings: Settings, keys: Keys) -> list[str]:
    """Every configured key (all providers', every source), so each file redacts them whichever provider
    /model or /resume switches to."""
    return list(keys(settings.api_key))


def open_ledger(
    settings: Settings, resume_path: Path | None, notice: Callable[[str], None], keys: Keys
) -> ConversationLedger:
    opener = LedgerOpener(keys(settings.api_key), notice)
    if resume_path is not None:
        ledger = opener.existing(resume_path)
    else:
        ledger = opener.create(
            settings.paicli_home, settings.project_root, settings.model, settings.provider, __version__
        )
    if not ledger.claim():  # lost a race with another process after the launch check
        notice(f"⚠️ 会话 {ledger.session_id} 同时被另一个 paicli 进程打开，两边的记录可能交错。")
    return ledger


def build_components(
    settings: Settings,
    config: ParsedConfig,
    approver: Approver,
    *,
    yes: bool = False,
    llm: LLMClient | None = None,
    resume_path: Path | None = None,
    notices: NoticeBoard | None = None,
    project_trusted: bool | ProjectTrust = True,
    prewarm: bool = False,
) -> Components:
    board = notices if notices is not None else NoticeBoard()  # every collaborator posts to it from the start
    root = settings.project_root
    trust = ProjectTrust.of(project_trusted)
    repository = PromptRepository(root, settings.paicli_home, project_trusted=trust)
    values, keys = config.values, config.keys
    assembler = PromptAssembler(repository, values.prompt)
    counter = TokenCounter.configured(values.exact_tokens, settings.model)
    # the dropped-tools check: an estimate first (a healthy server never loads the tokenizer for it), exact below
    estimate = TokenCounter.configured(False, settings.model)
    tool_support = ToolSupport(assembler.tools_disabled, board.post, estimate, counter)
    client = llm if llm is not None else build_llm(settings, tool_support, prewarm=prewarm)
    trigger = values.compaction.trigger
    profile = ContextProfile.from_window(settings.context_window, settings.cache_mode, trigger)
    offloader = build_offloader(settings, values, keys, profile)
    tracker = ExternalContextTracker(guard_enabled=values.external_guard)
    shown = ShownMemories()
    store = LongTermMemory(values.memory.folder(settings.paicli_home), values.memory)
    memory = MemoryManager(
        store,
        root,
        values.memory,
        tracker=tracker,
        auto_extract=values.memory.auto_extract,
        on_notice=board.post,  # the relation judge's second look at a save
        on_injected=shown.show,  # the REPL shows a turn's memories as they go in
    )
    if settings.effort_request_fields is None:  # a set effort the model cannot take: said once
        from paicli.cli.effort_text import effort_line

        board.post(effort_line(settings))
    sandbox = SandboxGate(values.sandbox)
    if sandbox.mode == "off":
        board.post(SANDBOX_OFF_WARNING)
    rules = RuleBook(settings.paicli_home, root, lambda: trust.trusted)  # the project's file: trusted only
    approval = ApprovalState(start_mode(settings.approval_mode), yes=yes, sandbox=sandbox, rules=rules)
    table = ToolTable.builtin(values.tools, memory.save_memory_tool)
    loader = ProjectMemoryLoader(root, settings.paicli_home)
    skills = build_skills(settings.paicli_home, root, repository, board.post, trust)
    table.register(LoadSkillTool.tool(skills, values.skill_body_budget))
    browser = Deferred(lambda: _browser(values, keys))
    for tool in browser_tools(browser.get, values.browser.debug_address):
        table.register(tool)
    tools_enabled = values.tools_enabled
    mcp = start_mcp(settings, config, table, board, trusted=trust.trusted)
    code_index, lsp = code_intelligence(settings, values, keys, board)
    ledger = open_ledger(settings, resume_path, board.post, keys)
    tools = ToolRunner(
        root,
        approver,
        offloader,
        tracker,
        approval_mode=approval,
        values=values.tools,
        keys=keys,
        notices=board.post,  # a memory save refused for want of a person is said (issue 37)
        table=table,
        turn_hooks=(  # MCP listings change between turns; search_code is offered once an index exists
            *((mcp.turn_boundary,) if mcp is not None else ()),
            search_code_offer(settings, code_index, table.register),
        ),
        write_watchers=(  # diagnostics and the index follow every write (the first one loads them)
            lambda path: lsp.get().written(path),
            lambda path: code_index.get().written(path),
        ),
        nested=NestedInstructions(root, loader.loaded_keys),  # folder AGENTS.md etc. join tool results
        hooks=session_hooks(settings, keys, trust, ledger.session_id, board),
    )
    index = mcp.index_text if mcp is not None and profile.mcp_resource_index_enabled else (lambda: "")
    pins = PinBoard()
    prompt, plan_prompts, team_prompts = _mode_prompts(
        assembler, repository, loader, skills, tools_enabled, index, pins
    )
    return Components(
        settings,
        values,
        keys,
        config.sources,
        client,
        counter,
        profile,
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
        mcp=mcp,
        browser=browser,
        pins=pins,
        notices=board,
        shown_memories=shown,
        reopen=config.lookup,
        trust=trust,
        code_index=code_index,
        lsp=lsp,
    )


def code_intelligence(
    settings: Settings, values: SessionValues, keys: Keys, board: NoticeBoard
) -> tuple[Deferred[CodeIndex], Deferred[LspSession]]:
    """The project's code index (search_code offered once it exists) and the session's language servers (told
    of every write); each loads at its first use, and neither reads a file or starts a process before it."""
    limits = values.code.index

    def build_index() -> CodeIndex:
        from paicli.codeindex.indexer import CodeIndex

        return CodeIndex(settings.paicli_home, settings.project_root, limits.max_files, limits.max_file_bytes)

    def build_lsp() -> LspSession:
        from paicli.lsp.session import open_lsp

        return open_lsp(settings.project_root, values.code.lsp, keys, board.post)

    return Deferred(build_index), Deferred(build_lsp)


def search_code_offer(
    settings: Settings, index: Deferred[CodeIndex], register: Callable[[Tool], None]
) -> Callable[[], None]:
    """The turn hook offering search_code once the project has an index on disk; the first search loads it."""

    def build_handler() -> SearchCodeTool:
        from paicli.codeindex.tool import search_handler

        return search_handler(index)

    handler = Deferred(build_handler)
    stored = index_path(settings.paicli_home, settings.project_root)

    def indexed() -> bool:
        return stored.is_file()

    def search(args: Args, ctx: ToolContext) -> ToolOutput:
        return handler.get()(args, ctx)

    return offer_search_code(indexed, search, register)


def session_hooks(
    settings: Settings, keys: Keys, trust: ProjectTrust, session_id: str, board: NoticeBoard
) -> Hooks | None:
    """hooks.json (the user's; a trusted project's too); None when nothing is configured. SessionStart runs here."""
    if not hooks_files_present(settings.paicli_home, settings.project_root, trust.trusted):
        return None
    from paicli.tools.hooks import Hooks, load_hooks

    config = load_hooks(settings.paicli_home, settings.project_root, trust.trusted)
    board.extend(f"⚠️ {problem}" for problem in config.problems)
    if not config.commands:
        return None
    hooks = Hooks(config, settings.project_root, session_id, keys)
    started = hooks.run("SessionStart", {"source": "startup"})
    board.extend(started.failures)
    return hooks


def build_offloader(
    settings: Settings, values: SessionValues, keys: Keys, profile: ContextProfile
) -> ToolResultOffloader:
    """Where results too big for the window go (one per session: its files outlive a /model switch)."""
    return ToolResultOffloader(
        settings.project_root,
        values.offload,
        context_trigger_tokens=profile.compression_trigger_tokens,
        redact=Redactor(known_secrets(settings, keys)).text,
    )


def _mode_prompts(
    assembler: PromptAssembler,
    repository: PromptRepository,
    loader: ProjectMemoryLoader,
    skills: SkillCatalog,
    tools_enabled: bool,
    index: Callable[[], str],
    pins: PinBoard,
) -> tuple[AgentPromptBuilder, PlanPrompts, TeamPrompts]:
    """The system prompts of ReAct, Plan and Team, over the same prompt files, PAI.md and skill index;
    the user's pins go into the ReAct conversation's (the one that is compacted across turns)."""
    prompt = AgentPromptBuilder(
        assembler,
        PromptMode.AGENT,
        loader.load,
        skills.index_text,
        tools_enabled,
        external_context_loader=index,
        pins_loader=pins.block,
    )
    plan = AssembledPlanPrompts(assembler, repository.load, loader.load, skills.index_text, tools_enabled)
    team = AssembledTeamPrompts(assembler, repository.load, loader.load, skills.index_text, tools_enabled)
    return prompt, plan, team


def start_mcp(
    settings: Settings, config: ParsedConfig, tools: ToolTable, notices: NoticeBoard, *, trusted: bool
) -> McpSession | None:
    """The configured MCP servers, their cached tools registered (None when there are none)."""
    if not mcp_files_present(settings.paicli_home, settings.project_root):
        return None  # no mcp.json anywhere: nothing to read, so its reader (and pydantic model) never loads
    from paicli.mcp.config import load_config

    found = load_config(settings.paicli_home, settings.project_root, config.variables, trusted=trusted)
    session: McpSession | None = None
    if found.servers:  # MCP's client side is loaded only for a server to talk to
        from paicli.mcp.session import McpSession

        session = McpSession(
            found,
            settings.paicli_home,
            tools,
            notices.post,
            timeout=config.values.mcp_timeout,
            secrets=known_secrets(settings, config.keys),  # masked in the servers' logs
        )
    notices.extend(found.notices)  # an untrusted project's mcp.json is named by the trust line
    if session is None or not session.configured:
        return None
    return session  # started by the front end once it is up (AppBackend.set_notice_listener, or launch)


def _browser(values: SessionValues, keys: Keys) -> BrowserTools:
    from paicli.browser.session import build_browser

    return build_browser(values.browser, keys)


def lsp_diagnostics(lsp: Deferred[LspSession]) -> Callable[[], tuple[str, str] | None]:
    """The diagnostics a turn's writes produced, for the loop; none before a write loaded the servers."""

    def note() -> tuple[str, str] | None:
        session = lsp.built
        return None if session is None else session.note()

    return note
