"""What the REPL and the one-shot runner need from a session (the values it answers with, the small
`SessionPort` the loop uses, the full `Session` command handlers use); cli/session_factory.py builds the real one."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, Protocol

from paicli.agent.events import EventSink, RunFinished
from paicli.cancel import CancelToken

if TYPE_CHECKING:
    from paicli.agent.plan.agent import PlanDraft
    from paicli.cli.compaction_commands import CompactionControls
    from paicli.cli.models import ModelChoice
    from paicli.cli.snapshot_commands import SnapshotCommands

RunMode = Literal["react", "plan", "team"]
NoticeListener = Callable[[], None]


@dataclass(frozen=True)
class BannerInfo:
    version: str
    model: str
    provider: str
    context_window: int
    session_id: str
    project_root: str
    cache_mode: str
    skills: str = ""  # "<enabled>/<total> skills" for the banner
    sandbox: str = ""  # the command sandbox line (SandboxStatus.describe)


@dataclass(frozen=True)
class StatusSnapshot:
    model: str
    context_tokens: int  # messages + tools schema, as /context counts them
    context_window: int
    input_tokens: int  # cumulative over the session
    output_tokens: int
    cached_tokens: int
    mode: str  # session mode label: auto / ask / plan, plus "hitl" when on
    phase: str = "idle"
    model_calls: int = 0
    last_provider_prompt_tokens: int | None = None
    context_source: str = "local"  # "local" estimate or "calibrated" against provider-reported usage

    @property
    def context_percent(self) -> float:
        return 100.0 * self.context_tokens / self.context_window if self.context_window else 0.0

    @property
    def cache_hit_percent(self) -> float:
        return 100.0 * self.cached_tokens / self.input_tokens if self.input_tokens else 0.0


@dataclass(frozen=True)
class SessionSummary:
    session_id: str
    started_at_ms: int
    first_input: str
    turns: int
    model: str
    updated_at_ms: int = 0  # last activity; the picker shows it as a relative time
    hidden: bool = False  # a throwaway session (empty, or one turn that failed): listed only when asked


@dataclass(frozen=True)
class CommandReply:
    text: str
    ok: bool = True
    confirm: str = ""  # a yes/no question: asked at the terminal, the command then runs again confirmed


class SessionPort(Protocol):
    """All the REPL loop and `-p` use of a session (eight methods). Every slash command reaches the wider
    `Session` through its handler in the command table (cli/command_table.py)."""

    def info(self) -> BannerInfo: ...

    def status(self) -> StatusSnapshot: ...

    def run(self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        """Run one top-level task. Never raises for model/tool errors (they end in RunFinished)."""
        ...

    def drain_notices(self) -> list[str]:
        """Lines produced in the background since the last call (e.g. auto-extracted fact counts)."""
        ...

    def set_notice_listener(self, listener: NoticeListener | None) -> None:
        """`listener()` is called, on any thread, after a notice was queued, so the REPL can show it while it
        waits at the prompt (it then calls `drain_notices`)."""
        ...

    def pending_background(self) -> int:
        """Fact extractions still queued or running (the REPL says it is finishing them on exit)."""
        ...

    def has_conversation(self) -> bool:
        """Something worth resuming: the history holds more than the system prompt."""
        ...

    def close(self, timeout: float = 10.0) -> None:
        """Wait (bounded) for background work such as fact extraction, then release resources."""
        ...


class Session(SessionPort, Protocol):
    """The whole session as command handlers see it (cli/command_handlers.py); the REPL loop never calls these."""

    @property
    def snapshots(self) -> SnapshotCommands | None:
        """/snapshot, /restore, /undo; None when the session has no workspace snapshots."""
        ...

    @property
    def compaction_controls(self) -> CompactionControls | None:
        """/pin, /pins, /unpin, /compact show|--preview|undo; None when the session has none."""
        ...

    def supports_mode(self, mode: RunMode) -> bool:
        """Whether `run` can take `mode` (the REPL then refuses /plan or /team up front instead of announcing a
        mode that fails after the user typed the task)."""
        ...

    def default_mode(self) -> RunMode:
        """What a plain input runs as (`/mode plan` makes it a plan)."""
        ...

    def on_memories(self, listener: Callable[[list[str]], None] | None) -> None:
        """`listener(contents)` when long-term memories are injected into the running turn."""
        ...

    def plan_create(self, text: str, emit: EventSink, cancel: CancelToken) -> PlanDraft | RunFinished: ...

    def plan_revise(
        self, draft: PlanDraft, supplement: str, emit: EventSink, cancel: CancelToken
    ) -> PlanDraft | RunFinished: ...

    def plan_execute(self, draft: PlanDraft, emit: EventSink, cancel: CancelToken) -> RunFinished: ...

    def plan_cancel(self, draft: PlanDraft) -> RunFinished: ...

    def interrupted_plan(self) -> str | None:
        """The newest interrupted Plan or Team run, described for the continuation question."""
        ...

    def continue_plan(self, emit: EventSink, cancel: CancelToken) -> RunFinished: ...

    def clear(self) -> CommandReply: ...

    def compact(
        self, focus: str | None, emit: EventSink, cancel: CancelToken | None = None
    ) -> CommandReply: ...

    def context_report(self) -> CommandReply: ...

    def memory(self, args: str) -> CommandReply:
        """`/memory [list|search q|delete id|verify id|replace id fact|clear]` (clear already confirmed)."""
        ...

    def save(self, args: str) -> CommandReply:
        """`/save [--global] [--project] [--force] <fact>`."""
        ...

    def model_choices(self) -> list[ModelChoice]: ...

    def model(self, args: str, confirmed: bool = False) -> CommandReply:
        """`/model` shows, `/model <provider|model|provider/model>` switches; `confirmed`: also to a model the
        provider does not list."""
        ...

    def set_mode(self, args: str) -> CommandReply: ...

    def hitl(self, args: str) -> CommandReply: ...

    def policy(self, args: str = "") -> CommandReply:
        """`/policy` reports the rules and this session's grants; `/policy reset` forgets the grants."""
        ...

    def init_project(self, force: bool, emit: EventSink, cancel: CancelToken) -> CommandReply: ...

    def skill(self, args: str) -> CommandReply:
        """`/skill [list] | show|on|off <name> | reload`."""
        ...

    def mcp(self, args: str) -> CommandReply:
        """`/mcp [restart|logs|disable|enable|resources|prompts <name>]`."""
        ...

    def mcp_mentions(self) -> list[str]:
        """`@server:uri` of every MCP resource, for completion at the prompt."""
        ...

    def config_report(self) -> CommandReply:
        """`/config`: the effective settings and where each came from, secrets masked."""
        ...

    def audit(self, args: str) -> CommandReply:
        """`/audit [N]`: today's last N audit records."""
        ...

    def export(self, args: str) -> CommandReply:
        """`/export [file]`: the current conversation as Markdown."""
        ...

    def list_sessions(self, include_hidden: bool = False) -> list[SessionSummary]:
        """This project's earlier sessions, newest first; throwaway ones only with `include_hidden`."""
        ...

    def resume(self, session_id: str) -> CommandReply: ...
