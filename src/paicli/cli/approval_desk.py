"""Approvals of a run nobody watches at a terminal: refused, granted, or asked of whoever drives the run (the
SDK's caller, the Runtime API's client), who answers by id while the run waits."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from paicli.cancel import CancelToken
from paicli.tools.base import ApprovalDecision, ApprovalReply, ApprovalRequest

ApprovalPolicy = Literal["deny", "ask", "approve"]
APPROVAL_POLICIES: tuple[ApprovalPolicy, ...] = ("deny", "ask", "approve")
ANSWERS: tuple[ApprovalDecision, ...] = ("approve", "deny")

REFUSED_BY_POLICY = (
    "本次运行的审批策略不允许这个操作（approval_policy=deny）；如需允许，请用 ask 或 approve 策略重新运行"
)


@dataclass(frozen=True)
class ApprovalRequested:
    """A tool call waits for an answer (`answer(approval_id, "approve"|"deny")`)."""

    approval_id: str
    tool: str
    summary: str
    reason: str
    preview: str | None = None


class _Pending:
    def __init__(self, request: ApprovalRequested) -> None:
        self.request = request
        self.answered = threading.Event()
        self.decision: ApprovalDecision = "deny"


class ApprovalDesk:
    """An `Approver` for headless runs. Under "ask", each request is announced through the run's sink and waits
    until answered, or until the run is cancelled (then refused): never on a terminal."""

    def __init__(self, policy: ApprovalPolicy = "deny") -> None:
        self.policy: ApprovalPolicy = policy
        self.asks_human = policy == "ask"  # the driver of the run answers in a person's place
        self._lock = threading.Lock()
        self._pending: dict[str, _Pending] = {}
        self._ids = itertools.count(1)
        self._announce: Callable[[ApprovalRequested], None] | None = None
        self._cancel: CancelToken | None = None

    def bind(self, announce: Callable[[ApprovalRequested], None] | None, cancel: CancelToken | None) -> None:
        """The run now going on: where requests are announced and what stops the wait."""
        with self._lock:
            self._announce, self._cancel = announce, cancel

    def approve(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalReply:
        if self.policy == "approve":
            return "approve"
        if self.policy == "deny":
            return ApprovalReply("deny", REFUSED_BY_POLICY)
        with self._lock:
            announce, cancel = self._announce, self._cancel
            if announce is None:  # no run going on: nobody could be asked, and nothing may hang
                return ApprovalReply("deny", REFUSED_BY_POLICY)
            approval_id = f"ap-{next(self._ids)}"
            pending = _Pending(
                ApprovalRequested(approval_id, request.tool, request.summary, request.reason, request.preview)
            )
            self._pending[approval_id] = pending
        unregister = cancel.on_cancel(pending.answered.set) if cancel is not None else (lambda: None)
        try:
            announce(pending.request)
            pending.answered.wait()
        finally:
            unregister()
            with self._lock:
                self._pending.pop(approval_id, None)
        return pending.decision

    def answer(self, approval_id: str, decision: ApprovalDecision) -> bool:
        """False when no request with this id waits (answered already, or never asked)."""
        with self._lock:
            pending = self._pending.get(approval_id)
            if pending is None or pending.answered.is_set():
                return False
            pending.decision = decision
            pending.answered.set()
            return True

    def waiting(self) -> list[ApprovalRequested]:
        with self._lock:
            return [p.request for p in self._pending.values() if not p.answered.is_set()]
