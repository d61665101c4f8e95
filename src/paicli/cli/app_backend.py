"""AppBackend: the real `Session` behind the REPL and `-p`.

It answers the front end; the work lives beside it: the model-bound core built by session_factory (running
turns in turn_runner, figures in session_report, earlier sessions in session_restore), /model (model_switch)
and background extraction with its notices (session_background)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from paicli import __version__
from paicli.agent.budget import AgentBudget
from paicli.agent.events import Compacted, EventSink, RunFinished
from paicli.agent.loop import LoopStats
from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.cli import session_commands
from paicli.cli.backend import (
    BannerInfo,
    CommandReply,
    NoticeListener,
    RunMode,
    SessionSummary,
    StatusSnapshot,
)
from paicli.cli.compaction_commands import CompactionControls
from paicli.cli.compose import Components
from paicli.cli.model_switch import ModelSwitch
from paicli.cli.models import ModelChoice
from paicli.cli.receipt_view import pins_text
from paicli.cli.session_background import SessionBackground
from paicli.cli.session_factory import SessionFactory
from paicli.cli.session_report import SessionReport
from paicli.cli.turn_runner import RunState, TurnRunner
from paicli.config import knobs
from paicli.config.settings import Settings
from paicli.session.ledger import ConversationLedger

if TYPE_CHECKING:
    from paicli.agent.plan.agent import PlanDraft
    from paicli.cli.snapshot_commands import SnapshotCommands


def _snapshot_commands(
    parts: Components, notice: Callable[[str], None], ledger: Callable[[], ConversationLedger]
) -> SnapshotCommands | None:
    """/snapshot, /restore, /undo (issue 30); snapshot failures are said like other background notices."""
    from paicli.cli.snapshot_commands import SnapshotCommands, attach_snapshots

    snapshots = attach_snapshots(parts, ledger)
    snapshots.notify = notice
    return SnapshotCommands(snapshots, lambda: parts.approval.yes)


class AppBackend:
    """The session behind the REPL and `-p`: the long-lived collaborators (background work, stats, snapshots)
    around a `SessionCore` that only the factory builds, again on /model and /resume."""

    def __init__(
        self,
        parts: Components,
        *,
        max_turns: int | None = None,
        auto_extract: bool | None = None,
        notices: list[str] | None = None,
        count_context: bool = True,
    ) -> None:
        self._count_context = count_context
        env = parts.env
        self.background = SessionBackground(
            parts.memory,
            parts.llm,
            env,
            notices if notices is not None else [],
            parts.settings.light_model_setting,
        )
        if parts.tool_support is not None:  # "this model cannot use tools" is said once, like other notices
            parts.tool_support.notify = self.background.notice
        if parts.mcp is not None:
            parts.mcp.notify_target = self.background.notice
        enabled = knobs.MEMORY_AUTO_EXTRACT_ENABLED.read(env) if auto_extract is None else auto_extract
        parts.memory.auto_extract_enabled = enabled

        def budget() -> AgentBudget:
            return AgentBudget.configured(
                knobs.REACT_TOKEN_BUDGET.read(env),
                knobs.REACT_STAGNATION_WINDOW.read(env),
                max_turns or knobs.REACT_HARD_MAX_ITERATIONS.read(env),
            )

        self.stats = LoopStats()
        self.state = RunState()
        after_turn = self.background.after_turn if enabled else None
        self.factory = SessionFactory(parts, self.background, self.stats, budget, after_turn, self.state)
        self.core = self.factory.first()
        self.models = ModelSwitch(
            lambda: self.core.parts, self._switch_model, lambda: self.core.report.cache().short
        )
        self._snapshots = _snapshot_commands(parts, self.background.notice, lambda: self.core.parts.ledger)
        self._compaction_controls = CompactionControls(lambda: self.core)

    def _switch_model(self, settings: Settings) -> None:
        """/model: the same conversation, continued by a session built for `settings`."""
        core = self.core
        self.core = self.factory.build(settings, core.parts.ledger, core.agent.conversation)

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

    @property
    def snapshots(self) -> SnapshotCommands | None:
        return self._snapshots

    @property
    def compaction_controls(self) -> CompactionControls | None:
        return self._compaction_controls

    def on_memories(self, listener: Callable[[list[str]], None] | None) -> None:
        self.parts.memory.on_injected = listener

    @property
    def settings(self) -> Settings:
        return self.parts.settings

    # ---- Backend: information ----------------------------------------------------------------------

    def info(self) -> BannerInfo:
        return BannerInfo(
            __version__,
            self.settings.model,
            self.settings.provider,
            self.parts.profile.window,
            self.parts.ledger.session_id,
            str(self.settings.project_root),
            self.parts.profile.cache_mode,
            skills=self.parts.skills.summary(),
            sandbox=self._sandbox_line(),
        )

    def _sandbox_line(self) -> str:
        gate = self.parts.approval.sandbox
        return gate.status().describe() if gate is not None else ""

    def status(self) -> StatusSnapshot:
        return self.report.status(self.state.phase, self._count_context)

    def has_conversation(self) -> bool:
        """Something worth resuming: the history holds more than the system prompt."""
        return any(message.role != "system" for message in self.agent.history)

    # ---- Backend: running --------------------------------------------------------------------------

    def supports_mode(self, mode: RunMode) -> bool:
        return self.turns.supports_mode(mode)

    def default_mode(self) -> RunMode:
        return self.turns.default_mode()

    def run(self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        return self.turns.run(text, mode, emit, cancel)

    def plan_create(self, text: str, emit: EventSink, cancel: CancelToken) -> PlanDraft | RunFinished:
        return self.turns.plan_create(text, emit, cancel)

    def plan_revise(
        self, draft: PlanDraft, supplement: str, emit: EventSink, cancel: CancelToken
    ) -> PlanDraft | RunFinished:
        return self.turns.plan_revise(draft, supplement, emit, cancel)

    def plan_execute(self, draft: PlanDraft, emit: EventSink, cancel: CancelToken) -> RunFinished:
        return self.turns.plan_execute(draft, emit, cancel)

    def plan_cancel(self, draft: PlanDraft) -> RunFinished:
        return self.turns.plan_cancel(draft)

    def interrupted_plan(self) -> str | None:
        return self.turns.interrupted_plan()

    def continue_plan(self, emit: EventSink, cancel: CancelToken) -> RunFinished:
        return self.turns.continue_plan(emit, cancel)

    # ---- Backend: commands --------------------------------------------------------------------------

    def clear(self) -> CommandReply:
        self.agent.clear()
        self.parts.tools.reset_session()
        return CommandReply("🗑️ 已清空当前对话历史；长期记忆不受影响。")

    def compact(self, focus: str | None, emit: EventSink, cancel: CancelToken | None = None) -> CommandReply:
        self.state.phase = "compacting"
        try:
            result = self.agent.compact_now(focus, cancel)
        finally:
            self.state.phase = "idle"
        if result.error:
            return CommandReply(f"❌ 压缩没有完成: {result.error}", ok=False)
        if not result.steps:
            return CommandReply("📭 对话还很短，暂时没有可以压缩的内容")
        emit(Compacted(result, manual=True))
        schema = self.parts.counter.count_tools(
            self.report.tool_definitions() or None
        )  # as /context counts it
        before, after = result.before_tokens + schema, result.after_tokens + schema
        return CommandReply(
            f"📦 上下文已压缩: {before:,} -> {after:,} tokens（/compact show 看摘要与回执，/compact undo 撤销）"
        )

    def context_report(self) -> CommandReply:
        reply = self.report.context()
        pins = self.parts.pins.items()
        return CommandReply(f"{reply.text}\n\n{pins_text(pins)}", reply.ok) if pins else reply

    def token_usage_line(self) -> str:
        return self.report.token_usage_line()

    def memory(self, args: str) -> CommandReply:
        return self.report.memory(args)

    def save(self, args: str) -> CommandReply:
        from paicli.memory.commands import parse_save_args, run_save

        text = run_save(self.parts.memory, parse_save_args(args))
        return CommandReply(text, ok=not text.startswith("❌"))

    def model_choices(self) -> list[ModelChoice]:
        return self.models.choices()

    def model(self, args: str, confirmed: bool = False) -> CommandReply:
        return self.models.command(args, confirmed)

    def set_mode(self, args: str) -> CommandReply:
        return CommandReply(f"🧭 {self.parts.approval.set_mode(args.strip())}")

    def hitl(self, args: str) -> CommandReply:
        return CommandReply(f"🔒 {self.parts.approval.set_hitl(args.strip())}")

    def policy(self, args: str = "") -> CommandReply:
        if args.strip().lower() == "reset":
            self.parts.approval.clear_grants()
            return CommandReply("🛡️ 已撤销本会话的全部“始终允许”，之后需要确认的操作会照常询问。")
        return CommandReply(self.parts.tools.policy_report())

    def init_project(self, force: bool, emit: EventSink, cancel: CancelToken) -> CommandReply:
        from paicli.memory.project import run_init

        text = run_init(self.settings.project_root, self.parts.llm, "--force" if force else "", cancel)
        return CommandReply(text, ok=not text.startswith("❌"))

    # /skill /config /audit /export: handlers live in cli/session_commands.py
    def skill(self, args: str) -> CommandReply:
        before = self.parts.skills.index_text()
        reply = session_commands.skill_command(self.parts.skills, args)
        if self.parts.skills.index_text() != before:
            self.agent.invalidate_system_prompt()
        return reply

    def mcp(self, args: str) -> CommandReply:
        if self.parts.mcp is None:
            return CommandReply(
                "MCP: 未配置服务器。在 ~/.paicli/mcp.json 或项目的 .paicli/mcp.json 里写 "
                '{"mcpServers": {"名字": {"command": "…", "args": []}}}'
            )
        text = self.parts.mcp.command(args)
        return CommandReply(text, ok=not text.startswith(("用法", "没有名为")))

    def mcp_mentions(self) -> list[str]:
        return self.parts.mcp.mentions() if self.parts.mcp is not None else []

    def config_report(self) -> CommandReply:
        report = session_commands.config_report(self.settings, self.parts.env)
        line = self._sandbox_line()
        return CommandReply(f"{report}\n{line}" if line else report)

    def audit(self, args: str) -> CommandReply:
        return session_commands.audit_command(self.parts.tools.audit, args)

    def export(self, args: str) -> CommandReply:
        return session_commands.export_command(
            list(self.agent.history),
            args,
            home=self.settings.paicli_home,
            project_root=self.settings.project_root,
            session_id=self.parts.ledger.session_id,
            model=self.settings.model,
            redactor=self.parts.ledger.redactor,
        )

    # ---- Backend: earlier sessions ------------------------------------------------------------------

    def list_sessions(self, include_hidden: bool = False) -> list[SessionSummary]:
        return self.core.restore.sessions(include_hidden)

    def resume(self, session_id: str) -> CommandReply:
        """/resume: a session rebuilt over the earlier conversation's ledger; this one's ledger is closed."""
        reopened = self.core.restore.reopen(session_id)
        if isinstance(reopened, CommandReply):
            return reopened
        self.core.parts.ledger.close()
        self.core = self.factory.build(self.parts.settings, reopened.ledger)
        return self.core.restore.resumed(self.core.agent, reopened)

    def restore_opened_session(self) -> CommandReply:
        return self.core.restore.restore_opened(self.core.agent)

    # ---- Backend: background work and shutdown ------------------------------------------------------

    def set_notice_listener(self, listener: NoticeListener | None) -> None:
        self.background.set_listener(listener)
        if listener is not None and self.parts.mcp is not None:
            # the REPL is up: servers start now, so their start-up never competes with drawing the prompt
            self.parts.mcp.start()

    def drain_notices(self) -> list[str]:
        return self.background.drain()

    def pending_background(self) -> int:
        """Fact extractions still queued or running (the REPL says it is finishing them on exit)."""
        return self.background.pending

    def close(self, timeout: float = 10.0) -> None:
        if self.parts.mcp is not None:
            self.parts.mcp.close()
        self.background.wait(timeout)
        self.parts.memory.flush_index(timeout)
        self.parts.ledger.close()
