"""A session that records calls and replays scripted events (tests of the REPL front end): the `SessionPort`,
plan review and continuation, and `recording_table`, the built-in command table whose handlers that use the
session's parts record the call instead (the real handlers are tested against a real session)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from paicli.agent.events import AgentEvent, EventSink, RunFinished, TextDelta
from paicli.cancel import CancelToken
from paicli.cli.backend import (
    BannerInfo,
    CommandReply,
    NoticeListener,
    SessionSummary,
    StatusSnapshot,
)
from paicli.cli.commands import CommandContext, CommandTable, Handler
from paicli.config.modes import RunMode

if TYPE_CHECKING:
    from paicli.agent.plan.agent import PlanDraft
    from paicli.cli.compaction_controls import CompactionControls
    from paicli.cli.session_snapshots import SnapshotCommands

Script = Callable[[str, RunMode, EventSink, CancelToken], RunFinished]


def streamed(*chunks: str) -> Script:
    """A run that streams `chunks` as text deltas and finishes done."""

    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        for chunk in chunks:
            emit(TextDelta(chunk))
        return RunFinished("done", "".join(chunks))

    return run


def events(*items: AgentEvent, result: RunFinished | None = None) -> Script:
    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        for item in items:
            emit(item)
        return result or RunFinished("done", "")

    return run


def wait_for_cancel(started: threading.Event, timeout: float = 10.0) -> Script:
    """A run that blocks until its token is cancelled (or gives up after `timeout`)."""

    def run(text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        started.set()
        if cancel.wait(timeout):
            return RunFinished("cancelled", "")
        return RunFinished("error", "", "never cancelled")

    return run


@dataclass
class FakeBackend:
    scripts: list[Script] = field(default_factory=list)
    sessions: list[SessionSummary] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    mentions: list[str] = field(default_factory=list)  # MCP resources offered by @ completion
    calls: list[tuple[str, Any]] = field(default_factory=list)
    closed: bool = False
    model_name: str = "fake-model"
    project_root: str = "/tmp/proj"
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    notice_listener: NoticeListener | None = None
    snapshots: SnapshotCommands | None = None
    compaction_controls: CompactionControls | None = None
    memory_listener: Callable[[list[str]], None] | None = None
    default: RunMode = "react"  # what a plain input runs as
    interrupted: str | None = None  # an interrupted plan to offer after /resume
    conversation: bool = False
    session_id: str = "session-1-abc"

    def info(self) -> BannerInfo:
        return BannerInfo(
            "9.9.9", self.model_name, "fakeprov", 128_000, self.session_id, self.project_root, "auto"
        )

    def status(self) -> StatusSnapshot:
        return StatusSnapshot(self.model_name, 12_300, 128_000, 45_100, 3_200, 30_000, "auto")

    def run(self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        self.calls.append(("run", (text, mode)))
        script = self.scripts.pop(0) if self.scripts else streamed(f"echo: {text}")
        return script(text, mode, emit, cancel)

    def mcp_mentions(self) -> list[str]:
        return list(self.mentions)

    @property
    def turns(self) -> FakeBackend:
        """Plan review and continuation, as the real session's turn runner offers them."""
        return self

    def drain_notices(self) -> list[str]:
        with self._lock:
            drained, self.notices = self.notices, []
        return drained

    def default_mode(self) -> RunMode:
        return self.default

    def on_memories(self, listener: Callable[[list[str]], None] | None) -> None:
        self.memory_listener = listener

    def plan_create(self, text: str, emit: EventSink, cancel: CancelToken) -> PlanDraft | RunFinished:
        """No review to show: the plan runs like any task (PlanBackend in test_repl_plan reviews)."""
        return self.run(text, "plan", emit, cancel)

    def plan_revise(
        self, draft: PlanDraft, supplement: str, emit: EventSink, cancel: CancelToken
    ) -> PlanDraft | RunFinished:
        raise AssertionError("FakeBackend never proposes a plan to revise")

    def plan_execute(self, draft: PlanDraft, emit: EventSink, cancel: CancelToken) -> RunFinished:
        raise AssertionError("FakeBackend never proposes a plan to execute")

    def plan_cancel(self, draft: PlanDraft) -> RunFinished:
        raise AssertionError("FakeBackend never proposes a plan to cancel")

    def interrupted_plan(self) -> str | None:
        return self.interrupted

    def continue_plan(self, emit: EventSink, cancel: CancelToken) -> RunFinished:
        return self.run("continue", "plan", emit, cancel)

    def pending_background(self) -> int:
        return 0

    def has_conversation(self) -> bool:
        return self.conversation

    def set_notice_listener(self, listener: NoticeListener | None) -> None:
        self.notice_listener = listener

    def push_notice(self, text: str) -> None:
        """What background work does in the real backend: queue a line, then tell the listener (any thread)."""
        with self._lock:
            self.notices.append(text)
        listener = self.notice_listener
        if listener is not None:
            listener()

    def close(self, timeout: float = 10.0) -> None:
        self.closed = True

    def names(self) -> list[str]:
        return [name for name, _ in self.calls]


# the built-in commands whose handlers use the session's parts (the others use only the REPL)
SESSION_COMMANDS = frozenset(
    {"clear", "compact", "context", "memory", "save", "model", "mode", "hitl", "policy", "skill", "mcp"}
    | {"config", "audit", "export", "resume", "init"}
)


def _recorder(name: str) -> Handler:
    def record(ctx: CommandContext, args: str) -> None:
        session: Any = ctx.session
        session.calls.append((name, args or None))
        ctx.reply(CommandReply(f"已记录 /{name} {args}".rstrip()))

    return record


def recording_table(table: CommandTable | None = None) -> CommandTable:
    """`table` (default: the built-in one) with each session command's handler recording `(name, args or
    None)` on the `FakeBackend` and replying `已记录 /name args`; words, checks and idle-only stay."""
    from paicli.cli.command_table import BUILTIN

    base = table or BUILTIN
    return CommandTable(
        replace(spec, handler=_recorder(spec.name)) if spec.name in SESSION_COMMANDS else spec
        for spec in base.specs
    )
