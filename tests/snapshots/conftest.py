"""Builders for the snapshot tests: a project folder, a store over it, and a byte-exact picture of a tree."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from paicli.snapshots.store import SnapshotStore

GIT = shutil.which("git")
needs_git = pytest.mark.skipif(GIT is None, reason="the snapshot store runs the git program")
State = dict[bytes, tuple[str, int, bytes]]


def tree_state(root: Path, skip: tuple[bytes, ...] = (b".git",)) -> State:
    """Every folder, file (mode bits and a digest) and symlink under `root`, by raw byte path."""
    base = os.fsencode(root)
    state: State = {}
    for folder, dirs, files in os.walk(base):
        if folder == base:
            dirs[:] = [name for name in dirs if name not in skip]
        for name in dirs + files:
            full = os.path.join(folder, name)
            info = os.lstat(full)
            relative = os.path.relpath(full, base)
            if stat.S_ISLNK(info.st_mode):
                state[relative] = ("link", 0, os.readlink(full))
            elif stat.S_ISDIR(info.st_mode):
                state[relative] = ("dir", 0, b"")
            else:
                with open(full, "rb") as handle:
                    digest = hashlib.sha256(handle.read()).digest()
                state[relative] = ("file", stat.S_IMODE(info.st_mode), digest)
    return state


def write(root: Path, relative: bytes, data: bytes = b"x", mode: int | None = None) -> None:
    full = os.path.join(os.fsencode(root), relative)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "wb") as handle:
        handle.write(data)
    if mode is not None:
        os.chmod(full, mode)


def git_init(root: Path) -> None:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "--allow-empty", "-m", "start"]):
        subprocess.run([*git, *args], cwd=root, env=env, check=True, capture_output=True)


@pytest.fixture
def work(tmp_path: Path) -> Path:
    """The project folder (not the working directory)."""
    root = tmp_path / "work"
    root.mkdir()
    return root


@pytest.fixture
def store(work: Path, tmp_path: Path) -> SnapshotStore:
    assert GIT is not None
    return SnapshotStore(work, tmp_path / "home" / "snapshots" / "side", GIT, keep=50)
