"""SnapshotStore: one project's side repository under `<paicli home>/snapshots/<project-key>/`.

A snapshot is `git update-index` of the paths that changed since the last one (the side index's stat cache
makes a small change cheap), `write-tree`, `commit-tree` (no parent: an old snapshot can be pruned on its own)
and one ref `refs/paicli/snapshots/<nanoseconds>`. Each snapshot gets a stable id (#N, from a counter kept in
the side repository), so a listing's numbers never shift. Every operation holds a thread lock and an flock on
the side repository, so parallel Plan tasks and a second paicli process on the same folder queue up.
"""

from __future__ import annotations

import contextlib
import os
import shutil
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
    Tag,
)
from paicli.snapshots.secrets import SecretScan
from paicli.snapshots.stage import MAX_FILE_BYTES, Progress, exclude_text, sort_paths

REF_NAMESPACE = "refs/paicli/snapshots/"
DEFAULT_KEEP = 50
LOCK_WAIT_SECONDS = 30.0
OBJECT_PRUNE_EVERY = 10
COUNTER_FILE = "next-id"
PRIME_CHUNK = 2000  # paths sorted and handed to git between two progress reports
NO_SNAPSHOTS = "本项目还没有快照（每轮第一次改动文件之前会自动拍一个）"
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

    def take(self, kind: SnapshotKind, tag: Tag | None = None) -> Snapshot:
        with self._locked():
            return self._take(kind, tag or Tag())

    def prime(self, progress: Progress | None = None) -> None:
        """Record the whole working tree in the side index (every file hashed into the store) without taking
        a snapshot: the first snapshot of a session then only looks at what changed since."""
        with self._locked():
            self._ensure_repo()
            listed = self.repo.run(["ls-files", "-z", "--others", "--modified", "--exclude-standard"])
            paths = sorted(set(split_nul(listed)))
            root = os.fsencode(self.repo.work_tree)
            for start in range(0, len(paths), PRIME_CHUNK):
                chunk = sort_paths(
                    root, paths[start : start + PRIME_CHUNK], self.max_file_bytes, self.secrets
                )
                self._update_index(chunk.add, chunk.remove)
                if progress is not None:
                    progress(min(len(paths), start + PRIME_CHUNK), len(paths))
            self.repo.run(
                ["write-tree"]
            )  # the trees and the index's cache of them: the first snapshot reuses both

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
        return _numbered(found)

    def nth(self, position: int) -> Snapshot:
        """The `position`-th most recent snapshot (revert_turn counts back from the newest)."""
        found = self.snapshots()
        if not found:
            raise SnapshotError(NO_SNAPSHOTS)
        if not 1 <= position <= len(found):
            raise SnapshotError(
                f"没有第 {position} 近的快照：本项目共有 {len(found)} 个（/snapshot list 查看）"
            )
        return found[position - 1]

    def find(self, number: int) -> Snapshot:
        """The snapshot with id #`number`."""
        found = self.snapshots()
        if not found:
            raise SnapshotError(NO_SNAPSHOTS)
        for snapshot in found:
            if snapshot.number == number:
                return snapshot
        ids = f"#{found[-1].number} 到 #{found[0].number}"
        raise SnapshotError(f"没有编号为 #{number} 的快照：现有的编号是 {ids}（/snapshot list 查看）")

    def unit_start(self) -> Snapshot:
        """The first snapshot of the newest turn or run: restoring it takes the whole turn or run back."""
        found = self.snapshots()
        if not found:
            raise SnapshotError(NO_SNAPSHOTS)
        unit = found[0].unit_key
        return [snapshot for snapshot in found if snapshot.unit_key == unit][-1]

    def plan(self, target: Snapshot) -> RestorePlan:
        """What restoring `target` would change (nothing is written)."""
        with self._locked():
            staged = self._stage()
            return RestorePlan(target, self._diff(staged.tree, target.commit), staged.skipped)

    def restore(self, target: Snapshot, tag: Tag | None = None) -> RestoreResult:
        """Snapshot the current state (kind `restore`, so the restore can be undone), then put `target` back."""
        with self._locked():
            label = f"恢复到 #{target.number} 之前" if target.number else "恢复之前"
            before = self._take("restore", replace(tag or Tag(), label=label, step=0))
            changes = self._diff(before.commit, target.commit)
            conflicts = apply_changes(self.repo, target.commit, changes)
            return RestoreResult(target, before, changes, conflicts)

    def changes_since(self, snapshot: Snapshot) -> tuple[Change, ...]:
        with self._locked():
            return self._diff(snapshot.commit, self._stage().tree)

    def changes_between(self, older: Snapshot, newer: Snapshot) -> tuple[Change, ...]:
        with self._locked():
            return self._diff(older.commit, newer.commit)

    def clean(self) -> int:
        """Delete every snapshot of this project and every object they held (the side index too, which
        references the whole tree); returns the bytes freed. The next snapshot hashes the tree again."""
        with self._locked():
            before = self.disk_bytes()
            refs = [snapshot.ref for snapshot in self.snapshots()]
            self._delete_refs(refs)
            with contextlib.suppress(FileNotFoundError):
                self.repo.index.unlink()
            # with no ref and no index left every object is unreachable: removing the folder is what a prune
            # would do, without walking a hundred thousand loose objects first
            objects = self.git_dir / "objects"
            shutil.rmtree(objects, ignore_errors=True)
            ensure_private_dir(objects)
            self._pruned = 0
            return max(0, before - self.disk_bytes())

    def remove(self) -> int:
        """Delete this project's whole store (`/snapshot clean --all`); returns the bytes freed."""
        with self._lock:
            before = self.disk_bytes()
            shutil.rmtree(self.git_dir, ignore_errors=True)
            return max(0, before - self.disk_bytes())

    def disk_bytes(self) -> int:
        total = 0
        for folder, _, files in os.walk(self.git_dir):
            for name in files:
                with contextlib.suppress(OSError):
                    total += os.lstat(os.path.join(folder, name)).st_size
        return total

    # ---- inside the lock ---------------------------------------------------------------------------

    def _take(self, kind: SnapshotKind, tag: Tag) -> Snapshot:
        staged = self._stage()
        number = self._next_number()
        snapshot = Snapshot.tagged(kind, time.time_ns() // 1_000_000, tag, staged.skipped, number)
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

    def _next_number(self) -> int:
        """The next stable id; a store from before ids existed starts above its snapshots' positions."""
        counter = self.git_dir / COUNTER_FILE
        try:
            number = int(counter.read_text(encoding="ascii").strip())
        except (OSError, ValueError):
            number = max((snapshot.number for snapshot in self.snapshots()), default=0) + 1
        _write_if_changed(counter, f"{number + 1}\n".encode("ascii"))
        return number

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
        self._update_index(sorted_paths.add, sorted_paths.remove)
        tree = self.repo.run(["write-tree"]).decode("ascii").strip()
        return Staged(tree, sorted_paths.skipped)

    def _update_index(self, add: Sequence[bytes], remove: Sequence[bytes]) -> None:
        if remove:
            self.repo.run(["update-index", "-z", "--force-remove", "--stdin"], nul_list(remove))
        # a whole tree (a snapshot after /snapshot clean, a store with no preparation) goes in chunks, so no
        # single git process runs into the timeout on a large project
        for start in range(0, len(add), PRIME_CHUNK * 5):
            chunk = add[start : start + PRIME_CHUNK * 5]
            self.repo.run(["update-index", "-z", "--add", "--remove", "--stdin"], nul_list(chunk))

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


def _numbered(found: list[Snapshot]) -> list[Snapshot]:
    """Snapshots taken before ids existed are numbered by age, below every id given since."""
    legacy = [index for index, snapshot in enumerate(found) if not snapshot.number]
    for age, index in enumerate(reversed(legacy), 1):
        found[index] = replace(found[index], number=age)
    return found


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
