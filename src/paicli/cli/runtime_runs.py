"""The runs of a Runtime API server (`paicli serve --http`): each on its own thread in its own headless session
(its own ledger and session lock); their events kept for streaming, their outcome for `GET /v1/runs/{id}`."""

from __future__ import annotations

import itertools
import secrets
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paicli.agent.events import CompactionStarted, Preparing, RunFinished, ToolProgress, ToolWaiting
from paicli.cancel import CancelToken
from paicli.cli.approval_desk import ApprovalPolicy, ApprovalRequested
from paicli.cli.headless import HeadlessEvent, HeadlessOptions, HeadlessSession, SessionBusy
from paicli.cli.oneshot import event_to_json
from paicli.config.env import EnvLookup
from paicli.config.modes import RunMode
from paicli.llm.protocol import LLMClient
from paicli.tools.base import ApprovalDecision

RUNNING = "running"
_DISPLAY_ONLY = (ToolProgress, CompactionStarted, Preparing, ToolWaiting, RunFinished)


def approval_json(request: ApprovalRequested) -> dict[str, Any]:
    return {
        "type": "approval_request",
        "approval_id": request.approval_id,
        "tool": request.tool,
        "summary": request.summary,
        "reason": request.reason,
        "preview": request.preview,
    }


def stream_line(event: HeadlessEvent) -> dict[str, Any] | None:
    """The event as `--output-format stream-json` writes it (None: display only, not written there)."""
    if isinstance(event, ApprovalRequested):
        return approval_json(event)
    if isinstance(event, _DISPLAY_ONLY):
        return None
    return event_to_json(event)


@dataclass(frozen=True)
class RunRequest:
    prompt: str
    session_id: str | None = None
    mode: RunMode = "react"
    approvals: ApprovalPolicy = "deny"


class Run:
    """One run: its stream-json lines so far, then its result record."""

    def __init__(self, run_id: str, session: HeadlessSession) -> None:
        self.id = run_id
        self.session = session
        self.session_id = session.session_id
        self.cancel = CancelToken()
        self._changed = threading.Condition()
        self._lines: list[dict[str, Any]] = []
        self._record: dict[str, Any] | None = None

    def add(self, event: HeadlessEvent) -> None:
        line = stream_line(event)
        if line is not None:
            with self._changed:
                self._lines.append(line)
                self._changed.notify_all()

    def finish(self, record: dict[str, Any]) -> None:
        with self._changed:
            self._record = record
            self._changed.notify_all()

    def lines_after(self, seen: int) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The lines after the first `seen`, waiting until there is one or the run is over (then its record)."""
        with self._changed:
            self._changed.wait_for(lambda: len(self._lines) > seen or self._record is not None)
            return self._lines[seen:], self._record

    def wait(self) -> dict[str, Any]:
        with self._changed:
            self._changed.wait_for(lambda: self._record is not None)
            assert self._record is not None
            return self._record

    def view(self) -> dict[str, Any]:
        """`GET /v1/runs/{id}`: the contract's fields, and what waits for an answer."""
        with self._changed:
            record = self._record
        base = {"id": self.id, "session_id": self.session_id}
        if record is None:
            waiting = [approval_json(r) for r in self.session.desk.waiting()]
            return {**base, "status": RUNNING, "result": None, "usage": None, "pending_approvals": waiting}
        return {**base, **record, "pending_approvals": []}

    def answer(self, approval_id: str, decision: ApprovalDecision) -> bool:
        return self.session.answer(approval_id, decision)


class RunRegistry:
    """Starts runs and finds them by id. Sessions are opened here one at a time, so two requests naming the
    same session cannot both claim it; a session with a run going is refused (SessionBusy)."""

    def __init__(self, env_for: Callable[[], EnvLookup], cwd: Path, llm: LLMClient | None = None) -> None:
        self._env_for = env_for
        self._cwd = cwd
        self._llm = llm
        self._lock = threading.Lock()
        self._runs: dict[str, Run] = {}
        self._busy: set[str] = set()
        self._numbers = itertools.count(1)

    def start(self, request: RunRequest) -> Run:
        """Raises UnknownSession, SessionBusy, ConfigError (nothing started then)."""
        with self._lock:
            if request.session_id is not None and self._is_busy(request.session_id):
                raise SessionBusy(f"会话 {request.session_id} 正在运行另一个任务")
            session = HeadlessSession.open(
                self._env_for(),
                cwd=self._cwd,
                session_id=request.session_id,
                options=HeadlessOptions(approvals=request.approvals),
                llm=self._llm,
            )
            run = Run(f"run-{next(self._numbers)}-{secrets.token_hex(4)}", session)
            self._runs[run.id] = run
            self._busy.add(run.session_id)
        threading.Thread(target=self._work, args=(run, request), name=f"paicli-{run.id}", daemon=True).start()
        return run

    def _is_busy(self, session_id: str) -> bool:
        return any(busy == session_id or busy.startswith(session_id) for busy in self._busy)

    def _work(self, run: Run, request: RunRequest) -> None:
        try:
            record = run.session.run(request.prompt, run.add, run.cancel, request.mode)
        except Exception as exc:
            record = _failed(run, f"{type(exc).__name__}: {exc}")
        try:
            run.session.close()  # the ledger released before the result is out: the session can be resumed
        finally:
            with self._lock:
                self._busy.discard(run.session_id)
            run.finish(record)

    def get(self, run_id: str) -> Run | None:
        with self._lock:
            return self._runs.get(run_id)

    def cancel_all(self) -> list[Run]:
        with self._lock:
            runs = list(self._runs.values())
        for run in runs:
            run.cancel.cancel()
        return runs


def _failed(run: Run, error: str) -> dict[str, Any]:
    usage = {"input_tokens": 0, "output_tokens": 0, "cached_input_tokens": 0}
    return {
        "status": "error",
        "type": "result",
        "is_error": True,
        "result": error,
        "session_id": run.session_id,
        "num_turns": 0,
        "usage": usage,
    }
