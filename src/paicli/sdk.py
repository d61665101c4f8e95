"""paicli from Python: run a prompt, iterate typed events, answer approvals, resume a session.

The same session the CLI runs (`paicli.cli.headless`, the `-p` core), in this process; no HTTP. See the README's
"Python SDK" section for examples.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from paicli.agent.events import (
    AgentEvent,
    Compacted,
    ModelCallFinished,
    ModelCallStarted,
    Notice,
    ReasoningDelta,
    RunFinished,
    TextDelta,
    ToolFinished,
    ToolStarted,
)
from paicli.cancel import CancelToken
from paicli.cli.approval_desk import ApprovalPolicy, ApprovalRequested
from paicli.cli.headless import HeadlessOptions, HeadlessSession, SessionBusy, UnknownSession
from paicli.cli.oneshot import event_to_json
from paicli.config.env import ConfigError, EnvLookup
from paicli.config.modes import RunMode
from paicli.llm.protocol import LLMClient
from paicli.tools.base import ApprovalDecision

__all__ = [
    "AgentEvent",
    "ApprovalRequested",
    "Compacted",
    "ConfigError",
    "Event",
    "ModelCallFinished",
    "ModelCallStarted",
    "Notice",
    "ReasoningDelta",
    "Result",
    "Session",
    "SessionBusy",
    "TextDelta",
    "ToolFinished",
    "ToolStarted",
    "UnknownSession",
    "Usage",
    "event_json",
    "run",
]


@dataclass(frozen=True)
class Usage:
    input_tokens: int
    output_tokens: int
    cached_input_tokens: int


@dataclass(frozen=True)
class Result:
    """How a run ended: the fields of `paicli -p --output-format json`'s result record."""

    status: str  # done / partial / cancelled / error
    result: str  # the answer, or the error
    session_id: str
    is_error: bool
    num_turns: int
    usage: Usage
    truncated: bool = False
    files_changed: tuple[str, ...] = ()

    @classmethod
    def of(cls, status: str, record: Mapping[str, Any]) -> Result:
        usage = record["usage"]
        return cls(
            status,
            record["result"],
            record["session_id"],
            record["is_error"],
            record["num_turns"],
            Usage(usage["input_tokens"], usage["output_tokens"], usage["cached_input_tokens"]),
            record.get("truncated", False),
            tuple(record.get("files_changed", ())),
        )


Event = AgentEvent | ApprovalRequested | Result


def event_json(event: Event) -> dict[str, Any]:
    """The event as one line of `--output-format stream-json` (an approval request as `approval_request`)."""
    if isinstance(event, ApprovalRequested):
        return {
            "type": "approval_request",
            "approval_id": event.approval_id,
            "tool": event.tool,
            "summary": event.summary,
            "reason": event.reason,
            "preview": event.preview,
        }
    if isinstance(event, Result):
        return {
            "type": "result",
            "status": event.status,
            "is_error": event.is_error,
            "result": event.result,
            "session_id": event.session_id,
            "num_turns": event.num_turns,
            "usage": vars(event.usage),
            "truncated": event.truncated,
            "files_changed": list(event.files_changed),
        }
    return event_to_json(event)


class Session:
    """One paicli session of the project `cwd`. `approvals`: "deny" (the default: like `-p` without --yes),
    "approve" (like --yes) or "ask" (each request arrives as an `ApprovalRequested` event; answer it with
    `answer`). `session_id` resumes an earlier session (also one the REPL or `-p` wrote)."""

    def __init__(
        self,
        *,
        cwd: str | Path | None = None,
        environ: Mapping[str, str] | None = None,
        session_id: str | None = None,
        approvals: ApprovalPolicy = "deny",
        model: str | None = None,
        max_turns: int | None = None,
        trust_project: bool = False,
        llm: LLMClient | None = None,
    ) -> None:
        root = Path(cwd).resolve() if cwd is not None else Path.cwd()
        env = EnvLookup(environ=None if environ is None else dict(environ), cwd=root)  # None: the process's
        options = HeadlessOptions(approvals, model, max_turns, trust_project)
        self._core = HeadlessSession.open(env, cwd=root, session_id=session_id, options=options, llm=llm)
        self._cancel: CancelToken | None = None

    @property
    def id(self) -> str:
        return self._core.session_id

    def events(self, prompt: str, mode: RunMode = "react") -> Iterator[Event]:
        """Run `prompt`, yielding its events as they happen; the last one is the `Result`. Leaving the loop
        early cancels the run."""
        cancel = CancelToken()
        self._cancel = cancel
        events: queue.Queue[Event | None] = queue.Queue()  # None: the run is over
        outcome: dict[str, Any] = {}

        def forward(event: AgentEvent | ApprovalRequested) -> None:
            if not isinstance(event, RunFinished):  # the Result says it, with the figures
                events.put(event)

        def work() -> None:
            try:
                outcome["record"] = self._core.run(prompt, forward, cancel, mode)
            except BaseException as exc:  # handed to the caller's thread below
                outcome["error"] = exc
            finally:
                events.put(None)

        worker = threading.Thread(target=work, name="paicli-sdk-run", daemon=True)
        worker.start()
        try:
            while (event := events.get()) is not None:
                yield event
        finally:
            if worker.is_alive():  # the caller left the loop early
                cancel.cancel()
            worker.join()
            self._cancel = None
        if "error" in outcome:
            raise outcome["error"]
        record = outcome["record"]
        yield Result.of(record["status"], record)

    def run(self, prompt: str, mode: RunMode = "react") -> Result:
        """Run `prompt` to its end (approvals as the session's policy says; under "ask" use `events`)."""
        events = list(self.events(prompt, mode))
        last = events[-1]
        assert isinstance(last, Result)
        return last

    def answer(self, approval_id: str, decision: ApprovalDecision) -> bool:
        """Answer a waiting `ApprovalRequested` ("approve" or "deny"); False when nothing waits under that id."""
        return self._core.answer(approval_id, decision)

    def cancel(self) -> None:
        """Stop the run going on (from another thread, or between events)."""
        if self._cancel is not None:
            self._cancel.cancel()

    def close(self) -> None:
        self._core.close()

    def __enter__(self) -> Session:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def run(prompt: str, **options: Any) -> Result:
    """One prompt in a new session (options as `Session`'s), closed afterwards."""
    with Session(**options) as session:
        return session.run(prompt)
