"""Whether one tool call may run: one decision over the call's `ToolSpec` and arguments, the turn's policy, the
path guard, the command rules and the session's approval state (mode, HITL, --yes, grants, the sandbox),
returned as a typed verdict with its reason. The runner acts on it (runs, asks the approver, or refuses) and
renders what the model and the user read from it; nothing downstream recognises a refusal by its text.

The order is the contract: the turn policy, then the path guard, then the command rules refuse; only a call
none of them refused meets the user's permission rules (tools/rules.py: a deny refuses naming the rule, an ask
asks whatever the mode, an allow counts like a grant); then it can need a human (approval rules, then a memory
write the user did not ask for); a memory write after text the user did not write needs a person whatever the
approval rules say (`human_only`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from paicli.tools.approval import ApprovalNeed, ApprovalState
from paicli.tools.guards import PathDenied, PathGuard, command_denial
from paicli.tools.rules import rule_denial, rule_reason
from paicli.tools.schema import ToolSpec


@dataclass(frozen=True)
class Allow:
    relative_path: str | None  # the guarded, real path of the call's first path argument
    unasked: bool  # paicli's own judgement let it through (no human's yes): it runs by the unasked executor


@dataclass(frozen=True)
class Ask:
    reason: str
    relative_path: str | None
    human_only: bool = False  # only a person's answer will do (issue 37): never --yes, a grant or no one


@dataclass(frozen=True)
class Deny:
    reason: str  # the text the model reads (the policy's or a guard's own words)


Verdict = Allow | Ask | Deny


class TurnPolicy(Protocol):
    """What the decision reads of the turn (tools/policy.py's TurnToolPolicy)."""

    def denial(self, spec: ToolSpec, args: dict[str, object]) -> str | None: ...

    def memory_need(self, spec: ToolSpec, args: dict[str, object], yes: bool) -> ApprovalNeed | None: ...


def decide(
    spec: ToolSpec,
    args: dict[str, Any],
    policy: TurnPolicy,
    paths: PathGuard,
    approval: ApprovalState,
    project_root: Path,
) -> Verdict:
    denial = policy.denial(spec, args)
    relatives: list[str] = []
    if denial is None:
        try:
            relatives = _guarded_paths(spec, args, paths)
        except PathDenied as denied:
            denial = str(denied)
    if denial is None and spec.runs_command:
        denial = command_denial(spec.command(args))
    if denial is not None:
        return Deny(denial)
    relative = relatives[0] if relatives else None
    rule = approval.rules().matching(spec, args, relatives)
    if rule is not None and rule.kind == "deny":
        return Deny(rule_denial(rule))
    allowed = rule is not None and rule.kind == "allow"
    need = approval.needs_approval(spec, args, relative, project_root, allowed=allowed)
    if rule is not None and rule.kind == "ask":
        need = ApprovalNeed(rule_reason(rule))
    memory = policy.memory_need(spec, args, approval.yes)  # issues 26 and 37
    if memory is not None and (need is None or memory.human_only):
        need = memory
    if need is not None:
        return Ask(need.reason, relative, need.human_only)
    return Allow(relative, approval.runs_unasked(spec, args))


def _guarded_paths(spec: ToolSpec, args: dict[str, Any], paths: PathGuard) -> list[str]:
    """Every path argument must resolve inside the project; their real paths relative to the root."""
    return [paths.resolve(str(args.get(name, "."))).relative for name in spec.path_params]
