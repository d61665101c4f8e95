"""The seam for workspace snapshots (issue 30): the runner calls a checkpoint once per turn, just before the
turn's first call that may change files runs (after its guards and approval passed); the session marks where
each turn or Plan/Team run begins (`begin_unit`), so a run's snapshots belong together (issue 43)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from paicli.tools.schema import ToolSpec


class TurnCheckpoint(Protocol):
    def before_first_change(self, label: str, wait: Callable[[str], None] | None = None) -> None:
        """Record the workspace; `label` is the turn's submitted text. Must not raise. `wait` is told what the
        call is waiting for when the snapshot has to wait (then "" once it goes on)."""
        ...

    def begin_unit(self, text: str, mode: str) -> None:
        """A turn (`mode` react) or a Plan/Team run starts; `text` is what the user submitted."""
        ...

    def take_note(self) -> str:
        """What changed on disk behind the model's back since its last request (`/restore`, `/undo`,
        `/rewind`), as one internal user message; "" when nothing did. Said once."""
        ...


def may_change_files(spec: ToolSpec) -> bool:
    """Every tool not declared read-only (an MCP tool may write anywhere), unless it declares it needs no
    snapshot first (revert_turn snapshots by itself; save_memory writes no project file)."""
    return not spec.read_only and spec.snapshot_first
