"""Asking the person at the terminal whether a tool call may run."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable

from paicli.tools.base import ApprovalDecision, ApprovalRequest

Handler = Callable[[ApprovalRequest], ApprovalDecision]

ANSWERS: dict[str, ApprovalDecision] = {
    "y": "approve", "yes": "approve", "是": "approve", "": "deny",
    "a": "approve_all", "all": "approve_all", "全部": "approve_all",
    "n": "deny", "no": "deny", "否": "deny",
}


class TerminalApprover:
    """One question at a time. The REPL installs a `handler` that pauses its own key reader while asking."""

    def __init__(self, handler: Handler | None = None) -> None:
        self.handler = handler
        self._lock = threading.Lock()

    def approve(self, request: ApprovalRequest) -> ApprovalDecision:
        with self._lock:
            if self.handler is not None:
                return self.handler(request)
            return ask_on_stdio(request)


def ask_on_stdio(request: ApprovalRequest) -> ApprovalDecision:
    lines = [f"\n⚠️ 需要确认: {request.summary}", f"   原因: {request.reason}"]
    if request.preview:
        lines.append(request.preview)
    lines.append("   允许执行吗？[y] 允许  [a] 本会话都允许此工具  [n] 拒绝（默认）: ")
    sys.stderr.write("\n".join(lines))
    sys.stderr.flush()
    answer = sys.stdin.readline()
    return ANSWERS.get(answer.strip().lower(), "deny")
