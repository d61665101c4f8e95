"""The `revert_turn` tool (spec 9.1): restore the n-th most recent workspace snapshot. Dangerous: the runner asks
for approval first (refused without a human unless --yes)."""

from __future__ import annotations

from paicli.snapshots.git import SnapshotError
from paicli.snapshots.recorder import WorkspaceSnapshots
from paicli.snapshots.report import change_lines, plan_text, result_text
from paicli.snapshots.revert_spec import REVERT_TURN
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.registry import Tool
from paicli.tools.schema import Args, ToolOutput


class RevertTurn:
    def __init__(self, snapshots: WorkspaceSnapshots) -> None:
        self.snapshots = snapshots

    def __call__(self, args: Args, context: ToolContext) -> ToolOutput:
        position = int(args.get("n") or 1)
        try:
            plan = self.snapshots.plan_nth(position)
            if not plan.changes:
                return ToolOutput(f"工作区已经和第 {position} 近的快照一致，没有改动任何文件。")
            result = self.snapshots.restore(plan, "agent")
        except SnapshotError as error:
            return ToolOutput(f"❌ 无法恢复快照: {error}", success=False)
        lines = [result_text(result), *change_lines(result.changes)]
        return ToolOutput("\n".join(lines), success=not result.conflicts)

    def precheck(self, args: Args, _paths: PathGuard) -> ToolOutput | None:
        """No such snapshot (or no store): the call fails at once instead of asking about nothing."""
        try:
            self.snapshots.plan(int(args.get("n") or 1))
        except SnapshotError as error:
            return ToolOutput(f"❌ 无法恢复快照: {error}", success=False)
        return None

    def preview(self, args: Args) -> str:
        """What the approval shows: the snapshot and every file the restore would change (as /restore does)."""
        try:
            return plan_text(self.snapshots.plan(int(args.get("n") or 1)))
        except SnapshotError as error:
            return f"❌ 无法恢复快照: {error}"

    @staticmethod
    def tool(snapshots: WorkspaceSnapshots) -> Tool:
        revert = RevertTurn(snapshots)
        return Tool(REVERT_TURN, revert, revert.precheck, revert.preview)
