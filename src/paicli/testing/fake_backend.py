"""A `Session` that records calls and replays scripted events (tests of the REPL front end)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from paicli.agent.events import AgentEvent, EventSink, RunFinished, TextDelta
from paicli.cancel import CancelToken
from paicli.cli.backend import (
    BannerInfo,
    CommandReply,
    NoticeListener,
    RunMode,
    SessionSummary,
    StatusSnapshot,
)
from paicli.cli.models import ModelChoice

if TYPE_CHECKING:
    from paicli.agent.plan.agent import PlanDraft
    from paicli.cli.compaction_commands import CompactionControls
    from paicli.cli.snapshot_commands import SnapshotCommands

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
    modes: tuple[RunMode, ...] = ("react", "plan", "team")
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    notice_listener: NoticeListener | None = None
    snapshots: SnapshotCommands | None = None
    compaction_controls: CompactionControls | None = None
    memory_listener: Callable[[list[str]], None] | None = None
    default: RunMode = "react"  # what a plain input runs as
    interrupted: str | None = None  # an interrupted plan to offer after /resume
    conversation: bool = False

    def info(self) -> BannerInfo:
        return BannerInfo(
            "9.9.9", self.model_name, "fakeprov", 128_000, "session-1-abc", self.project_root, "auto"
        )

    def status(self) -> StatusSnapshot:
        return StatusSnapshot(self.model_name, 12_300, 128_000, 45_100, 3_200, 30_000, "auto")

    def run(self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        self.calls.append(("run", (text, mode)))
        script = self.scripts.pop(0) if self.scripts else streamed(f"echo: {text}")
        return script(text, mode, emit, cancel)

    def _reply(self, name: str, args: Any, text: str) -> CommandReply:
        self.calls.append((name, args))
        return CommandReply(text)

    def clear(self) -> CommandReply:
        return self._reply("clear", None, "🗑️ 对话历史已清空")

    def compact(self, focus: str | None, emit: EventSink, cancel: CancelToken | None = None) -> CommandReply:
        return self._reply("compact", focus, "📦 上下文已压缩: 1,000 -> 200 tokens")

    def context_report(self) -> CommandReply:
        return self._reply("context", None, "📊 Context Usage")

    def memory(self, args: str) -> CommandReply:
        return self._reply("memory", args, f"memory:{args}")

    def save(self, args: str) -> CommandReply:
        return self._reply("save", args, f"saved:{args}")

    def model_choices(self) -> list[ModelChoice]:
        return [ModelChoice("fakeprov", self.model_name, 128_000, current=True)]

    def model(self, args: str, confirmed: bool = False) -> CommandReply:
        if args:
            self.model_name = args
        return self._reply("model", args, f"🤖 正在使用的模型: {self.model_name}")

    def set_mode(self, args: str) -> CommandReply:
        return self._reply("mode", args, f"模式: {args or 'auto'}")

    def hitl(self, args: str) -> CommandReply:
        return self._reply("hitl", args, f"HITL: {args or 'default'}")

    def policy(self, args: str = "") -> CommandReply:
        return self._reply("policy", args or None, "🛡️ 当前的安全策略：")

    def init_project(self, force: bool, emit: EventSink, cancel: CancelToken) -> CommandReply:
        return self._reply("init", force, "✅ PAI.md 已生成")

    def skill(self, args: str) -> CommandReply:
        return self._reply("skill", args, f"skill:{args}")

    def mcp(self, args: str) -> CommandReply:
        return self._reply("mcp", args, f"mcp:{args}")

    def mcp_mentions(self) -> list[str]:
        return list(self.mentions)

    def config_report(self) -> CommandReply:
        return self._reply("config", None, "⚙️ 当前生效的配置")

    def audit(self, args: str) -> CommandReply:
        return self._reply("audit", args, f"audit:{args}")

    def export(self, args: str) -> CommandReply:
        return self._reply("export", args, f"export:{args}")

    def list_sessions(self, include_hidden: bool = False) -> list[SessionSummary]:
        self.calls.append(("list_sessions", None))
        return [s for s in self.sessions if include_hidden or not s.hidden]

    def resume(self, session_id: str) -> CommandReply:
        return self._reply("resume", session_id, f"✅ 已恢复会话 {session_id}")

    def drain_notices(self) -> list[str]:
        with self._lock:
            drained, self.notices = self.notices, []
        return drained

    def supports_mode(self, mode: RunMode) -> bool:
        return mode in self.modes

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
