"""The sandbox refused part of a command nobody approved: a human may have it run again, outside the sandbox.

The first line of the command's result says what was refused (sandbox/denials.py); the same line is the
question's reason, so the person sees exactly what the model sees. Without a person (`-p` without --yes, piped
input) the approver refuses and the sandboxed result stands, refusal line first.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from paicli.cancel import CancelToken
from paicli.tools.base import ApprovalReply, ApprovalRequest, Approver
from paicli.tools.context import OutputSink, ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.handlers import edit_preview
from paicli.tools.schema import ToolOutput

if TYPE_CHECKING:
    from paicli.tools.registry import Tool

RERUN_QUESTION = "要在沙箱外重新运行这条命令吗？（这一次不受沙箱限制）"
RERUN_NOTE = "（这条命令在沙箱中被拒绝，用户批准后已在沙箱外重新运行，以下是重新运行的结果）"


class RerunHost(Protocol):
    """What the offer needs of the tool runner (tools/runner.py's ToolRunner)."""

    approver: Approver
    paths: PathGuard

    def context(
        self, cancel: CancelToken, on_output: OutputSink | None = None, *, auto_run: bool = False
    ) -> ToolContext: ...


@dataclass(frozen=True)
class RerunContext:
    cancel: CancelToken
    on_output: OutputSink | None = None


def offer_rerun(
    runner: RerunHost, tool: Tool, args: dict[str, Any], output: ToolOutput, where: RerunContext
) -> ToolOutput:
    spec = tool.spec
    refusal = output.content.split("\n", 1)[0]
    preview = spec.command(args) if spec.runs_command else edit_preview(spec.name, args, runner.paths)
    request = ApprovalRequest(
        spec.name,
        args,
        spec.summary_text(args),
        f"{refusal}\n{RERUN_QUESTION}",
        preview,
        command=spec.runs_command,
    )
    answer = runner.approver.approve(request)
    decision = answer.decision if isinstance(answer, ApprovalReply) else answer
    if decision not in ("approve", "approve_all") or where.cancel.cancelled:
        return output
    again = tool.handler(args, runner.context(where.cancel, where.on_output))  # by the approved executor
    return dataclasses.replace(again, content=f"{RERUN_NOTE}\n{again.content}")
