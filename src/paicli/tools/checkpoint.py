"""The seam for workspace snapshots (issue 30): the runner calls a checkpoint once per turn, just before the
turn's first call that may change files runs (after its guards and approval passed)."""

from __future__ import annotations

from typing import Protocol

MUTATING_TOOLS = frozenset({"write_file", "edit_file", "execute_command", "create_project"})


class TurnCheckpoint(Protocol):
    def before_first_change(self, label: str) -> None:
        """Record the workspace; `label` is the turn's submitted text. Must not raise."""
        ...


def may_change_files(tool_name: str) -> bool:
    """Built-in writers and every MCP tool (it may write anywhere); revert_turn snapshots by itself."""
    return tool_name in MUTATING_TOOLS or tool_name.startswith("mcp__")
