"""Values shared by the tool runner and the agent loop (tools never import the agent package)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from paicli.llm.content_parts import ImagePart

CANCELLED_PREFIX = "用户取消了"  # a cancelled call's result text starts with it (the model reads it)

# How a call ended, set where that was decided (the runner's verdict, the tool itself): ran and succeeded or
# failed, timed out, or never ran because the policy or a guard refused it, the user denied it, or it was
# cancelled. Text for people and the model is rendered from it at the edges, never read back from text.
ToolOutcome = Literal["ok", "failed", "timed_out", "refused", "denied", "cancelled"]
NOT_RUN: frozenset[ToolOutcome] = frozenset({"refused", "denied", "cancelled"})


def outcome_of(success: bool, timed_out: bool = False, not_run: bool = False) -> ToolOutcome:
    """The outcome a tool's own flags state (a refusal it made itself: `not_run`)."""
    if timed_out:
        return "timed_out"
    if not_run:
        return "refused"
    return "ok" if success else "failed"


@dataclass(frozen=True)
class ToolResult:
    call_id: str
    name: str
    content: str  # exactly what goes into the `tool` message (offloaded and wrapped by the runner)
    success: bool = True
    timed_out: bool = False
    blocked: bool = False  # refused by a guard, the policy, an approval or a cancel: never executed
    display: str | None = None  # UI-only extra (a unified diff, a folded preview); never sent to the model
    metadata: dict[str, Any] = field(default_factory=dict)
    outcome: ToolOutcome = "ok"  # the runner sets it for every result it makes
    images: tuple[ImagePart, ...] = ()  # images the tool returned, for a model that takes them


@dataclass(frozen=True)
class ToolStarted:
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolFinished:
    result: ToolResult


@dataclass(frozen=True)
class ToolProgress:
    """One finished line a running tool printed (execute_command's live output). Display only: the result the
    model sees is built from the full capture, never from these."""

    call_id: str
    name: str
    line: str


@dataclass(frozen=True)
class ToolWaiting:
    """A call waits before it runs for something that is not the call (the workspace snapshot): display only,
    `what` names it ("" once the call goes on)."""

    call_id: str
    name: str
    what: str


ToolEvent = ToolStarted | ToolProgress | ToolFinished | ToolWaiting
ToolEventSink = Callable[[ToolEvent], None]


@dataclass(frozen=True)
class ApprovalRequest:
    tool: str
    arguments: dict[str, Any]
    summary: str  # one line: what would happen ("执行命令: rm build -r")
    reason: str  # why a human is asked
    preview: str | None = None  # diff or command text to show
    always: str | None = None  # what answering "always" would cover; None = not offered (destructive command)
    command: bool = False  # a shell command (not an edit or a tool's own action): how "only once" is worded
    rule: str | None = None  # the permissions.json entry that would keep "always" beyond the session


ApprovalDecision = Literal["approve", "approve_all", "deny"]


@dataclass(frozen=True)
class ApprovalReply:
    """A decision with words for the model: "no, do this instead", or why the person refused (Esc)."""

    decision: ApprovalDecision
    note: str = ""


class Approver(Protocol):
    """Asks a human. `None` human (one-shot without --yes, piped stdin) is modelled by an approver that denies.
    `asks_human`: the question reaches a person (the terminal approver); a call only a person may allow (a
    memory save after untrusted text) is refused by any other, --yes's included."""

    asks_human: bool

    def approve(self, request: ApprovalRequest) -> ApprovalDecision | ApprovalReply: ...
