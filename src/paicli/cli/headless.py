"""A session without a terminal: the core the SDK (`paicli.sdk`) and the Runtime API (`paicli serve --http`)
drive. It is the `-p` session (AppBackend over build_components, its own ledger and session lock) with the
approvals of an `ApprovalDesk`, one run at a time."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paicli.agent.events import AgentEvent, RunFinished
from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.approval_desk import ApprovalDesk, ApprovalPolicy, ApprovalRequested
from paicli.cli.oneshot import result_record
from paicli.config import knobs
from paicli.config.env import EnvLookup
from paicli.config.modes import RunMode
from paicli.llm.protocol import LLMClient
from paicli.tools.base import ApprovalDecision

HeadlessEvent = AgentEvent | ApprovalRequested
HeadlessSink = Callable[[HeadlessEvent], None]


class SessionBusy(Exception):
    """The session is open elsewhere (another process, or a run of this one still going)."""


class UnknownSession(Exception):
    """No session with this id."""


@dataclass(frozen=True)
class HeadlessOptions:
    approvals: ApprovalPolicy = "deny"
    model: str | None = None
    max_turns: int | None = None
    trust_project: bool = False  # the project's .paicli/skills, prompts and mcp.json (as --trust-project)


class HeadlessSession:
    """One paicli session driven by code. `run` blocks until the run ends and returns the `-p --output-format
    json` record with the run's `status`; events (with `ApprovalRequested`) go to the sink on the run's thread."""

    def __init__(self, backend: AppBackend, desk: ApprovalDesk) -> None:
        self.backend = backend
        self.desk = desk
        self._running = threading.Lock()
        self._closed = False

    @classmethod
    def open(
        cls,
        env: EnvLookup,
        *,
        cwd: Path | None = None,
        session_id: str | None = None,
        options: HeadlessOptions | None = None,
        llm: LLMClient | None = None,
    ) -> HeadlessSession:
        """A new session, or the earlier one `session_id` names (UnknownSession, SessionBusy); ConfigError
        for an unusable setting or no provider."""
        from paicli.cli.compose import build_components
        from paicli.config.parsed import ParsedConfig
        from paicli.config.settings import load_settings
        from paicli.config.validate import validate_knobs

        options = options or HeadlessOptions()
        validate_knobs(env)
        settings = load_settings(env, cli_model=options.model, cwd=cwd)
        resume = _claimable(settings.paicli_home, session_id) if session_id else None
        if resume is not None and options.model is None:
            from paicli.cli.session_restore import resumed_settings
            from paicli.session.model_record import read_recorded_model

            settings = resumed_settings(settings, read_recorded_model(resume))[0]
        desk = ApprovalDesk(options.approvals)
        parts = build_components(
            settings,
            ParsedConfig.read(env),
            desk,
            yes=options.approvals == "approve",
            llm=llm,
            resume_path=resume,
            project_trusted=options.trust_project,
        )
        backend = AppBackend(parts, max_turns=options.max_turns, count_context=False)
        backend.state.report_changes = True  # `files_changed` in the result, as -p's JSON formats
        if parts.mcp is not None:
            parts.mcp.wait_cold(knobs.MCP_STARTUP_WAIT.read(env))
        if resume is not None:
            backend.restore_opened_session()
        return cls(backend, desk)

    @property
    def session_id(self) -> str:
        return self.backend.parts.ledger.session_id

    def run(
        self,
        prompt: str,
        sink: HeadlessSink,
        cancel: CancelToken,
        mode: RunMode = "react",
    ) -> dict[str, Any]:
        if not self._running.acquire(blocking=False):
            raise SessionBusy(f"会话 {self.session_id} 正在运行另一个任务")
        try:
            self.desk.bind(sink, cancel)
            finished: RunFinished = self.backend.run(prompt, mode, sink, cancel)
            return {"status": finished.status, **result_record(self.backend, finished)}
        finally:
            self.desk.bind(None, None)
            self._running.release()

    def answer(self, approval_id: str, decision: ApprovalDecision) -> bool:
        return self.desk.answer(approval_id, decision)

    def notices(self) -> list[str]:
        return self.backend.drain_notices()

    def close(self, timeout: float = 10.0) -> None:
        if not self._closed:
            self._closed = True
            self.backend.close(timeout=timeout)


def _claimable(home: Path, session_id: str) -> Path:
    from paicli.session.catalog import find_session
    from paicli.session.ownership import in_use

    found = find_session(home, session_id)
    if found is None:
        raise UnknownSession(f"未找到会话 {session_id}")
    path = Path(found.path)
    if in_use(path):
        raise SessionBusy(f"会话 {path.stem} 正在另一个 paicli 进程或运行中打开")
    return path
