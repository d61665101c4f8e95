"""Asking the person at the terminal whether a tool call may run."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace

from paicli.termsafe import show_controls
from paicli.tools.base import ApprovalDecision, ApprovalReply, ApprovalRequest

Answer = ApprovalDecision | ApprovalReply
Handler = Callable[[ApprovalRequest], Answer]

ANSWERS: dict[str, ApprovalDecision] = {
    "y": "approve",
    "yes": "approve",
    "是": "approve",
    "好": "approve",
    "可以": "approve",
    "": "deny",
    "a": "approve_all",
    "all": "approve_all",
    "全部": "approve_all",
    "始终": "approve_all",
    "n": "deny",
    "no": "deny",
    "否": "deny",
    "不": "deny",
}
ESC_NOTE = "用户在确认时按了 Esc，拒绝了这次操作，没有说明原因。不要换个方式重试，先停下来问用户想怎么做。"


def spaced(label: str) -> str:
    """A label set into Chinese text: a space on each side that meets a Latin letter or digit, as typeset
    Chinese separates the two scripts (`允许 MCP 工具 x 不再`)."""
    if label[:1].isascii() and label[:1].isalnum():
        label = " " + label
    if label[-1:].isascii() and label[-1:].isalnum():
        label += " "
    return label


def question_options(request: ApprovalRequest) -> list[str]:
    """The one-key answers, each a label kept whole on screen; "always" says exactly what it would cover, or
    that it is not offered."""
    if request.always:
        always = f"[a] 本会话始终允许{spaced(request.always).rstrip()}"
    else:
        always = "（破坏性或组合命令只能逐次允许）" if request.command else "（这一项只能逐次允许）"
    return ["[y] 允许", always, "[n] 拒绝", "[t] 拒绝并告诉它怎么做", "[Esc] 拒绝："]


def question_line(request: ApprovalRequest) -> str:
    return "  ".join(question_options(request))


def decide(answer: str, request: ApprovalRequest) -> Answer:
    """A typed answer (stdio): known words decide; any other text refuses and goes to the model as the
    person's instruction, so nothing typed is silently lost."""
    text = answer.strip()
    decision = ANSWERS.get(text.lower())
    if decision == "approve_all" and not request.always:
        return "approve"
    if decision is not None:
        return decision
    if text.lower().startswith("t "):
        text = text[2:].strip()
    return ApprovalReply("deny", text)


class TerminalApprover:
    """One question at a time, on stdio unless the REPL lends its own asker (which pauses its key reader while
    asking) for the span of its run: `with approver.asking(handler): ...`."""

    asks_human = True  # with --yes too: a save after untrusted content still comes here (tools/policy.py)

    def __init__(self, handler: Handler | None = None) -> None:
        self._handler = handler
        self._lock = threading.Lock()

    @property
    def handler(self) -> Handler | None:
        return self._handler

    @contextmanager
    def asking(self, handler: Handler) -> Iterator[None]:
        """`handler` asks every question until the block ends; then whoever asked before does again."""
        before, self._handler = self._handler, handler  # not under the lock: a question in flight keeps it
        try:
            yield
        finally:
            self._handler = before

    def approve(self, request: ApprovalRequest) -> Answer:
        with self._lock:
            if self._handler is not None:
                return self._handler(request)
            return ask_on_stdio(request)


def shown(request: ApprovalRequest) -> ApprovalRequest:
    """The request as the person sees it: every control character in it written out, so a command cannot
    hide part of itself behind cursor moves or an erase-line."""
    return replace(
        request,
        summary=show_controls(request.summary),
        reason=show_controls(request.reason or ""),
        preview=show_controls(request.preview) if request.preview else request.preview,
        always=show_controls(request.always) if request.always else request.always,
    )


def ask_on_stdio(request: ApprovalRequest) -> Answer:
    request = shown(request)
    lines = [f"\n⚠️ 需要确认: {request.summary}", f"   原因: {request.reason}"]
    if request.preview and request.preview.strip() != request.summary.split(": ", 1)[-1].strip():
        lines.append(request.preview)
    question = question_line(request).replace("[t] 拒绝并告诉它怎么做", "或直接写下要它改做什么")
    lines.append("   " + question.replace("[n] 拒绝", "[n] 拒绝（直接回车 = 拒绝）"))  # the default is said
    sys.stderr.write("\n".join(lines))
    sys.stderr.flush()
    return decide(sys.stdin.readline(), request)
