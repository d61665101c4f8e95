"""SnapshotStore: one project's side repository under `<paicli home>/snapshots/<project-key>/`.

A snapshot is `git update-index` of the paths that changed since the last one (the side index's stat cache
makes a small change cheap), `write-tree`, `commit-tree` (no parent: an old snapshot can be pruned on its own)
and one ref `refs/paicli/snapshots/<nanoseconds>`. Every operation holds a thread lock and an flock on the
side repository, so parallel Plan tasks and a second paicli process on the same folder queue up.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path

from paicli.fsperm import ensure_private_dir
from paicli.snapshots.apply import apply_changes
from paicli.snapshots.git import (
    SIDE_ATTRIBUTES,
    SIDE_CONFIG,
    GitRepo,
    SnapshotError,
    nul_list,
    split_nul,
)
from paicli.snapshots.model import (
    Change,
    ChangeStatus,
    RestorePlan,
    RestoreResult,
    Snapshot,
    SnapshotKind,
    Staged,
    one_line,
)
from paicli.snapshots.secrets import SecretScan
from paicli.snapshots.stage import MAX_FILE_BYTES, exclude_text, sort_paths

REF_NAMESPACE = "refs/paicli/snapshots/"
DEFAULT_KEEP = 50
LOCK_WAIT_SECONDS = 30.0
OBJECT_PRUNE_EVERY = 10
_ZERO = "0" * 40
_STATUSES = frozenset("ADMT")


class SnapshotStore:
    def __init__(
        self,
        project_root: Path,
        git_dir: Path,
        git: str,
        *,
        keep: int = DEFAULT_KEEP,
        max_file_bytes: int = MAX_FILE_BYTES,
        excluded_dirs: Sequence[Path] = (),
        secrets: SecretScan | None = None,
    ) -> None:
        self.repo = GitRepo(git, Path(git_dir), Path(os.path.realpath(project_root)))
        self.keep = max(1, keep)
        self.max_file_bytes = max_file_bytes
        self.excluded_dirs = (*excluded_dirs, Path(git_dir))
        self._lock = threading.Lock()
        self._pruned = 0  # snapshots pruned since unreachable objects were last dropped
        self.secrets = secrets if secrets is not None else SecretScan()

    @property
    def git_dir(self) -> Path:
        return self.repo.git_dir

    # ---- public operations -------------------------------------------------------------------------

    def take(self, kind: SnapshotKind, label: str = "", session: str = "") -> Snapshot:
        with self._locked():
            return self._take(kind, label, session)

    def snapshots(self) -> list[Snapshot]:
        """Newest first."""
        if not (self.git_dir / "HEAD").exists():
            return []
        out = self.repo.run(
            [
                "for-each-ref",
                "--sort=-refname",
                "--format=%(refname)%00%(objectname)%00%(subject)",
                REF_NAMESPACE,
            ]
        )
        found = []
        for line in out.decode("utf-8", "replace").splitlines():
            ref, _, rest = line.partition("\0")
            commit, _, subject = rest.partition("\0")
            snapshot = Snapshot.from_subject(ref, commit, subject)
            if snapshot is not None:
                found.append(snapshot)
        return found

    def nth(self, position: int) -> Snapshot:
        found = self.snapshots()
        if not found:
            raise SnapshotError("本项目还没有快照（每轮第一次改动文件之前会自动拍一个）")
        if not 1 <= position <= len(found):
            raise SnapshotError(
                f"没有第 {position} 个快照：本项目共有 {len(found)} 个（/snapshot list 查看）"
            )
        return found[position - 1]

    def plan(self, position: int) -> RestorePlan:
        """What restoring the `position`-th most recent snapshot would change (nothing is written)."""
        with self._locked():
            target = self.nth(position)
            staged = self._stage()
            return RestorePlan(target, position, self._diff(staged.tree, target.commit), staged.skipped)

    def restore(self, target: Snapshot, session: str = "") -> RestoreResult:
        """Snapshot the current state (kind `restore`, so the restore can be undone), then put `target` back."""
        with self._locked():
            label = f"恢复到 {time.strftime('%H:%M:%S', time.localtime(target.created_ms / 1000))} 的快照"
            before = self._take("restore", label, session)
            changes = self._diff(before.commit, target.commit)
            conflicts = apply_changes(self.repo, target.commit, changes)
            return RestoreResult(target, before, changes, conflicts)

    def changes_since(self, snapshot: Snapshot) -> tuple[Change, ...]:
        with self._locked():
            return self._diff(snapshot.commit, self._stage().tree)

    def clean(self) -> int:
        """Delete every snapshot of this project and the objects only they held; returns the bytes freed."""
        with self._locked():
            before = self.disk_bytes()
            refs = [snapshot.ref for snapshot in self.snapshots()]
            self._delete_refs(refs)
            self._drop_unreachable()
            return max(0, before - self.disk_bytes())

    def disk_bytes(self) -> int:
        total = 0
        for folder, _, files in os.walk(self.git_dir):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(folder, name)).st_size
        return total

    # ---- inside the lock ---------------------------------------------------------------------------

    def _take(self, kind: SnapshotKind, label: str, session: str) -> Snapshot:
        staged = self._stage()
        snapshot = Snapshot(
            "", "", time.time_ns() // 1_000_000, kind, one_line(label), session, staged.skipped
        )
        commit = self.repo.run(["commit-tree", "--no-gpg-sign", staged.tree, "-m", snapshot.message()])
        commit_id = commit.decode("ascii").strip()
        for _ in range(5):  # two processes in the same nanosecond: the second picks the next name
            ref = f"{REF_NAMESPACE}{time.time_ns():020d}"
            try:
                self.repo.run(["update-ref", "--no-deref", ref, commit_id, _ZERO])
                break
            except SnapshotError:
                continue
        else:
            raise SnapshotError("无法记录快照的引用")
        self._prune()
        return replace(snapshot, ref=ref, commit=commit_id)

    def _stage(self) -> Staged:
        self._ensure_repo()
        try:
            return self._stage_once()
        except SnapshotError as error:
            if "index" not in str(error).lower() or not self.repo.index.exists():
                raise
            # a damaged side index (a crash mid-write): rebuild it from the work tree, slower but the same tree
            self.repo.index.unlink()
            return self._stage_once()

    def _stage_once(self) -> Staged:
        listed = self.repo.run(["ls-files", "-z", "--others", "--modified", "--exclude-standard"])
        paths = sorted(set(split_nul(listed)))
        sorted_paths = sort_paths(os.fsencode(self.repo.work_tree), paths, self.max_file_bytes, self.secrets)
        if sorted_paths.remove:
            self.repo.run(["update-index", "-z", "--force-remove", "--stdin"], nul_list(sorted_paths.remove))
        if sorted_paths.add:
            self.repo.run(["update-index", "-z", "--add", "--remove", "--stdin"], nul_list(sorted_paths.add))
        tree = self.repo.run(["write-tree"]).decode("ascii").strip()
        return Staged(tree, sorted_paths.skipped)

    def _diff(self, old: str, new: str) -> tuple[Change, ...]:
        out = self.repo.run(["diff-tree", "-r", "-z", "--no-renames", "--raw", old, new])
        parts = split_nul(out)
        changes = []
        for header, path in zip(parts[::2], parts[1::2], strict=False):
            fields = header.decode("ascii", "replace").lstrip(":").split()
            status = fields[-1][:1] if fields else ""
            if status in _STATUSES and len(fields) >= 5:
                kind: ChangeStatus = status  # type: ignore[assignment]
                changes.append(Change(kind, path, fields[0], fields[1]))
        return tuple(changes)

    def _prune(self) -> None:
        stale = self.snapshots()[self.keep :]
        if stale:
            self._delete_refs([snapshot.ref for snapshot in stale])
            self._pruned += len(stale)
            if self._pruned >= OBJECT_PRUNE_EVERY:  # a walk of every kept snapshot: not on every turn
                self._drop_unreachable()

    def _drop_unreachable(self) -> None:
        """Loose objects no snapshot (and not the side index) still uses; nothing is ever packed, so this frees
        their space without rewriting the store."""
        self._pruned = 0
        if (self.git_dir / "HEAD").exists():
            self.repo.run(["prune", "--expire=now"])

    def _delete_refs(self, refs: Sequence[str]) -> None:
        if refs:
            commands = "".join(f"delete {ref}\n" for ref in refs).encode("ascii")
            self.repo.run(["update-ref", "--stdin"], commands)

    def _ensure_repo(self) -> None:
        git_dir = self.git_dir
        if not (git_dir / "HEAD").exists():
            for folder in (git_dir, git_dir / "objects", git_dir / "refs", git_dir / "info"):
                ensure_private_dir(folder)
            _write_if_changed(git_dir / "config", SIDE_CONFIG.encode("utf-8"))
            _write_if_changed(git_dir / "info" / "attributes", SIDE_ATTRIBUTES.encode("utf-8"))
            _write_if_changed(git_dir / "project", os.fsencode(self.repo.work_tree) + b"\n")
            _write_if_changed(git_dir / "HEAD", b"ref: refs/heads/snapshots\n")
        excludes = exclude_text(self.repo.work_tree, self.excluded_dirs)
        _write_if_changed(git_dir / "info" / "exclude", excludes.encode("utf-8", "surrogateescape"))

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        with self._lock:
            ensure_private_dir(self.git_dir)
            fd = _flock(self.git_dir / "paicli.lock")
            try:
                yield
            finally:
                os.close(fd)


def _flock(path: Path) -> int:
    fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o600)
    try:
        import fcntl
    except ImportError:  # no flock (Windows): only the thread lock guards the store
        return fd
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise SnapshotError("另一个 paicli 进程正在使用这个项目的快照库") from None
            time.sleep(0.05)


def _write_if_changed(path: Path, data: bytes) -> None:
    try:
        if path.read_bytes() == data:
            return
    except OSError:
        pass
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)
