"""What a tool handler gets to work with, and the L1 offloader seam it shares with the runner."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from paicli.cancel import CancelToken
from paicli.tools.guards import PathGuard

if TYPE_CHECKING:
    from paicli.tools.executor import CommandExecutor


class Offloader(Protocol):
    """Level-1 compaction (spec 2.2), implemented by paicli.context.offload.ToolResultOffloader."""

    @property
    def enabled(self) -> bool: ...

    def offload_if_oversized(self, tool: str, args_json: str, content: str) -> str: ...

    def offload(self, tool: str, content: str, head_chars: int) -> str: ...


OutputSink = Callable[[str], None]
SaveMemory = Callable[[str, str, "str | None", bool], str]


@dataclass(frozen=True)
class ToolContext:
    project_root: Path
    paths: PathGuard
    cancel: CancelToken
    offloader: Offloader | None = None
    command_timeout_seconds: float = 60.0
    on_output: OutputSink | None = None  # gets each line a running command prints, in order (display only)
    # runs execute_command's command; the runner picks the session's approved or unasked one (None: an
    # approved, unconfined one)
    executor: CommandExecutor | None = None
    ripgrep: bool = True  # grep may use ripgrep (knobs.GREP_RIPGREP)
