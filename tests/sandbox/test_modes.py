"""PAICLI_COMMAND_SANDBOX's three settings, what a human-approved command gets, and the status lines."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from paicli.config.values import SandboxValues
from paicli.tools.approval import ApprovalState, AutoApprover, DenyingApprover
from paicli.tools.purecmd import pure_command
from paicli.tools.registry import EXECUTE_COMMAND
from paicli.tools.sandbox.environ import approved_env, sandbox_env
from paicli.tools.sandbox.status import WRAPPER, SandboxGate, SandboxStatus
from tests.tools.helpers import env as lookup
from tests.tools.helpers import make_runner, run_one

from .conftest import API_KEY, FixedGate, require

MISSING = SandboxStatus("auto", "", "内核没有启用 Landlock")


def _need(mode: str, command: str, status: SandboxStatus = MISSING) -> str | None:
    state = ApprovalState("auto", sandbox=FixedGate(status, mode))
    need = state.needs_approval(EXECUTE_COMMAND, {"command": command}, project_root=Path("."))
    return need.reason if need is not None else None


def test_auto_without_a_sandbox_runs_only_pure_commands_unasked() -> None:
    assert _need("auto", "ls -la src") is None
    assert _need("auto", "pwd") is None
    reason = _need("auto", "cat notes.txt")
    assert reason is not None and "内核没有启用 Landlock" in reason
    assert _need("auto", "ls ~/.ssh") is not None
    assert _need("auto", "ls /etc") is not None


def test_required_without_a_sandbox_asks_for_everything() -> None:
    assert _need("required", "ls") is not None
    assert _need("required", "pwd") is not None


def test_off_keeps_the_classifier_alone() -> None:
    assert _need("off", "cat notes.txt") is None


def test_with_a_sandbox_read_only_commands_run_unasked() -> None:
    active = SandboxStatus("auto", "landlock")
    assert _need("auto", "cat notes.txt", active) is None
    assert _need("required", "git log", active) is None
    assert _need("auto", "rm -rf src", active) is not None  # the classifier still asks for the rest


@pytest.mark.parametrize(
    ("command", "pure"),
    [
        ("ls", True),
        ("ls -la src/x", True),
        ("echo hi", True),
        ("cat a", False),
        ("ls ../x", False),
        ("ls /", False),
        ("ls $HOME", False),
        ("echo `id`", False),
        ("ls; cat a", False),
        ("ls ~x", False),
    ],
)
def test_pure_commands(command: str, pure: bool) -> None:
    assert pure_command(command) is pure


def test_secret_looking_names_are_dropped_unless_allowed() -> None:
    env = {
        "PATH": "/bin",
        "PAICLI_API_KEY": "k",
        "GITHUB_TOKEN": "t",
        "DB_PASSWORD": "p",
        "AWS_SECRET": "s",
        "KIMI_API_KEY": "m",
        "SERPAPI_KEY": "q",
        "HOME": "/h",
    }
    assert sandbox_env(env) == {"PATH": "/bin", "HOME": "/h"}
    assert sandbox_env(env, ("github_token",)) == {"PATH": "/bin", "HOME": "/h", "GITHUB_TOKEN": "t"}
    approved = approved_env(env)
    assert "GITHUB_TOKEN" in approved and "DB_PASSWORD" in approved
    assert not {"PAICLI_API_KEY", "KIMI_API_KEY", "SERPAPI_KEY"} & set(approved)


def test_an_approved_command_runs_without_paicli_keys(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAICLI_API_KEY", API_KEY)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-approved")
    approval = ApprovalState("auto", yes=True, sandbox=FixedGate(MISSING, "auto"))
    runner = make_runner(project, AutoApprover(), approval=approval)
    _, body = run_one(runner, "execute_command", json.dumps({"command": "env; echo made > made.txt"}))
    assert API_KEY not in body
    assert "GITHUB_TOKEN=ghp-approved" in body  # the user said yes: only paicli's own keys are withheld
    assert (project / "made.txt").exists()  # and it ran unconfined, as approved


def test_without_a_human_a_denied_command_never_runs(project: Path) -> None:
    runner = make_runner(
        project, DenyingApprover(), approval=ApprovalState("auto", sandbox=FixedGate(MISSING))
    )
    result, _ = run_one(runner, "execute_command", json.dumps({"command": "cat /etc/hostname"}))
    assert result.blocked


def test_the_probe_finds_both_kinds_here() -> None:
    require("namespaces")
    gate = SandboxGate(SandboxValues.parse(lookup({"PAICLI_COMMAND_SANDBOX_USERNS": "false"})))
    assert gate.status().kind == "landlock"
    assert "Landlock" in gate.status().describe()
    assert SandboxGate(SandboxValues.parse(lookup({}))).status().kind == "namespaces"


def test_status_lines_say_what_to_do() -> None:
    assert "PAICLI_COMMAND_SANDBOX=off" in SandboxStatus("off", "").describe()
    line = SandboxStatus("required", "", "内核没有启用 Landlock：需要 Linux 5.13 以上").describe()
    assert "不可用" in line and "Linux 5.13" in line and "确认" in line
    assert (
        SandboxGate(SandboxValues.parse(lookup({"PAICLI_COMMAND_SANDBOX": "off"}))).status().active is False
    )


def test_a_wrapper_that_cannot_start_says_so() -> None:
    done = subprocess.run(
        [sys.executable, "-I", "-S", str(WRAPPER), "/nonexistent/policy", "--", "true"],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 125
    assert done.stderr.startswith(b"paicli-sandbox:")


def test_the_banner_shows_the_sandbox_line() -> None:
    from paicli.cli.backend import BannerInfo
    from paicli.cli.repl_prompt import banner_lines

    line = SandboxStatus("auto", "", "内核没有启用 Landlock").describe()
    info = BannerInfo("1", "m", "p", 128000, "s", "/x", "auto", sandbox=line)
    assert any(text.strip() == line for text, _ in banner_lines(info))
