"""WorkspaceSnapshots: the session's face of the store. The tool runner calls `before_first_change` before the
first file-changing call of each turn (each Plan task, each Team step); `/restore`, `/undo`, `/rewind` and
`revert_turn` restore through it. Each snapshot and restore is recorded in the session ledger, so a resumed
session knows which snapshot belongs to which turn.

A turn or a whole Plan/Team run is one unit (`begin_unit`): its snapshots share the unit's key, so `/undo` takes
the whole run back and a listing tells its steps apart. The first snapshot of a session is prepared in the
background when the session starts (`start_priming`; a one-shot run leaves it to its first change, so a run that
writes nothing never hashes the tree); a change that comes before it is done waits, saying so.

A snapshot failure never stops a turn: it is reported once (until a snapshot works again) and the call runs.
"""

from __future__ import annotations

import logging
import os
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from paicli.redact import Redactor
from paicli.snapshots.availability import TURNED_OFF, snapshot_root
from paicli.snapshots.git import SnapshotError
from paicli.snapshots.model import RestorePlan, RestoreResult, Snapshot, Tag, project_key, shown_path
from paicli.snapshots.note import workspace_note
from paicli.snapshots.priming import Priming
from paicli.snapshots.secrets import SecretScan
from paicli.snapshots.store import SnapshotStore

log = logging.getLogger(__name__)

SNAPSHOT_EVENT = "workspace_snapshot"
RESTORE_EVENT = "workspace_restore"
FAILED_NOTICE = "⚠️ 工作区快照失败（{reason}），本轮的改动将无法用 /undo 撤回；任务照常继续。"


class EventLedger(Protocol):
    @property
    def session_id(self) -> str: ...

    @property
    def next_sequence(self) -> int: ...

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None: ...


@dataclass(frozen=True)
class Unit:
    """One turn or one Plan/Team run: what its snapshots are tagged with."""

    key: str
    turn: int
    words: str
    mode: str
    start_sequence: int  # the ledger's next sequence when it began: every entry of the unit comes after


def snapshot_dir(home: Path, project_root: Path) -> Path:
    return home / "snapshots" / project_key(project_root)


def open_store(
    project_root: Path,
    home: Path,
    keep: int,
    user_home: Path | None = None,
    secrets: Sequence[str] = (),
) -> SnapshotStore | str:
    """The project's store, or why there is none."""
    found = snapshot_root(project_root, user_home)
    if isinstance(found, str):
        return found
    real, git = found
    scan = SecretScan(secrets)
    return SnapshotStore(real, snapshot_dir(home, real), git, keep=keep, excluded_dirs=(home,), secrets=scan)


class WorkspaceSnapshots:
    def __init__(
        self,
        store: SnapshotStore | None,
        unavailable: str = "",
        *,
        ledger: Callable[[], EventLedger | None] | None = None,
        mode: Callable[[], str] | None = None,
        notify: Callable[[str], None] | None = None,
        announce_unavailable: bool = False,
        redact: Callable[[str], str] | None = None,
        turns: Callable[[], int] | None = None,
    ) -> None:
        self.store = store
        self.unavailable = unavailable
        self._ledger = ledger or (lambda: None)
        self._mode = mode or (lambda: "react")
        self.notify: Callable[[str], None] = notify or (lambda text: log.warning("%s", text))
        self._announce = announce_unavailable
        self._redact = redact or Redactor().text  # the label is the user's input: it is stored on disk
        self._count_turns = turns or (lambda: 0)
        self._failing = False
        self._lock = threading.Lock()
        self._unit: Unit | None = None
        self._steps = 0
        self._turns: int | None = None  # turns so far in this session (read from the ledger once)
        self._notes: list[tuple[str, list[str]]] = []  # files changed behind the model's back, not yet told
        self.priming = Priming(store)
        self._taken: list[Snapshot] = []  # this session's turn snapshots, oldest first

    @property
    def enabled(self) -> bool:
        return self.store is not None

    # ---- units -----------------------------------------------------------------------------------

    def begin_unit(self, text: str, mode: str, start_sequence: int | None = None) -> None:
        """A turn or a Plan/Team run starts: its snapshots are tagged as one unit. `start_sequence`: the ledger's
        next sequence when it began, for a unit begun before these snapshots were built (cli/snapshot_seam.py)."""
        with self._lock:
            if self._turns is None:
                self._turns = self._safe_count()
            self._turns += 1
            start = self._next_sequence() if start_sequence is None else start_sequence
            self._unit = Unit(uuid.uuid4().hex[:12], self._turns, text, mode, start)
            self._steps = 0

    def rewound(self, turns: int) -> None:
        """The conversation went back: the next turn is number `turns + 1`."""
        with self._lock:
            self._turns = max(0, turns)
            self._unit = None

    # ---- what the model is told -------------------------------------------------------------------

    def tell_model(self, what: str, lines: Sequence[str]) -> None:
        """Files changed outside the model's view (`what` happened): said in its next request."""
        if lines:
            with self._lock:
                self._notes.append((what, list(lines)))

    def take_note(self) -> str:
        """The one internal message for the next request ("" when nothing changed); said once."""
        with self._lock:
            happened, self._notes = self._notes, []
        return workspace_note(happened)

    # ---- taking snapshots --------------------------------------------------------------------------

    def start_priming(self) -> None:
        """Prepare the first snapshot in the background (the whole tree hashed into the store)."""
        self.priming.start()

    def before_first_change(self, label: str, wait: Callable[[str], None] | None = None) -> None:
        """The tool runner's hook (paicli.tools.checkpoint.TurnCheckpoint). Never raises. `wait` is told what
        the call waits for while the background preparation is still running."""
        if self.store is None:
            if self._announce:
                self._announce = False
                self.notify(f"⚠️ {self.unavailable}")
            return
        self.priming.start()  # not started at session start (`-p`): prepared now, the wait told as it goes
        self.priming.wait(wait)
        tag, unit = self._tag(label)
        try:
            snapshot = self.store.take("turn", tag)
        except (SnapshotError, OSError) as error:
            self._failed(error)
            return
        except Exception as error:  # a bug here must not cost the user their turn
            log.warning("snapshot failed", exc_info=True)
            self._failed(error)
            return
        with self._lock:
            self._failing = False
            self._taken.append(snapshot)
        self._record(SNAPSHOT_EVENT, _snapshot_metadata(snapshot, unit))

    @property
    def taken(self) -> int:
        """How many turn snapshots this session took (a mark for `files_changed_since`)."""
        with self._lock:
            return len(self._taken)

    def files_changed_since(self, mark: int) -> tuple[str, ...]:
        """Project files that differ now from the first snapshot taken after `mark` (files written by tools
        and by commands alike); () when none was taken or the store cannot tell."""
        with self._lock:
            later = self._taken[mark:]
        if not later or self.store is None:
            return ()
        try:
            changes = self.store.changes_since(later[0])
        except (SnapshotError, OSError):
            log.warning("listing the files a run changed failed", exc_info=True)
            return ()
        return tuple(sorted(os.fsdecode(change.path) for change in changes))

    def _tag(self, label: str) -> tuple[Tag, Unit | None]:
        with self._lock:
            unit = self._unit
            self._steps += 1
            step = self._steps
        if unit is None:  # a call outside any turn the session began (tests, tools run directly)
            return Tag(self._redact(label), self._session(), step=0), None
        words = self._redact(unit.words or label)
        return Tag(words, self._session(), unit.key, unit.turn, step, unit.mode), unit

    # ---- restoring ---------------------------------------------------------------------------------

    def plan(self, number: int) -> RestorePlan:
        """Restoring snapshot #`number`."""
        store = self._require()
        return store.plan(store.find(number))

    def plan_nth(self, position: int) -> RestorePlan:
        """Restoring the `position`-th most recent snapshot (revert_turn)."""
        store = self._require()
        return store.plan(store.nth(position))

    def plan_undo(self) -> RestorePlan:
        """Taking the newest turn or Plan/Team run back: its first snapshot."""
        store = self._require()
        return store.plan(store.unit_start())

    def plan_snapshot(self, snapshot: Snapshot) -> RestorePlan:
        return self._require().plan(snapshot)

    def restore(self, plan: RestorePlan, actor: str) -> RestoreResult:
        tag = Tag(session=self._session(), unit=f"restore-{uuid.uuid4().hex[:12]}")
        result = self._require().restore(plan.target, tag)
        self._record(SNAPSHOT_EVENT, _snapshot_metadata(result.before, None), actor)
        metadata = {
            "snapshot": result.target.commit,
            "ref": result.target.ref,
            "id": result.target.number,
            "before": result.before.commit,
            "files": len(result.changes),
            "conflicts": [*result.conflicts],
        }
        self._record(RESTORE_EVENT, metadata, actor)
        return result

    def snapshots(self) -> list[Snapshot]:
        return self._require().snapshots()

    def session_id(self) -> str:
        return self._session()

    def close(self, timeout: float = 5.0) -> None:
        self.priming.stop(timeout)

    def _require(self) -> SnapshotStore:
        if self.store is None:
            raise SnapshotError(self.unavailable or TURNED_OFF)
        return self.store

    def _session(self) -> str:
        ledger = self._ledger()
        try:
            return ledger.session_id if ledger is not None else ""
        except Exception:
            return ""

    def _next_sequence(self) -> int:
        ledger = self._ledger()
        try:
            return ledger.next_sequence if ledger is not None else 0
        except Exception:
            return 0

    def _safe_count(self) -> int:
        try:
            return self._count_turns()
        except Exception:  # a label without a turn number is still a label
            log.warning("counting the session's turns failed", exc_info=True)
            return 0

    def _failed(self, error: Exception) -> None:
        with self._lock:
            first, self._failing = not self._failing, True
        if first:
            reason = str(error) or type(error).__name__
            self.notify(FAILED_NOTICE.format(reason=shown_path(os.fsencode(reason))))

    def _record(self, event: str, metadata: Mapping[str, Any], actor: str = "agent") -> None:
        ledger = self._ledger()
        if ledger is None:
            return
        try:
            ledger.append_event(event, self._mode(), actor, "snapshot", metadata)
        except Exception:  # the ledger reports its own I/O errors; a snapshot stays valid without the line
            log.warning("recording a snapshot in the ledger failed", exc_info=True)


def _snapshot_metadata(snapshot: Snapshot, unit: Unit | None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "snapshot": snapshot.commit,
        "ref": snapshot.ref,
        "kind": snapshot.kind,
        "id": snapshot.number,
    }
    if unit is not None:
        data |= {"unit": unit.key, "unitStart": unit.start_sequence, "turn": unit.turn}
    if snapshot.skipped:
        data["skipped"] = list(snapshot.skipped)
    return data
