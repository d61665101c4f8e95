"""Whether one tool call runs: its verdict (tools/verdict.py) acted on. A refusal is never executed; an ask goes
to the approver, unless only a person may allow it and the approver is none (issue 37). Loaded with a turn's
first call (tools/runner.py), so a turn without one builds none of the verdicts."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from paicli.tools.approval import ApprovalState, DenyingApprover, approval_summary, denial_text
from paicli.tools.base import ApprovalReply, ApprovalRequest, Approver
from paicli.tools.guards import PathGuard
from paicli.tools.policy import MEMORY_NO_HUMAN, TurnToolPolicy
from paicli.tools.rules import rule_for_grant
from paicli.tools.schema import ToolOutput, ToolSpec
from paicli.tools.verdict import Ask, Deny, decide

if TYPE_CHECKING:
    from paicli.tools.registry import Tool


class Runner(Protocol):
    """What the gate reads of the session's tool runner (tools/runner.py)."""

    @property
    def approval(self) -> ApprovalState: ...
    @property
    def approver(self) -> Approver: ...
    @property
    def paths(self) -> PathGuard: ...
    @property
    def project_root(self) -> Path: ...
    @property
    def notices(self) -> Callable[[str], None] | None: ...


class Calls(Protocol):
    """A turn's tools (tools/runner.py's TurnToolSet): its runner and its policy."""

    @property
    def runner(self) -> Runner: ...
    @property
    def policy(self) -> TurnToolPolicy: ...


def refusal(calls: Calls, tool: Tool, args: dict[str, Any]) -> tuple[ToolOutput | None, bool]:
    """The call's verdict (tools/verdict.py) acted on: a refusal is never executed; an ask goes to the
    approver, unless only a person may allow it and the approver is none (issue 37: refused, and said to the
    model and to the person). The flag: the call runs without a human's yes (by the unasked executor)."""
    runner = calls.runner
    verdict = decide(tool.spec, args, calls.policy, runner.paths, runner.approval, runner.project_root)
    if isinstance(verdict, Deny):
        return ToolOutput(verdict.reason, success=False, blocked=True, outcome="refused"), False
    if isinstance(verdict, Ask) and verdict.human_only and not runner.approver.asks_human:
        if runner.notices is not None:
            runner.notices(calls.policy.no_human_notice(args))
        return ToolOutput(MEMORY_NO_HUMAN, success=False, blocked=True, outcome="refused"), False
    if isinstance(verdict, Ask):
        invalid = tool.problem(args, calls.runner.paths)  # nobody approves a diff that cannot apply
        if invalid is not None:
            return invalid, False
        return _ask(calls, tool, args, verdict), False
    _note_write(calls, tool.spec, verdict.relative_path)
    return None, verdict.unasked


def _ask(calls: Calls, tool: Tool, args: dict[str, Any], verdict: Ask) -> ToolOutput | None:
    spec, relative = tool.spec, verdict.relative_path
    scope = None if verdict.human_only else calls.runner.approval.grant_scope(spec, args)
    preview = tool.approval_preview(args, calls.runner.paths)
    summary = approval_summary(spec, args)
    always = scope.label() if scope is not None else None
    rule = rule_for_grant(spec, scope) if scope is not None else None
    request = ApprovalRequest(
        spec.name, args, summary, verdict.reason, preview, always, spec.runs_command, rule
    )
    answer = calls.runner.approver.approve(request)
    reply = answer if isinstance(answer, ApprovalReply) else ApprovalReply(answer)
    if reply.decision == "approve_all":
        calls.runner.approval.grant(spec, args)
    if reply.decision in ("approve", "approve_all"):
        _note_write(calls, spec, relative)
        return None
    approver = calls.runner.approver
    hint = approver.reason_text if isinstance(approver, DenyingApprover) else None
    text = denial_text(spec, args, hint, reply.note)
    return ToolOutput(text, success=False, blocked=True, outcome="denied")


def _note_write(calls: Calls, spec: ToolSpec, relative: str | None) -> None:
    if spec.writes_files:
        calls.runner.approval.note_write(calls.runner.project_root, relative)
