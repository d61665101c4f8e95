"""AppBackend: the session behind the REPL and `-p`.

It answers the front end's `SessionPort`; command handlers use its parts directly: the model-bound core built
by session_factory (running turns in turn_runner, figures in session_report, earlier sessions in
session_restore), /model (model_switch), snapshots and background extraction with its notices
(session_background)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from paicli import __version__
from paicli.agent.budget import AgentBudget
from paicli.agent.events import EventSink, RunFinished
from paicli.agent.loop import LoopStats
from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.cli.compose import Components
from paicli.cli.session_background import SessionBackground
from paicli.cli.session_factory import SessionFactory
from paicli.cli.session_report import SessionReport
from paicli.cli.snapshot_seam import SnapshotSeam
from paicli.cli.turn_runner import RunState, TurnRunner
from paicli.config.modes import RunMode
from paicli.config.settings import Settings
from paicli.deferred import Deferred
from paicli.llm.spend import PRICES_FILE, SpendMeter
from paicli.memory.pending import PendingExtractions
from paicli.session.ledger import ConversationLedger

if TYPE_CHECKING:
    from paicli.cli.backend import BannerInfo, CommandReply, NoticeListener, StatusSnapshot
    from paicli.cli.compaction_controls import CompactionControls
    from paicli.cli.model_switch import ModelSwitch
    from paicli.cli.session_snapshots import SnapshotCommands
    from paicli.cli.task_store import TaskQueue
    from paicli.llm.pricing import PriceTable


def session_spend(parts: Components) -> SpendMeter:
    """The session's cost meter over the shipped prices and the user's `prices.json`. The table loads at the
    first figure asked for; a user's file is read now, so a notice about it comes at start-up as before."""
    home = parts.settings.paicli_home
    if not (home / PRICES_FILE).exists():
        return SpendMeter(load=lambda: _prices(parts))
    return SpendMeter(_prices(parts))


def _prices(parts: Components) -> PriceTable:
    from paicli.llm.pricing import load_prices

    table, notice = load_prices(parts.settings.paicli_home)
    if notice:
        parts.notices.post(notice)
    return table


def sandbox_line(parts: Components) -> str:
    """The command sandbox line of the banner and /config ("" when the session has no sandbox setting)."""
    gate = parts.approval.sandbox
    return gate.status().describe() if gate is not None else ""


def _pending_extractions(parts: Components) -> PendingExtractions:
    from paicli.cli.compose import known_secrets
    from paicli.redact import Redactor

    def redact(text: str) -> str:  # built only when something is handed over, never at start-up
        return Redactor(known_secrets(parts.settings, parts.keys)).text(text)

    return PendingExtractions(parts.settings.paicli_home, parts.memory.project_key, redact)


class AppBackend:
    """The session behind the REPL and `-p`: the long-lived collaborators (background work, stats, snapshots,
    the /model switch) around a `SessionCore` that only the factory builds, again on /model and /resume."""

    def __init__(
        self,
        parts: Components,
        *,
        max_turns: int | None = None,
        count_context: bool = True,
        prime_snapshots: bool = True,
    ) -> None:
        """`prime_snapshots` off (`-p`): the first snapshot is prepared at the first change, not at start, so a
        one-shot run that writes nothing never hashes the tree."""
        self._count_context = count_context
        agent = parts.values.agent
        self._started = time.monotonic()  # the status bar's elapsed time
        self.spend = session_spend(parts)
        parts = replace(parts, llm=self.spend.client(parts.llm, parts.settings.provider))  # every call priced
        self.background = SessionBackground(
            parts.memory,
            lambda: (self.core.parts.llm, self.core.parts.settings.light_model_setting),
            parts.notices,
            judge=parts.values.memory.judge,
        )
        enabled = parts.memory.auto_extract_enabled  # the setting, given to the memory at construction

        def budget() -> AgentBudget:
            return AgentBudget.configured(
                agent.token_budget, agent.stagnation_window, max_turns or agent.max_iterations
            )

        self.stats = LoopStats()
        self.state = RunState(turn_gate=self.background if enabled else None)  # extraction yields to turns
        after_turn = self.background.after_turn if enabled else None
        # /snapshot, /restore, /undo (issue 30): built at their first use; failures are posted as notices
        self._snapshots = SnapshotSeam(parts, lambda: self.core.parts.ledger)
        self.factory = SessionFactory(
            parts,
            self.background,
            self.stats,
            budget,
            after_turn,
            self.state,
            spend=self.spend,
            checkpoint=self._snapshots,  # every core's turns snapshot the workspace before their first change
        )
        self.core = self.factory.first()
        self._models: Deferred[ModelSwitch] = Deferred(
            self._model_switch
        )  # /model: a REPL's, built at first use
        if prime_snapshots:
            self._snapshots.commands().snapshots.start_priming()  # the first snapshot, prepared while one types
        if parts.values.files.retention_days:  # the retention module loads only when there is a limit to keep
            from paicli.cli.session_retention import startup_retention

            startup_retention(parts)
        # what one session could not extract, the next one of this project does
        self._handover = _pending_extractions(parts) if enabled else None
        if self._handover is not None:
            self.background.pick_up(self._handover)
        self._compaction_controls: Deferred[CompactionControls] = Deferred(self._build_compaction_controls)
        self.tasks: TaskQueue | None = None  # /task's background runner (cli/task_commands.py)

    @property
    def snapshots(self) -> SnapshotCommands | None:
        """/snapshot, /restore, /undo, /rewind: the store and its commands load at the first use."""
        return self._snapshots.commands()

    @property
    def models(self) -> ModelSwitch:
        """/model's choices, replies and switch (the model lists and catalog load with it, never on `-p`)."""
        return self._models.get()

    def _model_switch(self) -> ModelSwitch:
        from paicli.cli.model_switch import ModelSwitch

        return ModelSwitch(lambda: self.core.parts, self.switch_model, lambda: self.core.report.cache().short)

    @property
    def compaction_controls(self) -> CompactionControls | None:
        """/pin, /pins, /unpin, /compact show|--preview|undo: a REPL's, built at their first use (never on `-p`)."""
        return self._compaction_controls.get()

    def _build_compaction_controls(self) -> CompactionControls:
        from paicli.cli.compaction_controls import CompactionControls

        return CompactionControls(lambda: self.core)

    def switch_model(self, settings: Settings) -> None:
        """/model: the same conversation, continued by a session built for `settings`."""
        core = self.core
        self.core = self.factory.build(settings, core.parts.ledger, core.agent.conversation)
        if (settings.model, settings.provider) != (core.parts.settings.model, core.parts.settings.provider):
            from paicli.session.model_record import record_model_change  # /model only

            record_model_change(
                core.parts.ledger, settings.model, settings.provider
            )  # /effort keeps the model

    # the current core's collaborators, for the launcher, the benchmarks and tests
    @property
    def parts(self) -> Components:
        return self.core.parts

    @property
    def agent(self) -> ReactAgent:
        return self.core.agent

    @property
    def turns(self) -> TurnRunner:
        return self.core.turns

    @property
    def report(self) -> SessionReport:
        return self.core.report

    def on_memories(self, listener: Callable[[list[str]], None] | None) -> None:
        self.parts.shown_memories.listen(listener)

    @property
    def settings(self) -> Settings:
        return self.parts.settings

    # ---- information ---------------------------------------------------------------------------------

    def info(self) -> BannerInfo:
        from paicli.cli.backend import BannerInfo  # the REPL's value types: a `-p` run shows none of them

        return BannerInfo(
            __version__,
            self.settings.model,
            self.settings.provider,
            self.parts.profile.window,
            self.parts.ledger.session_id,
            str(self.settings.project_root),
            self.parts.profile.cache_mode,
            skills=self.parts.skills.summary(),
            sandbox=sandbox_line(self.parts),
        )

    def status(self) -> StatusSnapshot:
        elapsed = int(time.monotonic() - self._started)
        return self.report.status(self.state.phase, self._count_context, elapsed)

    def has_conversation(self) -> bool:
        """Something worth resuming: the history holds more than the system prompt."""
        return any(message.role != "system" for message in self.agent.history)

    # ---- running ---------------------------------------------------------------------------------

    def default_mode(self) -> RunMode:
        return self.turns.default_mode()

    def run(self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        watched = self._snapshots if self.state.report_changes else None
        mark = watched.taken if watched is not None else 0
        finished = self.turns.run(text, mode, emit, cancel)
        if watched is None:
            return finished
        return replace(finished, files_changed=watched.files_changed_since(mark))

    def mcp_mentions(self) -> list[str]:
        """`@server:uri` of every MCP resource, for completion at the prompt."""
        return self.parts.mcp.mentions() if self.parts.mcp is not None else []

    # ---- earlier sessions ---------------------------------------------------------------------------

    def resume(self, session_id: str) -> CommandReply:
        """/resume: a session rebuilt over the earlier conversation's ledger; this one's ledger is closed
        (and deleted when it holds nothing but its start)."""
        from paicli.cli.backend import CommandReply

        reopened = self.core.restore.reopen(session_id)
        if isinstance(reopened, CommandReply):
            return reopened
        from paicli.session.ownership import discard_if_empty

        discard_if_empty(self.core.parts.ledger)  # a session left before anything was said leaves no file
        self.core = self.factory.build(reopened.settings, reopened.ledger)
        return self.core.restore.resumed(self.core.agent, reopened)

    def continue_in(self, ledger: ConversationLedger) -> None:
        """/fork: the same conversation and model, written from now on to `ledger` (a copy of this one's)."""
        core = self.core
        conversation = core.agent.conversation
        conversation.move_to(ledger)
        core.parts.ledger.close()
        self.core = self.factory.rebuild(core, ledger, conversation)

    def restore_opened_session(self) -> CommandReply:
        return self.core.restore.restore_opened(self.core.agent)

    # ---- background work and shutdown --------------------------------------------------------------

    def set_notice_listener(self, listener: NoticeListener | None) -> None:
        self.parts.notices.set_listener(listener)
        if listener is not None and self.parts.mcp is not None:
            # the REPL is up: servers start now, so their start-up never competes with drawing the prompt
            self.parts.mcp.start()

    def drain_notices(self) -> list[str]:
        return self.parts.notices.drain()

    def pending_background(self) -> int:
        """Fact extractions still queued or running (the REPL says it is finishing them on exit)."""
        return self.background.pending

    def close(self, timeout: float = 10.0) -> None:
        if self.tasks is not None:  # a task still running is recorded as interrupted
            self.tasks.stop(timeout)
        if self.parts.mcp is not None:
            self.parts.mcp.close()
        # each loads at its first use: one never loaded has nothing to close (no language server outlives us)
        if self.parts.lsp is not None and self.parts.lsp.built is not None:
            self.parts.lsp.built.close()
        if self.parts.code_index is not None and self.parts.code_index.built is not None:
            self.parts.code_index.built.close()
        if self.parts.browser is not None and self.parts.browser.built is not None:
            self.parts.browser.built.driver.close()
        snapshots = self._snapshots.built  # never loaded: nothing to close, nothing restored
        if snapshots is not None:
            snapshots.snapshots.close()
            note = snapshots.snapshots.take_note()
            if note:  # files restored after the last turn: the ledger keeps the note for a resume
                self.agent.note_workspace(note)
        self.background.wait(timeout)
        if self._handover is not None:
            self.background.hand_over(self._handover)
        self.parts.memory.flush_index(timeout)
        self.parts.ledger.close()
