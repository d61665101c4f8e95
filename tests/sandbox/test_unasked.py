"""Through the real runner in auto mode with nobody to ask: ordinary read-only work runs with its real
output, and the issue's attacks (own variants) are refused or contained by the sandbox."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paicli.tools.runner import ToolRunner

from .conftest import API_KEY, CREDENTIALS, PAICLI_CONFIG, SSH_KEY, command, git

SECRETS = (SSH_KEY, CREDENTIALS, PAICLI_CONFIG, API_KEY)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("ls", "notes.txt"),
        ("cat notes.txt", "second line changed"),
        ("grep -rn hello src", "src/app.py:2:"),
        ("rg -n hello", "src/app.py:2:"),
        ("find . -name '*.py'", "./src/app.py"),
        ("wc -l notes.txt", "2 notes.txt"),
        ("git status", "modified:   notes.txt"),
        ("git log --oneline", "initial commit"),
        ("git diff", "+second line changed"),
    ],
)
def test_ordinary_read_only_work_runs_unasked(unasked: ToolRunner, text: str, expected: str) -> None:
    ran, body = command(unasked, text)
    assert ran, body
    assert expected in body
    assert "退出码: 0" in body


def _contained(runner: ToolRunner, text: str) -> str:
    _, body = command(runner, text)
    for secret in SECRETS:
        assert secret not in body, text
    return body


def test_a_bare_repository_folder_cannot_run_its_config(
    unasked: ToolRunner, repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "pwned"
    evil = repo / "work" / "evil"
    for folder in ("objects/info", "refs/heads"):
        (evil / folder).mkdir(parents=True)
    (evil / "HEAD").symlink_to("refs/heads/missing")
    commit = os.popen(f"git -C {repo} rev-parse HEAD").read().strip()
    (evil / "packed-refs").write_text(f"{commit} refs/heads/missing\n")
    (evil / "objects" / "info" / "alternates").write_text(f"{repo}/.git/objects\n")
    payload = f"sh -c 'cat ~/.ssh/id_ed25519; env; touch {outside}'"
    (evil / "config").write_text(
        "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tpartialClone = origin\n"
        f'[remote "origin"]\n\turl = file:///nonexistent\n\tuploadpack = {payload}\n'
        f'[diff "evil"]\n\ttextconv = {payload}\n'
    )
    for text in ("cd work/evil && git log", "cd work/evil && git log -p", "git -C work/evil show HEAD"):
        _contained(unasked, text)
    assert not outside.exists()


def test_textconv_of_the_project_repository_is_contained(
    unasked: ToolRunner, repo: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "pwned"
    (repo / ".gitattributes").write_text("*.txt diff=evil\n")
    with (repo / ".git" / "config").open("a") as config:
        config.write(
            f'[diff "evil"]\n\ttextconv = sh -c \'cat ~/.ssh/id_ed25519; touch {outside}; cat "$0"\'\n'
        )
    git(repo, "add", ".gitattributes")
    git(repo, "commit", "-qm", "attributes")
    _contained(unasked, "git log -p")
    _contained(unasked, "git diff")
    assert not outside.exists()


def test_paths_that_leave_the_project_read_nothing_secret(
    unasked: ToolRunner, repo: Path, home: Path
) -> None:
    (repo / "work" / "list").write_bytes(f"{home}/.ssh/id_ed25519\0{home}/.git-credentials\0".encode())
    (repo / "work" / "proc").symlink_to("/proc")
    (repo / "work" / "home").symlink_to(home)
    attacks = [
        "cd /bin/../proc/self && cat environ",
        f"cd /bin/..{home} && cat .ssh/id_ed25519",
        "cat ~/.ssh/id_ed25519 ~/.git-credentials",
        f"cat ~{os.environ.get('USER', 'root')}/.ssh/id_ed25519",
        "sort --files0-from=work/list",
        "wc --files0-from=work/list",
        "grep -R -s sk- work/proc/self/",
        "grep -R -s PRIVATE work/home/",
        "cat work/home/.paicli/config.json",
        "env",
        "cat /proc/self/environ",
    ]
    for text in attacks:
        _contained(unasked, text)
