"""Git by allow-list: a read-only git command runs unasked only in repositories whose config holds nothing but
known-harmless keys; whatever names a program or turns on an extension makes it ask. The classifier and the
sandbox take one view of what a git directory is (a dangling HEAD included)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from paicli.tools.gitrepo import config_is_unsafe, git_dir_shaped, git_is_safe_in
from paicli.tools.guards import is_read_only_command
from paicli.tools.sandbox.rules import walk_project


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


@pytest.mark.parametrize(
    "config",
    [
        "[extensions]\n\tpartialClone = origin\n",
        "[extensions]\n\tworktreeConfig = true\n",
        '[remote "origin"]\n\turl = file:///x\n\tuploadpack = sh -c evil\n',
        '[remote "origin"]\n\treceivepack = evil\n',
        '[remote "origin"]\n\tvcs = evil\n',
        '[remote "origin"]\n\tpromisor = true\n',
        '[remote "origin"]\n\tproxy = http://evil\n',
        "[credential]\n\thelper = !sh -c evil\n",
        '[credential "https://example.com"]\n\thelper = evil\n',
        "[core]\n\tsshCommand = evil\n",
        "[core]\n\taskPass = evil\n",
        "[core]\n\tworktree = /\n",
        "[core]\n\tfsmonitor = true\n",
        "[core]\n\tsomeKeyGitAddsTomorrow = x\n",
        '[filter "lfs"]\n\tprocess = evil\n',
        '[merge "ours"]\n\tdriver = evil %A\n',
        '[diff "bin"]\n\ttextconv = evil\n',
        '[diff "bin"]\n\tcachetextconv = true\n\ttextconv = evil\n',
        "[protocol]\n\tallow = always\n",
        '[protocol "ext"]\n\tallow = always\n',
        "[uploadpack]\n\tpackObjectsHook = evil\n",
        '[submodule "x"]\n\tupdate = !evil\n',
        "[alias]\n\tst = !evil\n",
        '[includeIf "onbranch:main"]\n\tpath = evil\n',
        "[core]\n\tabbrev = 7\\\n\tfsmonitor = evil\n",  # a value continued: where keys start is not guessed
        "\ufeff[core]\n\tbare = false\n",
    ],
)
def test_anything_not_known_to_be_harmless_asks(config: str) -> None:
    assert config_is_unsafe(config)


@pytest.mark.parametrize(
    "config",
    [
        "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n\tlogallrefupdates = true\n",
        '[remote "origin"]\n\turl = git@example.com:x/y.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'
        '[branch "main"]\n\tremote = origin\n\tmerge = refs/heads/main\n',
        '[submodule "lib"]\n\turl = https://example.com/lib.git\n\tactive = true\n',
        '[user]\n\tname = A\n\temail = a@example.com\n[color "status"]\n\tadded = green\n[advice]\n\tdetachedHead = false\n',
        '[lfs]\n\trepositoryformatversion = 0\n[lfs "https://example.com/x.git/info/lfs"]\n\taccess = basic\n',
        '[diff "python"]\n\txfuncname = "^def .*$"\n[pull]\n\trebase = true\n',
        "[core]\n\tbare = false # trailing comment\n; a comment\n",
    ],
)
def test_ordinary_configs_run_unasked(config: str) -> None:
    assert not config_is_unsafe(config)


def test_the_users_own_clone_and_init_pass(tmp_path: Path) -> None:
    origin = tmp_path / "origin"
    origin.mkdir()
    _git("init", "-q", cwd=origin)
    (origin / "a.txt").write_text("a\n")
    _git("add", ".", cwd=origin)
    _git("commit", "-qm", "one", cwd=origin)
    _git("clone", "-q", str(origin), "clone", cwd=tmp_path)
    for repo in (origin, tmp_path / "clone"):
        assert not config_is_unsafe((repo / ".git" / "config").read_text())
        assert is_read_only_command("git log --oneline", repo)


def _shipped_bare(folder: Path, config: str) -> Path:
    for sub in ("objects", "refs/heads"):
        (folder / sub).mkdir(parents=True)
    (folder / "HEAD").symlink_to(
        "refs/heads/missing"
    )  # dangling: git still takes the folder for a repository
    (folder / "config").write_text(config)
    return folder


def test_a_dangling_head_is_one_repository_for_the_classifier_and_the_sandbox(tmp_path: Path) -> None:
    bare = _shipped_bare(tmp_path / "vendor" / "mirror", '[remote "origin"]\n\tuploadpack = touch pwned\n')
    assert git_dir_shaped(bare)
    assert not git_is_safe_in(bare, (), {})
    assert not is_read_only_command("git log", bare)
    assert not is_read_only_command("cd vendor/mirror && git log -p", tmp_path)
    assert walk_project(str(tmp_path)).special.get(str(bare)) == "ro"  # the sandbox: read-only as a whole


def test_a_linked_worktree_folder_counts_as_a_git_directory(tmp_path: Path) -> None:
    folder = tmp_path / "wt"
    folder.mkdir()
    (folder / "HEAD").write_text("ref: refs/heads/x\n")
    (folder / "commondir").write_text("../elsewhere\n")
    assert git_dir_shaped(folder)
    assert not git_dir_shaped(tmp_path)
    (tmp_path / "half").mkdir()
    (tmp_path / "half" / "HEAD").write_text("x\n")
    (tmp_path / "half" / "objects").mkdir()
    assert not git_dir_shaped(tmp_path / "half")
    (tmp_path / "half" / "refs").write_text("")  # any kind of entry: git only checks it can be reached
    assert git_dir_shaped(tmp_path / "half")


def test_a_partial_clone_shipped_in_the_tree_makes_git_there_ask(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    _git("init", "-q", cwd=project)
    config = (
        "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tpartialClone = origin\n"
        '[remote "origin"]\n\turl = file:///nonexistent\n\tpromisor = true\n\tuploadpack = touch pwned\n'
    )
    _shipped_bare(project / "third_party" / "dep.git", config)
    assert not is_read_only_command("cd third_party/dep.git && git log", project)
    assert not is_read_only_command("cd third_party/dep.git/refs && git log -p", project)
    assert is_read_only_command("git log", project)  # the project's own repository is not affected
