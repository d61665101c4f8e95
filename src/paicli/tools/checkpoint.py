"""The seam for workspace snapshots (issue 30): the runner calls a checkpoint once per turn, just before the
turn's first call that may change files runs (after its guards and approval passed)."""

from __future__ import annotations

from typing import Protocol

from paicli.tools.schema import ToolSpec


class TurnCheckpoint(Protocol):
    def before_first_change(self, label: str) -> None:
        """Record the workspace; `label` is the turn's submitted text. Must not raise."""
        ...


def may_change_files(spec: ToolSpec) -> bool:
    """Every tool not declared read-only (an MCP tool may write anywhere), unless it declares it needs no
    snapshot first (revert_turn snapshots by itself; save_memory writes no project file)."""
    return not spec.read_only and spec.snapshot_first
