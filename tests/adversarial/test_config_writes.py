"""Auto mode asks before a write to what configures paicli, git or the shell (issue 26)."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.tools.approval import ApprovalState
from paicli.tools.protected import in_gitdir_shaped_folder, is_protected_path
from paicli.tools.registry import EDIT_FILE, WRITE_FILE


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        ".env.local",
        "sub/.env.production",
        ".envrc",
        ".gitmodules",
        "PAI.md",
        "PAI.team.md",
        "docs/pai-notes.md",
        ".paicli/config.json",
        ".paicli/mcp.json",
        ".git/config",
        "vendor/.git/hooks/post-checkout",
    ],
)
def test_config_files_need_approval_in_auto_mode(path: str) -> None:
    assert is_protected_path(path)
    state = ApprovalState("auto")
    assert state.needs_approval(WRITE_FILE, {"path": path, "content": "x"}, path) is not None
    assert state.needs_approval(EDIT_FILE, {"path": path}, path) is not None


@pytest.mark.parametrize("path", ["src/env.py", "environment.md", "docs/api.md", "PAI.md.bak", "README.md"])
def test_ordinary_files_do_not(path: str) -> None:
    assert not is_protected_path(path)
    assert ApprovalState("auto").needs_approval(WRITE_FILE, {"path": path}, path) is None


def test_an_always_grant_does_not_cover_env_files() -> None:
    state = ApprovalState("auto")
    state.grant(WRITE_FILE, {"path": "src/a.py"})
    state.grant(WRITE_FILE, {"path": ".env"})
    assert state.needs_approval(WRITE_FILE, {"path": ".env"}, ".env") is not None


def test_git_dir_shaped_folders_are_protected(tmp_path: Path) -> None:
    bare = tmp_path / "backup"
    (bare / "objects").mkdir(parents=True)
    (bare / "refs").mkdir()
    (bare / "HEAD").write_text("ref: refs/heads/main\n")
    state = ApprovalState("auto")
    for path in ("backup/config", "backup/hooks/pre-commit", "backup/objects/ab/cd"):
        assert in_gitdir_shaped_folder(tmp_path, path)
        assert state.needs_approval(WRITE_FILE, {"path": path}, path, tmp_path) is not None
    assert not in_gitdir_shaped_folder(tmp_path, "other/config")
    assert state.needs_approval(WRITE_FILE, {"path": "src/x.py"}, "src/x.py", tmp_path) is None


def test_completing_the_shape_of_a_git_dir_needs_approval(tmp_path: Path) -> None:
    folder = tmp_path / "fake"
    (folder / "objects").mkdir(parents=True)
    (folder / "HEAD").write_text("ref: refs/heads/main\n")
    assert not in_gitdir_shaped_folder(tmp_path, "fake/notes.txt")
    assert in_gitdir_shaped_folder(tmp_path, "fake/refs/heads/main")
    (tmp_path / "half" / "objects").mkdir(parents=True)
    (tmp_path / "half" / "refs").mkdir()
    assert in_gitdir_shaped_folder(tmp_path, "half/HEAD")


def test_the_approval_and_the_sandbox_share_one_git_dir_test(tmp_path: Path) -> None:
    dangling = tmp_path / "dangling"
    (dangling / "objects").mkdir(parents=True)
    (dangling / "refs").mkdir()
    (dangling / "HEAD").symlink_to(tmp_path / "nowhere")
    assert in_gitdir_shaped_folder(tmp_path, "dangling/config")
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "HEAD").write_text("ref: refs/heads/main\n")
    (linked / "commondir").write_text("../elsewhere\n")
    assert in_gitdir_shaped_folder(tmp_path, "linked/hooks/pre-commit")
    half = tmp_path / "half"
    half.mkdir()
    (half / "HEAD").write_text("ref: refs/heads/main\n")
    assert in_gitdir_shaped_folder(tmp_path, "half/commondir")
    assert not in_gitdir_shaped_folder(tmp_path, "half/notes.txt")
