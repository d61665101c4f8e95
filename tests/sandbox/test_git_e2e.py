"""Through the real runner with nobody to ask: git in a repository a project ships (a bare mirror with a
promisor remote, an embedded repository with a textconv driver, both with a dangling HEAD) is refused
before it runs, so its programs never start; the project's own repository keeps working unasked."""

from __future__ import annotations

import os
from pathlib import Path

from paicli.tools.runner import ToolRunner

from .conftest import command


def _ship(folder: Path, config: str) -> None:
    for sub in ("objects/info", "refs/heads"):
        (folder / sub).mkdir(parents=True)
    (folder / "HEAD").symlink_to("refs/heads/missing")
    (folder / "config").write_text(config)


def test_git_in_a_shipped_repository_asks_and_runs_nothing(
    unasked: ToolRunner, repo: Path, tmp_path: Path
) -> None:
    pwned = tmp_path / "pwned"
    payload = f"sh -c 'touch {pwned}; cat \"$0\"'"
    _ship(
        repo / "work" / "mirror.git",
        "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tpartialClone = origin\n"
        f'[remote "origin"]\n\turl = file:///nonexistent\n\tpromisor = true\n\tuploadpack = {payload}\n',
    )
    commit = os.popen(f"git -C {repo} rev-parse HEAD").read().strip()
    (repo / "work" / "mirror.git" / "packed-refs").write_text(f"{commit} refs/heads/missing\n")
    (repo / "work" / "mirror.git" / "objects" / "info" / "alternates").write_text(f"{repo}/.git/objects\n")
    _ship(repo / "work" / "embedded", f'[diff "evil"]\n\ttextconv = {payload}\n')
    for text in (
        "cd work/mirror.git && git log",
        "cd work/mirror.git && git log -p",
        "cd work/embedded && git log -p",
    ):
        ran, body = command(unasked, text)
        assert not ran, (text, body)
    assert not pwned.exists()
    ran, body = command(unasked, "git log --oneline")
    assert ran and "initial commit" in body
