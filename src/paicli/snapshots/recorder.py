"""WorkspaceSnapshots: the session's face of the store. The tool runner calls `before_first_change` before the
first file-changing call of each turn (each Plan task, each Team step); `/restore`, `/undo` and `revert_turn`
restore through it. Each snapshot and restore is recorded in the session ledger, so a resumed session knows
which snapshot belongs to which turn.

A snapshot failure never stops a turn: it is reported once (until a snapshot works again) and the call runs.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from paicli.config import knobs
from paicli.redact import Redactor
from paicli.snapshots.git import SnapshotError, find_git
from paicli.snapshots.model import RestorePlan, RestoreResult, Snapshot, project_key, shown_path
from paicli.snapshots.secrets import SecretScan
from paicli.snapshots.store import SnapshotStore

log = logging.getLogger(__name__)

SNAPSHOT_EVENT = "workspace_snapshot"
RESTORE_EVENT = "workspace_restore"
FAILED_NOTICE = "⚠️ 工作区快照失败（{reason}），本轮的改动将无法用 /undo 撤回；任务照常继续。"
NO_GIT = "没有找到 git 程序，工作区快照已关闭（/undo、/restore 不可用）"
HOME_ROOT = "项目根目录是主目录或文件系统根目录，范围太大，不做工作区快照"
TURNED_OFF = f"{knobs.SNAPSHOTS.key}=off，工作区快照已关闭"


class EventLedger(Protocol):
    @property
    def session_id(self) -> str: ...

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None: ...


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
    git = find_git()
    if git is None:
        return NO_GIT
    real = Path(os.path.realpath(project_root))
    homes = {Path(os.path.realpath(user_home or Path.home()))}
    if real.parent == real or real in homes:
        return HOME_ROOT
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
    ) -> None:
        self.store = store
        self.unavailable = unavailable
        self._ledger = ledger or (lambda: None)
        self._mode = mode or (lambda: "react")
        self.notify: Callable[[str], None] = notify or (lambda text: log.warning("%s", text))
        self._announce = announce_unavailable
        self._redact = redact or Redactor().text  # the label is the user's input: it is stored on disk
        self._failing = False
        self._lock = threading.Lock()
        self._taken: list[Snapshot] = []  # this session's turn snapshots, oldest first

    @property
    def enabled(self) -> bool:
        return self.store is not None

    def before_first_change(self, label: str) -> None:
        """The tool runner's hook (paicli.tools.checkpoint.TurnCheckpoint). Never raises."""
        if self.store is None:
            if self._announce:
                self._announce = False
                self.notify(f"⚠️ {self.unavailable}")
            return
        try:
            snapshot = self.store.take("turn", self._redact(label), self._session())
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
        self._record(SNAPSHOT_EVENT, _snapshot_metadata(snapshot))

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

    def plan(self, position: int) -> RestorePlan:
        return self._require().plan(position)

    def restore(self, plan: RestorePlan, actor: str) -> RestoreResult:
        result = self._require().restore(plan.target, self._session())
        self._record(SNAPSHOT_EVENT, _snapshot_metadata(result.before), actor)
        metadata = {
            "snapshot": result.target.commit,
            "ref": result.target.ref,
            "position": plan.position,
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


def _snapshot_metadata(snapshot: Snapshot) -> dict[str, Any]:
    data: dict[str, Any] = {"snapshot": snapshot.commit, "ref": snapshot.ref, "kind": snapshot.kind}
    if snapshot.skipped:
        data["skipped"] = list(snapshot.skipped)
    return data
