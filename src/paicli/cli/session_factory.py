"""SessionFactory: the one place a session's model-bound collaborators are built — client, every compaction
manager (the ReAct agent's and each Plan task's and Team member's, all with the offloader), the agent over its
conversation, the Plan/Team wiring and the command-side helpers. `/model` and `/resume` call `build` again with a
frozen `Settings` and the conversation to carry on, instead of patching fields of the running session."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from paicli.agent.budget import AgentBudget
from paicli.agent.conversation import Conversation
from paicli.agent.loop import LoopStats
from paicli.agent.ports import MemoryPort, ToolSource
from paicli.agent.react import AgentOptions, ReactAgent
from paicli.cli import server_window
from paicli.cli.compose import Components, build_llm, lsp_diagnostics
from paicli.cli.orchestrated_session import OrchestratedRuns
from paicli.cli.session_background import SessionBackground
from paicli.cli.session_report import SessionReport
from paicli.cli.session_restore import SessionRestore
from paicli.cli.turn_runner import RunState, TurnRunner
from paicli.cli.vision import model_takes_images
from paicli.config.settings import Settings
from paicli.context.manager import AutoCompactionManager
from paicli.context.memory_view import TurnMemory
from paicli.context.profile import ContextProfile
from paicli.deferred import Deferred
from paicli.llm.metered import MeteredClient
from paicli.llm.protocol import LLMClient
from paicli.llm.spend import SpendMeter
from paicli.session.ledger import ConversationLedger
from paicli.tools.checkpoint import TurnCheckpoint
from paicli.tools.disabled import ToolsDisabled
from paicli.tools.recall_spec import RECALL
from paicli.tools.registry import Tool
from paicli.tools.runner import ToolRunner, TurnToolSet

if TYPE_CHECKING:
    from paicli.tools.recall import RecallTool


def recall_tool(parts: Components) -> Tool:
    """`recall` over this session's ledger (the one /resume switched to, after a /resume)."""
    ledger = parts.ledger
    settings = parts.settings

    def build() -> RecallTool:  # the handler, the session catalog and the search load at the first recall
        from paicli.tools import recall

        return recall.RecallTool(
            settings.paicli_home,
            settings.project_root,
            lambda: (ledger.path, ledger.session_id),
            ledger.redactor.text,
        )

    handler = Deferred(build)
    return Tool(RECALL, lambda args, ctx: handler.get()(args, ctx))


@dataclass(frozen=True)
class SessionCore:
    """What one model over one conversation needs; replaced whole on /model and /resume."""

    parts: Components  # the session's collaborators as this model and this conversation see them
    compaction: AutoCompactionManager  # the ReAct conversation's
    agent: ReactAgent
    runs: OrchestratedRuns
    turns: TurnRunner
    report: SessionReport
    restore: SessionRestore


class SnapshottedTools:
    """The session's tools whose every turn snapshots the workspace before its first change: the checkpoint is
    given to each turn when it is made, never set on the runner."""

    def __init__(self, tools: ToolRunner, checkpoint: TurnCheckpoint) -> None:
        self._tools = tools
        self._checkpoint = checkpoint

    def for_turn(self, submitted_text: str, inherited_urls: Iterable[str] = ()) -> TurnToolSet:
        return self._tools.for_turn(submitted_text, inherited_urls, self._checkpoint)


class SessionFactory:
    def __init__(
        self,
        base: Components,
        background: SessionBackground,
        stats: LoopStats,
        budget: Callable[[], AgentBudget],
        after_turn: Callable[[str], None] | None,
        state: RunState,
        *,
        spend: SpendMeter | None = None,
        checkpoint: TurnCheckpoint | None = None,
    ) -> None:
        """`checkpoint`: the session's workspace snapshots (every turn takes one before its first change)."""
        self.base = base
        self.spend = spend
        self.checkpoint = checkpoint
        self.background = background
        self.stats = stats
        self.budget = budget
        self.after_turn = after_turn
        self.state = state
        self.server_windows: dict[tuple[str, str], int] = {}  # (base URL, model) -> a window a refusal named

    def compaction(
        self, parts: Components, turn_memory: TurnMemory | None = None, *, member: bool = False
    ) -> AutoCompactionManager:
        """Every compaction manager of the session, for its model and window, offloader attached; a Plan or
        Team `member`'s calibrates a counter of its own (`TokenCounter.sibling`)."""
        hooks = parts.tools.hooks  # PreCompact / PostCompact
        summary_hooks = None
        if hooks is not None:
            from paicli.tools.hooks import compaction_hooks  # loaded already: the session has hooks

            summary_hooks = compaction_hooks(hooks, parts.notices.post)
        return AutoCompactionManager(
            parts.counter.sibling() if member else parts.counter,
            self._profile(parts),
            parts.values.compaction,
            offloader=parts.offloader,  # unseen results too big for the window are offloaded, not sent
            turn_memory=turn_memory,  # compaction puts the turn's memories back if it drops them
            summary_model=parts.settings.compaction_model_setting,
            on_server_window=lambda tokens: self._learned(parts.settings, tokens),
            pinned=parts.pins.block,  # values the pin block holds verbatim a summary need not carry again
            summary_hooks=summary_hooks,
            meter=self._metered,  # summaries count in the session's usage
        )

    def _metered(self, llm: LLMClient) -> LLMClient:
        return MeteredClient(llm, self.background.record_usage)

    def _profile(self, parts: Components) -> ContextProfile:
        """The session's profile, or a smaller window a refusal of this endpoint and model named meanwhile."""
        learned = self.server_windows.get((parts.settings.base_url, parts.settings.model))
        if learned is None or learned >= parts.profile.window:
            return parts.profile
        return ContextProfile(learned, parts.profile.cache_mode, parts.profile.trigger)

    def _learned(self, settings: Settings, tokens: int) -> None:
        self.server_windows[(settings.base_url, settings.model)] = tokens
        server_window.learned(settings, tokens)

    def first(self) -> SessionCore:
        """The session as launched: the components' own client (a test may have injected one)."""
        return self._build(self.base.settings, self.base.llm, self.base.ledger, None)

    def build(
        self, settings: Settings, ledger: ConversationLedger, conversation: Conversation | None = None
    ) -> SessionCore:
        """A new client for `settings`, over `conversation` (/model) or a new one on `ledger` (/resume)."""
        settings = server_window.with_server_window(settings)
        llm: LLMClient = build_llm(settings, self.base.tool_support)
        if self.spend is not None:  # the new model's calls are priced like the first one's
            llm = self.spend.client(llm, settings.provider)
        return self._build(settings, llm, ledger, conversation)

    def rebuild(
        self, core: SessionCore, ledger: ConversationLedger, conversation: Conversation
    ) -> SessionCore:
        """The same model and client over `conversation`, now written to `ledger` (/fork)."""
        return self._build(core.parts.settings, core.parts.llm, ledger, conversation)

    def _build(
        self,
        settings: Settings,
        llm: LLMClient,
        ledger: ConversationLedger,
        conversation: Conversation | None,
    ) -> SessionCore:
        trigger = self.base.profile.trigger  # the COMPACTION_TRIGGER setting, read once at start-up
        profile = ContextProfile.from_window(settings.context_window, settings.cache_mode, trigger)
        parts = replace(self.base, settings=settings, llm=llm, profile=profile, ledger=ledger)
        parts.tools.register(recall_tool(parts))  # same spec each build: the tool list stays byte-stable
        turn_memory = TurnMemory(parts.memory) if settings.memory_placement == "turn" else None
        compaction = self.compaction(parts, turn_memory)
        tools = self._tools(parts)
        agent = self._react_agent(parts, tools, compaction, turn_memory, conversation)
        runs = OrchestratedRuns(
            parts,
            tools,
            self.stats,
            self.budget,
            self.after_turn,
            lambda: self.compaction(parts, member=True),
        )
        return SessionCore(
            parts,
            compaction,
            agent,
            runs,
            TurnRunner(parts, agent, runs, self.state, self.checkpoint),
            SessionReport(parts, agent, self.background, compaction, self.spend),
            SessionRestore(parts, self.background.notice),
        )

    def _tools(self, parts: Components) -> ToolSource:
        """What the session's loops call: off, or the runner (each turn snapshotted when snapshots are kept)."""
        if not parts.tools_enabled:
            return ToolsDisabled()
        if self.checkpoint is None:
            return parts.tools
        return SnapshottedTools(parts.tools, self.checkpoint)

    def _react_agent(
        self,
        parts: Components,
        tools: ToolSource,
        compaction: AutoCompactionManager,
        turn_memory: TurnMemory | None,
        conversation: Conversation | None,
    ) -> ReactAgent:
        options = AgentOptions(
            memory_placement=parts.settings.memory_placement,
            memory_tokens=parts.profile.memory_context_tokens,
            budget_factory=self.budget,
            continuations=parts.values.agent.output_continuations,
            images=model_takes_images(parts.settings, parts.values.vision),
            diagnostics=lsp_diagnostics(parts.lsp) if parts.lsp is not None else None,
        )
        memory: MemoryPort = turn_memory if turn_memory is not None else parts.memory
        agent = ReactAgent(
            parts.llm,
            tools,
            parts.prompt,
            context=compaction,
            ledger=parts.ledger,
            memory=memory,
            options=options,
            on_completed=self.after_turn,
            stats=self.stats,
            conversation=conversation,
        )
        if (
            parts.tools.nested is not None
        ):  # a folder file whose note compaction took away is handed out again
            parts.tools.nested.follow(agent.conversation.visible_text)
        return agent
