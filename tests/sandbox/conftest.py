"""Fixtures for the sandbox tests: the kinds of sandbox this machine offers (probed once), a project with a git
repository, a fake home holding secrets, and a runner whose approver refuses everything (so whatever runs
ran unasked)."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.config.env import home_dir
from paicli.tools.approval import ApprovalState, DenyingApprover
from paicli.tools.context import ToolContext
from paicli.tools.guards import PathGuard
from paicli.tools.runner import ToolRunner
from paicli.tools.sandbox.executor import SandboxExecutor
from paicli.tools.sandbox.status import SandboxGate, SandboxStatus, landlock_abi, probe
from paicli.tools.schema import ToolOutput
from paicli.tools.shell import execute_command
from tests.tools.helpers import make_runner, run_one

SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY----- sandbox-test-key-material"
CREDENTIALS = "https://user:sandbox-test-credential@example.invalid"
PAICLI_CONFIG = '{"apiKey": "sandbox-test-paicli-home-secret"}'
API_KEY = "sk-sandbox-test-api-key"

_PROBED: dict[bool, SandboxStatus] = {}


def probed(userns: bool) -> SandboxStatus:
    if userns not in _PROBED:
        _PROBED[userns] = probe("auto", userns)
    return _PROBED[userns]


def require_landlock() -> None:
    if landlock_abi() < 1:
        pytest.skip(
            "this kernel has no Landlock (Linux 5.13+ with landlock in lsm=): sandbox not testable here"
        )


def require(kind: str) -> SandboxStatus:
    require_landlock()
    status = probed(kind == "namespaces")
    if status.kind != kind:
        pytest.skip(f"sandbox kind {kind} unavailable here: {status.reason or status.kind}")
    return status


@pytest.fixture(
    params=[("namespaces", True), ("landlock", True), ("namespaces", False), ("landlock", False)],
    ids=["namespaces-zygote", "landlock-zygote", "namespaces-wrapper", "landlock-wrapper"],
)
def status(request: pytest.FixtureRequest) -> SandboxStatus:
    """Each test runs with user namespaces and without them (Landlock TCP rules and the subreaper), each
    command forked by the session's fork server and (its fallback) in a wrapper process of its own."""
    kind, forked = request.param
    return dataclasses.replace(require(kind), zygote=forked)


class FixedGate(SandboxGate):
    """The real setting object with an already-probed status (the probe itself is tested on its own)."""

    def __init__(self, fixed: SandboxStatus, mode: str = "auto", allow: tuple[str, ...] = ()) -> None:
        super().__init__()
        self.mode = mode
        self.env_allow = allow
        self._fixed = fixed

    def status(self) -> SandboxStatus:
        kind = self._fixed.kind if self.mode != "off" else ""
        return SandboxStatus(self.mode, kind, self._fixed.reason, self._fixed.zygote)


@pytest.fixture
def home(isolated_home: Path) -> Path:
    """The fake HOME (conftest) with the secrets an attacker wants."""
    ssh = isolated_home / ".ssh"
    ssh.mkdir(exist_ok=True)
    (ssh / "id_ed25519").write_text(SSH_KEY + "\n")
    (isolated_home / ".git-credentials").write_text(CREDENTIALS + "\n")
    paicli_home = isolated_home / ".paicli"
    paicli_home.mkdir(exist_ok=True)
    (paicli_home / "config.json").write_text(PAICLI_CONFIG)
    return isolated_home


def git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.email=t@example.invalid", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
    )


@pytest.fixture
def repo(project: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A project with a git repository, one commit and an uncommitted change; PAICLI_API_KEY is set."""
    monkeypatch.setenv("PAICLI_API_KEY", API_KEY)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("def greet():\n    return 'hello sandbox'\n")
    (project / "notes.txt").write_text("first line\nsecond line\n")
    git(project, "init", "-q")
    git(project, "add", ".")
    git(project, "commit", "-qm", "initial commit")
    (project / "notes.txt").write_text("first line\nsecond line changed\n")
    (project / "work").mkdir()
    return project


def sandboxed(
    root: Path, command: str, status: SandboxStatus, cancel: CancelToken | None = None
) -> ToolOutput:
    """A command in the sandbox as if the classifier had (wrongly) passed it: the boundary on its own."""
    ctx = ToolContext(
        root,
        PathGuard(root),
        cancel or CancelToken(),
        executor=SandboxExecutor(status, str(home_dir())),
    )
    return execute_command({"command": command}, ctx)


@pytest.fixture
def unasked(repo: Path, status: SandboxStatus) -> Iterator[ToolRunner]:
    """auto mode, the sandbox active, nobody to ask: a command that needs a yes is refused."""
    approval = ApprovalState("auto", sandbox=FixedGate(status))
    values = {"HOME": os.environ["HOME"], "PAICLI_HOME": os.environ["PAICLI_HOME"]}
    yield make_runner(repo, DenyingApprover(), values=values, approval=approval)


def command(runner: ToolRunner, text: str) -> tuple[bool, str]:
    """(ran, text): ran is False when the call was refused before it ran."""
    result, body = run_one(runner, "execute_command", json.dumps({"command": text}))
    return not result.blocked, body
