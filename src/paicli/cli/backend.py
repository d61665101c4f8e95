"""What the REPL loop and the one-shot runner need from a session: the values it answers with and the small
`SessionPort`. Command handlers get the whole session (cli/app_backend.py) and call its parts directly."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

from paicli.agent.events import EventSink, RunFinished
from paicli.cancel import CancelToken
from paicli.config.modes import RunMode
from paicli.llm.spend import Spend

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
    # "compact": compaction acts before the next request (the figure is not what will be sent); "manual": it
    # would not fit and automatic compaction is off; "": the history goes as it is
    compaction_due: str = ""
    spend: Spend = field(default_factory=Spend)  # the session's cost so far, over every model call
    elapsed_seconds: int | None = None  # since the session started; None: not measured
    mcp: tuple[int, int] | None = None  # (connected, configured) MCP servers; None: none configured
    skills: tuple[int, int] | None = None  # (enabled, total) skills

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
    title: str = ""  # the name /rename gave it


@dataclass(frozen=True)
class CommandReply:
    text: str
    ok: bool = True
    confirm: str = ""  # a yes/no question: asked at the terminal, the command then runs again confirmed


class SessionPort(Protocol):
    """All the REPL loop and `-p` use of a session. Every slash command reaches the rest of the session
    through its handler in the command table (cli/command_table.py)."""

    def info(self) -> BannerInfo: ...

    def status(self) -> StatusSnapshot: ...

    def run(self, text: str, mode: RunMode, emit: EventSink, cancel: CancelToken) -> RunFinished:
        """Run one top-level task. Never raises for model/tool errors (they end in RunFinished)."""
        ...

    def default_mode(self) -> RunMode:
        """What a plain input runs as (`/mode plan` makes it a plan)."""
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
