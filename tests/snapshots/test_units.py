"""Issue 43 in the store and the recorder: stable ids, a turn or Plan/Team run as one unit for `/undo`, distinct
labels, `/snapshot clean` freeing the index's objects too, `clean --all`, the background preparation of the
first snapshot, and the one note the model gets about files restored behind its back."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from paicli.snapshots.model import Change, Snapshot, Tag
from paicli.snapshots.note import file_lines, workspace_note
from paicli.snapshots.recorder import WorkspaceSnapshots
from paicli.snapshots.report import describe, list_text
from paicli.snapshots.store import SnapshotStore
from tests.snapshots.conftest import GIT, needs_git, tree_state, write

pytestmark = needs_git


class FakeLedger:
    session_id = "session-1-test"

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    @property
    def next_sequence(self) -> int:
        return len(self.events) + 1

    def append_event(self, event: str, mode: str, actor: str, source: str, metadata: Any) -> None:
        self.events.append((event, dict(metadata)))


def test_ids_stay_put_across_restores_and_clean(work: Path, store: SnapshotStore) -> None:
    write(work, b"f.txt", b"v1")
    first = store.take("turn", Tag("first"))
    write(work, b"f.txt", b"v2")
    second = store.take("turn", Tag("second"))
    assert (first.number, second.number) == (1, 2)
    store.restore(store.find(1))
    assert [s.number for s in store.snapshots()] == [3, 2, 1]  # the restore's own snapshot is #3
    assert store.find(2).label == "second" and store.find(1).label == "first"
    store.clean()
    write(work, b"f.txt", b"v3")
    assert store.take("turn").number == 4  # a number is never given twice


def test_a_snapshot_from_before_ids_is_numbered_by_age_below_new_ones(
    work: Path, store: SnapshotStore
) -> None:
    legacy = Snapshot("", "", 1_000, "turn", "old")
    assert Snapshot.from_subject("r", "c", legacy.message()) == Snapshot("r", "c", 1_000, "turn", "old")
    tagged = Snapshot.tagged("turn", 5, Tag("改", "s", "u1", 3, 2, "plan"), (), 7)
    parsed = Snapshot.from_subject("r", "c", tagged.message())
    assert parsed is not None and (parsed.number, parsed.unit, parsed.turn, parsed.step, parsed.mode) == (
        7,
        "u1",
        3,
        2,
        "plan",
    )


def test_undo_targets_the_first_snapshot_of_the_newest_unit(work: Path, tmp_path: Path) -> None:
    assert GIT is not None
    ledger = FakeLedger()
    snapshots = WorkspaceSnapshots(SnapshotStore(work, tmp_path / "side", GIT), ledger=lambda: ledger)
    before = tree_state(work)
    snapshots.begin_unit("分两步写文件", "plan")
    for step, name in enumerate((b"a.txt", b"b.txt"), 1):
        snapshots.before_first_change(f"task {step}")
        write(work, name, name)
    plan = snapshots.plan_undo()
    assert plan.target.step == 1 and {change.path for change in plan.changes} == {b"a.txt", b"b.txt"}
    labels = [describe(s) for s in snapshots.store.snapshots()]  # type: ignore[union-attr]
    assert labels == [
        "第 1 轮「分两步写文件」 Plan 第 2 步 之前",
        "第 1 轮「分两步写文件」 Plan 第 1 步 之前",
    ]
    snapshots.restore(plan, "user")
    assert tree_state(work) == before
    recorded = [metadata for event, metadata in ledger.events if event == "workspace_snapshot"]
    assert recorded[0]["unit"] == recorded[1]["unit"] and recorded[0]["turn"] == 1
    assert snapshots.plan_undo().target.kind == "restore"  # /undo again: undoes the restore


def test_the_listing_tells_turns_apart_and_counts_the_files_changed(work: Path, store: SnapshotStore) -> None:
    snapshots = [
        Snapshot("r2", "c2", 2_000, "turn", "修复登录", number=2, unit="u2", turn=2),
        Snapshot("r1", "c1", 1_000, "turn", "修复登录", number=1, unit="u1", turn=1),
    ]
    text = list_text(snapshots, changed={"r2": 3, "r1": 1})
    assert "#2" in text and "第 2 轮「修复登录」 之前 · 此后改动 3 个文件" in text
    assert "第 1 轮「修复登录」 之前 · 此后改动 1 个文件" in text


def test_clean_frees_what_the_index_held_and_clean_all_removes_the_store(work: Path, tmp_path: Path) -> None:
    assert GIT is not None
    store = SnapshotStore(work, tmp_path / "side", GIT)
    write(work, b"big.bin", os.urandom(512 * 1024))  # stays in the project: only the index references it
    store.take("turn")
    assert store.clean() > 400 * 1024
    assert store.disk_bytes() < 200 * 1024
    store.take("turn")
    assert store.remove() > 400 * 1024
    assert not store.git_dir.exists() and store.disk_bytes() == 0
    write(work, b"f.txt", b"again")
    assert store.take("turn").number >= 1 and store.git_dir.exists()  # a new store on the next change


def test_priming_hashes_the_tree_so_the_first_snapshot_only_looks_at_changes(
    work: Path, tmp_path: Path
) -> None:
    assert GIT is not None
    for index in range(30):
        write(work, f"d{index % 3}/f{index}.txt".encode(), str(index).encode())
    store = SnapshotStore(work, tmp_path / "side", GIT)
    reports: list[tuple[int, int]] = []
    store.prime(lambda done, total: reports.append((done, total)))
    assert reports[-1] == (30, 30)
    assert store.snapshots() == []  # prepared, not taken
    listed = store.repo.run(["ls-files", "-z", "--others", "--modified", "--exclude-standard"])
    assert listed == b""  # every file is in the side index already
    write(work, b"d0/f0.txt", b"changed")
    store.take("turn")
    write(work, b"d0/f0.txt", b"again")
    assert [c.path for c in store.changes_since(store.snapshots()[0])] == [b"d0/f0.txt"]


def test_a_change_during_preparation_waits_for_it_and_says_what_it_waits_for(
    work: Path, tmp_path: Path
) -> None:
    assert GIT is not None
    write(work, b"f.txt", b"x")
    release = threading.Event()
    entered = threading.Event()

    class HeldStore(SnapshotStore):  # the preparation waits until the test lets it go on
        def prime(self, progress: Any = None) -> None:
            entered.set()
            release.wait(60)
            super().prime(progress)

    store = HeldStore(work, tmp_path / "side", GIT)
    snapshots = WorkspaceSnapshots(store, ledger=FakeLedger)
    snapshots.start_priming()
    assert entered.wait(60)
    told: list[str] = []
    seen = threading.Event()

    def tell(text: str) -> None:
        told.append(text)
        seen.set()

    worker = threading.Thread(target=snapshots.before_first_change, args=("改", tell))
    worker.start()
    assert seen.wait(60)
    assert told[0].startswith("等待工作区快照准备完成") and store.snapshots() == []
    release.set()
    worker.join(60)
    assert told[-1] == "" and len(store.snapshots()) == 1


def test_one_note_names_every_file_once_with_its_last_state() -> None:
    restored = file_lines([Change("D", b"a.txt"), Change("M", b"b.txt")])
    kept = file_lines([Change("A", b"a.txt")], kept=True)
    note = workspace_note([("用户用 /restore 恢复了文件", restored), ("用户用 /undo 撤回了", kept)])
    assert note.startswith("[PAICLI_WORKSPACE_NOTE]")
    assert "用户用 /restore 恢复了文件；然后用户用 /undo 撤回了" in note
    assert note.count("a.txt") == 1 and "a.txt（已删除）" in note and "b.txt（内容已改回）" in note
    assert workspace_note([("什么也没变", [])]) == ""
