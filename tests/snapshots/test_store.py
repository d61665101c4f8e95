"""SnapshotStore with the real git program: exact restores, what is left out, and the project's .git untouched."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paicli.snapshots.git import SnapshotError
from paicli.snapshots.model import Tag
from paicli.snapshots.store import SnapshotStore
from tests.snapshots.conftest import GIT, git_init, needs_git, tree_state, write

pytestmark = needs_git


def restore_latest(store: SnapshotStore, position: int = 1) -> tuple[str, ...]:
    plan = store.plan(store.nth(position))
    return store.restore(plan.target).conflicts


def test_a_restore_brings_back_bytes_modes_links_and_odd_names(work: Path, store: SnapshotStore) -> None:
    write(work, b"edit.txt", b"one\r\ntwo\n")  # CRLF stays CRLF: no end-of-line conversion
    write(work, b"run.sh", b"#!/bin/sh\n", 0o755)
    write(work, b"caf\xe9 \xff.txt", b"not utf-8 name")
    write(work, b"with\nnewline and space.txt", b"odd")
    write(work, b"dir/deep/data.bin", bytes(range(256)))
    write(work, b"was-file", b"file")
    os.symlink("edit.txt", work / "link")
    before = tree_state(work)
    store.take("turn", Tag("before the turn"))

    write(work, b"edit.txt", b"changed")
    os.chmod(work / "run.sh", 0o644)
    os.remove(os.path.join(os.fsencode(work), b"caf\xe9 \xff.txt"))
    os.remove(os.path.join(os.fsencode(work), b"with\nnewline and space.txt"))
    write(work, b"created/by/turn.txt", b"new")
    os.remove(work / "dir" / "deep" / "data.bin")
    os.remove(work / "was-file")
    write(work, b"was-file/inside.txt", b"now a folder")
    os.remove(work / "link")
    write(work, b"link", b"now a plain file")
    assert tree_state(work) != before

    assert restore_latest(store) == ()
    assert tree_state(work) == before


def test_ignored_files_and_skip_folders_are_never_stored_nor_touched(
    work: Path, store: SnapshotStore
) -> None:
    write(work, b".gitignore", b"*.log\nsecret/\n")
    write(work, b"sub/.gitignore", b"local.txt\n")
    write(work, b"app.log", b"old log")
    write(work, b"secret/key", b"k")
    write(work, b"sub/local.txt", b"local")
    write(work, b"node_modules/pkg/index.js", b"dep")
    write(work, b".paicli/tool-outputs/a.txt", b"offloaded")
    write(work, b"src/main.py", b"print(1)\n")
    snapshot = store.take("turn")
    stored = store.repo.run(["ls-tree", "-r", "-z", "--name-only", snapshot.commit]).split(b"\0")
    assert sorted(name for name in stored if name) == [b".gitignore", b"src/main.py", b"sub/.gitignore"]

    for path in (b"app.log", b"secret/key", b"sub/local.txt", b"node_modules/pkg/index.js"):
        write(work, path, b"changed by the turn")
    write(work, b"src/main.py", b"print(2)\n")
    restore_latest(store)
    assert (work / "src" / "main.py").read_bytes() == b"print(1)\n"
    assert (work / "app.log").read_bytes() == b"changed by the turn"
    assert (work / "node_modules" / "pkg" / "index.js").read_bytes() == b"changed by the turn"


def test_the_projects_git_folder_and_user_git_settings_play_no_part(
    work: Path, store: SnapshotStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(work, b"a.txt", b"lf only\n")
    write(work, b".gitattributes", b"* text eol=crlf\n")
    git_init(work)
    home = tmp_path / "user-home"
    write(home, b".gitconfig", b"[core]\n\tautocrlf = true\n\thooksPath = /nonexistent\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_DIR", str(work / ".git"))  # a user's shell may export these; they must not leak
    monkeypatch.setenv("GIT_INDEX_FILE", str(work / ".git" / "index"))
    git_before = tree_state(work / ".git", skip=())
    before = tree_state(work)

    store.take("turn")
    write(work, b"a.txt", b"edited\n")
    write(work, b"b.txt", b"new\n")
    restore_latest(store)

    assert tree_state(work) == before
    assert (work / "a.txt").read_bytes() == b"lf only\n"
    assert tree_state(work / ".git", skip=()) == git_before


def test_large_files_are_left_out_and_named(work: Path, tmp_path: Path) -> None:
    assert GIT is not None
    store = SnapshotStore(work, tmp_path / "side", GIT, max_file_bytes=1024)
    write(work, b"small.txt", b"s")
    write(work, b"big.bin", b"b" * 4096)
    snapshot = store.take("turn")
    assert [skip for skip in snapshot.skipped if skip.startswith("big.bin")]
    assert store.snapshots()[0].skipped == snapshot.skipped
    write(work, b"big.bin", b"c" * 4096)
    write(work, b"small.txt", b"t")
    plan = store.plan(store.nth(1))
    assert [change.path for change in plan.changes] == [b"small.txt"]
    store.restore(plan.target)
    assert (work / "big.bin").read_bytes() == b"c" * 4096  # never in the snapshot: never touched


def test_a_folder_of_unknown_files_where_a_file_belongs_is_a_conflict(
    work: Path, store: SnapshotStore
) -> None:
    write(work, b".gitignore", b"*.tmp\n")
    write(work, b"thing", b"a file")
    store.take("turn")
    os.remove(work / "thing")
    write(work, b"thing/cache.tmp", b"ignored, unknown to the snapshot")
    conflicts = restore_latest(store)
    assert conflicts == ("thing",)
    assert (work / "thing" / "cache.tmp").read_bytes() == b"ignored, unknown to the snapshot"


def test_restore_is_undoable_and_numbering_counts_from_the_newest(work: Path, store: SnapshotStore) -> None:
    write(work, b"f.txt", b"v1")
    store.take("turn", Tag("first"))
    write(work, b"f.txt", b"v2")
    store.take("turn", Tag("second"))
    write(work, b"f.txt", b"v3")
    assert [s.label for s in store.snapshots()] == ["second", "first"]
    restore_latest(store, 2)
    assert (work / "f.txt").read_bytes() == b"v1"
    assert [s.kind for s in store.snapshots()] == ["restore", "turn", "turn"]
    restore_latest(store, 1)  # /undo after a restore puts back what the restore replaced
    assert (work / "f.txt").read_bytes() == b"v3"


def test_nothing_to_restore_and_bad_positions(work: Path, store: SnapshotStore) -> None:
    with pytest.raises(SnapshotError, match="还没有快照"):
        store.plan(store.nth(1))
    write(work, b"f.txt", b"same")
    store.take("turn")
    assert store.plan(store.nth(1)).changes == ()
    with pytest.raises(SnapshotError, match="共有 1 个"):
        store.plan(store.nth(2))


def test_keep_prunes_the_oldest_and_clean_removes_all(work: Path, tmp_path: Path) -> None:
    assert GIT is not None
    store = SnapshotStore(work, tmp_path / "side", GIT, keep=3)
    for index in range(5):
        write(work, b"f.txt", str(index).encode())
        store.take("turn", Tag(f"t{index}"))
    assert [s.label for s in store.snapshots()] == ["t4", "t3", "t2"]
    write(work, b"big.bin", os.urandom(256 * 1024))
    store.take("turn", Tag("big"))
    os.remove(work / "big.bin")
    store.take("turn", Tag("after"))
    assert store.clean() > 200 * 1024  # the big file's blob only lived in snapshots
    assert store.snapshots() == []
    write(work, b"f.txt", b"again")
    assert store.take("turn").kind == "turn"


def test_the_store_is_private(work: Path, store: SnapshotStore) -> None:
    write(work, b"f.txt", b"private content")
    store.take("turn")
    for folder, dirs, files in os.walk(store.git_dir):
        for name in dirs:
            assert os.stat(os.path.join(folder, name)).st_mode & 0o077 == 0, os.path.join(folder, name)
        for name in files:
            assert os.stat(os.path.join(folder, name)).st_mode & 0o077 == 0, os.path.join(folder, name)


def test_pruned_snapshots_give_their_space_back(work: Path, tmp_path: Path) -> None:
    assert GIT is not None
    store = SnapshotStore(work, tmp_path / "side", GIT, keep=2)
    blob = 64 * 1024
    for _ in range(25):
        write(work, b"big.bin", os.urandom(blob))  # incompressible: each version costs its full size
        store.take("turn")
    assert len(store.snapshots()) == 2
    # without dropping unreachable objects the store would hold all 25 versions
    assert store.disk_bytes() < 15 * blob


def test_a_damaged_side_index_is_rebuilt(work: Path, store: SnapshotStore) -> None:
    write(work, b"f.txt", b"one")
    first = store.take("turn")
    store.repo.index.write_bytes(b"DIRC garbage")
    write(work, b"f.txt", b"two")
    second = store.take("turn")
    assert store.repo.run(["cat-file", "-p", f"{second.commit}:f.txt"]) == b"two"
    assert store.repo.run(["cat-file", "-p", f"{first.commit}:f.txt"]) == b"one"


def test_files_holding_secrets_stay_out_of_the_store(work: Path, tmp_path: Path) -> None:
    from paicli.snapshots.secrets import SecretScan

    assert GIT is not None
    configured = "configured-key-0123456789"
    store = SnapshotStore(work, tmp_path / "side", GIT, secrets=SecretScan([configured]))
    write(work, b".env", b"ANYTHING=1\n")
    write(work, b"creds.txt", b"Authorization: Bearer tok.abc.defghijk\n")
    write(work, b"notes.md", "数据库密码是 s3cr3t-db-pass\n".encode())
    write(work, b"conf.ini", f"key {configured}\n".encode())
    write(work, b"id_ed25519", b"whatever")
    write(
        work,
        b"settings.py",
        b'api_key = os.environ["API_KEY"]\nheaders = {"Authorization": f"Bearer {token}"}\n',
    )
    snapshot = store.take("turn")
    stored = store.repo.run(["ls-tree", "-r", "-z", "--name-only", snapshot.commit]).split(b"\0")
    assert [name for name in stored if name] == [b"settings.py"]  # ordinary code is not a secret
    assert len(snapshot.skipped) == 5 and all("不存入快照" in skip for skip in snapshot.skipped)
    for folder, _, files in os.walk(store.git_dir):
        for name in files:
            data = Path(folder, name).read_bytes()
            assert b"tok.abc" not in data and b"s3cr3t" not in data and configured.encode() not in data
    os.remove(work / "creds.txt")
    write(work, b"settings.py", b"changed")
    store.restore(store.plan(store.nth(1)).target)
    assert not (work / "creds.txt").exists()  # never stored, so never brought back
    assert (work / "settings.py").read_bytes().startswith(b"api_key")
