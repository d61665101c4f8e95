"""Shared builders for the tool tests: a runner over a temp project, calls, and unwrapping results."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from paicli.agent.events import AgentEvent
from paicli.cancel import CancelToken
from paicli.config.env import EnvLookup
from paicli.config.tool_values import ToolValues
from paicli.config.values import SessionValues
from paicli.llm.messages import ToolCall
from paicli.memory.guard import ExternalContextTracker
from paicli.tools.approval import ApprovalState, AutoApprover
from paicli.tools.base import ApprovalDecision, ApprovalRequest, Approver, ToolResult
from paicli.tools.checkpoint import TurnCheckpoint
from paicli.tools.runner import ToolRunner

_WRAPPED = re.compile(r'\A<tool_result tool="[^"]*" trust="untrusted-data">\n(.*)\n</tool_result>\Z', re.S)


def unwrap(result: ToolResult) -> str:
    match = _WRAPPED.match(result.content)
    assert match, f"result is not wrapped: {result.content[:200]!r}"
    return match.group(1)


def env(values: Mapping[str, str] | None = None) -> EnvLookup:
    return EnvLookup(environ=dict(values or {}), cwd=Path("/nonexistent-paicli-cwd"))


class RecordingApprover:
    """A person at the terminal who answers every question with `decision`."""

    asks_human = True

    def __init__(self, decision: ApprovalDecision = "approve") -> None:
        self.decision: ApprovalDecision = decision
        self.requests: list[ApprovalRequest] = []

    def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        return self.decision


class FakeOffloader:
    """Records offload calls; writes nothing. `enabled` toggles the execute_command capture limit."""

    def __init__(self, enabled: bool = True, threshold: int = 32000) -> None:
        self._enabled = enabled
        self.threshold = threshold
        self.offloaded: list[tuple[str, str, int]] = []
        self.checked: list[tuple[str, str]] = []

    @property
    def enabled(self) -> bool:
        return self._enabled

    def offload_if_oversized(self, tool: str, args_json: str, content: str) -> str:
        self.checked.append((tool, args_json))
        if not self._enabled or len(content) <= self.threshold:
            return content
        return self.offload(tool, content, 2000)

    def offload(self, tool: str, content: str, head_chars: int) -> str:
        self.offloaded.append((tool, content, head_chars))
        return f"[offloaded {tool} {len(content)} chars]\n{content[:head_chars]}"


def make_runner(
    root: Path,
    approver: Approver | None = None,
    *,
    values: Mapping[str, str] | None = None,
    tracker: ExternalContextTracker | None = None,
    saved: list[tuple[str, str, str | None, bool]] | None = None,
    approval: ApprovalState | None = None,
    **kwargs: Any,
) -> ToolRunner:
    lookup = env(values)

    def save(fact: str, scope: str, replace_id: str | None, keep_both: bool) -> str:
        if saved is not None:
            saved.append((fact, scope, replace_id, keep_both))
        return f"✅ 已保存: {fact}"

    return ToolRunner(
        root,
        approver=approver if approver is not None else AutoApprover(),
        tracker=tracker
        if tracker is not None
        else ExternalContextTracker(guard_enabled=SessionValues.parse(lookup).external_guard),
        values=ToolValues.parse(lookup),
        save_memory=save,
        approval_mode=approval,
        **kwargs,
    )


def calls(*specs: tuple[str, str]) -> list[ToolCall]:
    return [ToolCall(f"call-{i + 1}", name, args) for i, (name, args) in enumerate(specs)]


def run(
    runner: ToolRunner,
    *specs: tuple[str, str],
    text: str = "",
    cancel: CancelToken | None = None,
    events: list[AgentEvent] | None = None,
    checkpoint: TurnCheckpoint | None = None,
) -> list[ToolResult]:
    sink = events.append if events is not None else (lambda _e: None)
    turn = runner.for_turn(text, checkpoint=checkpoint)
    return turn.execute(calls(*specs), cancel or CancelToken(), sink)


def run_one(runner: ToolRunner, name: str, args: str, text: str = "") -> tuple[ToolResult, str]:
    result = run(runner, (name, args), text=text)[0]
    return result, unwrap(result)
