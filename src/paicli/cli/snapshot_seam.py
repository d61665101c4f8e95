"""The session's workspace snapshots as one deferred seam (issue 49): the store, its git plumbing, the reports
and the snapshot commands load at their first use (a turn's first change, /snapshot, /undo, /restore, /rewind,
`revert_turn`, the REPL's priming at start), never for a one-shot run that changes no file. Whether the project
can have snapshots is answered at once (snapshots/availability.py), so `revert_turn` is offered from the first
request exactly as before."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from paicli.deferred import Deferred
from paicli.snapshots.availability import snapshot_root
from paicli.snapshots.revert_spec import REVERT_TURN
from paicli.tools.registry import Tool

if TYPE_CHECKING:
    from paicli.cli.compose import Components
    from paicli.cli.session_snapshots import SnapshotCommands
    from paicli.snapshots.recorder import EventLedger
    from paicli.snapshots.tool import RevertTurn
    from paicli.tools.context import ToolContext
    from paicli.tools.guards import PathGuard
    from paicli.tools.schema import Args, ToolOutput


class SnapshotSeam:
    """The runner's checkpoint (tools/checkpoint.py) and the session's snapshot commands, built at first need.
    Units begun before then are replayed with the ledger position each began at, so the built snapshots count
    and tag turns exactly as if they had been there from the start."""

    def __init__(self, parts: Components, ledger: Callable[[], EventLedger]) -> None:
        self._parts = parts
        self._ledger = ledger
        self._lock = threading.Lock()
        self._begun: list[tuple[str, str, int]] = []
        self._ready: SnapshotCommands | None = None
        self._commands: Deferred[SnapshotCommands] = Deferred(self._build)
        self._revert: Deferred[RevertTurn] = Deferred(self._revert_turn)
        files = parts.values.files
        if files.snapshots and not isinstance(
            snapshot_root(parts.settings.project_root, files.user_home), str
        ):
            parts.tools.register(
                Tool(REVERT_TURN, self._revert_call, self._revert_precheck, self._revert_preview)
            )

    def commands(self) -> SnapshotCommands:
        return self._commands.get()

    @property
    def built(self) -> SnapshotCommands | None:
        """The commands if something needed them already; None: nothing was loaded (nothing to close)."""
        return self._commands.built

    def _build(self) -> SnapshotCommands:
        from paicli.cli.session_snapshots import SnapshotCommands, attach_snapshots

        parts = self._parts
        commands = SnapshotCommands(attach_snapshots(parts, self._ledger), lambda: parts.approval.yes)
        with self._lock:
            for text, mode, sequence in self._begun:
                commands.snapshots.begin_unit(text, mode, sequence)
            self._begun.clear()
            self._ready = commands
        return commands

    # ---- the runner's checkpoint -------------------------------------------------------------------

    def before_first_change(self, label: str, wait: Callable[[str], None] | None = None) -> None:
        self.commands().snapshots.before_first_change(label, wait)

    def begin_unit(self, text: str, mode: str) -> None:
        with self._lock:
            ready = self._ready
            if ready is None:
                self._begun.append((text, mode, self._next_sequence()))
                return
        ready.snapshots.begin_unit(text, mode)

    def take_note(self) -> str:
        """Notes come only from restores, which build the snapshots first: none before that."""
        built = self._commands.built
        return built.snapshots.take_note() if built is not None else ""

    # ---- what a run changed (`files_changed` of -p's JSON result) ------------------------------------

    @property
    def taken(self) -> int:
        built = self._commands.built
        return built.snapshots.taken if built is not None else 0

    def files_changed_since(self, mark: int) -> tuple[str, ...]:
        built = self._commands.built
        return built.snapshots.files_changed_since(mark) if built is not None else ()

    # ---- revert_turn -------------------------------------------------------------------------------

    def _revert_turn(self) -> RevertTurn:
        from paicli.snapshots.tool import RevertTurn

        return RevertTurn(self.commands().snapshots)

    def _revert_call(self, args: Args, context: ToolContext) -> ToolOutput:
        return self._revert.get()(args, context)

    def _revert_precheck(self, args: Args, paths: PathGuard) -> ToolOutput | None:
        return self._revert.get().precheck(args, paths)

    def _revert_preview(self, args: Args) -> str:
        return self._revert.get().preview(args)

    def _next_sequence(self) -> int:
        try:
            return self._ledger().next_sequence
        except Exception:  # as the snapshots' own reading: a unit without a position still tags its snapshots
            return 0
