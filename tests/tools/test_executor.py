"""The command executor seam (issue 41 item 6): execute_command runs its command through the executor the
composition root chose, never deciding itself; a human-approved call takes the approved executor, one that
paicli's own judgement let through the unasked one; what an executor reports is what the model reads."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.config.env import home_dir
from paicli.config.values import SandboxValues
from paicli.tools.approval import ApprovalState
from paicli.tools.executor import Capture, CommandExecutors, CommandRequest, CommandRun
from paicli.tools.sandbox.executor import GatedExecutor, session_executors
from paicli.tools.sandbox.status import SandboxGate
from paicli.tools.shell import MARKER_ENV, unconfined

from .helpers import RecordingApprover, make_runner, run_one


class Recording:
    """An executor that runs nothing: it records the request and answers with a scripted run."""

    def __init__(self, name: str, output: str = "", *, not_started: bool = False) -> None:
        self.name = name
        self.output = output or f"ran by {name}\n"
        self.not_started = not_started
        self.requests: list[CommandRequest] = []

    def run(self, request: CommandRequest) -> CommandRun:
        self.requests.append(request)
        capture = Capture(request.capture_limit, self.output)
        return CommandRun(capture, 125 if self.not_started else 0, False, False, 4242, self.not_started)


def command(text: str) -> str:
    return json.dumps({"command": text})


def test_an_approved_command_takes_the_approved_executor_and_an_unasked_one_the_other(project: Path) -> None:
    approved, unasked = Recording("approved"), Recording("unasked")
    approver = RecordingApprover("approve")
    runner = make_runner(project, approver, executors=CommandExecutors(approved, unasked))
    asked, text = run_one(runner, "execute_command", command("touch made.txt"))
    assert approver.requests and "ran by approved" in text and asked.success
    _, text = run_one(runner, "execute_command", command("ls"))  # read-only: auto mode runs it unasked
    assert "ran by unasked" in text
    assert [r.command for r in approved.requests] == ["touch made.txt"]
    assert [r.command for r in unasked.requests] == ["ls"]
    assert (
        unasked.requests[0].cwd == project and unasked.requests[0].timeout_seconds == runner.command_timeout
    )
    assert not (project / "made.txt").exists()  # nothing ran but the executors


def test_a_command_the_sandbox_could_not_confine_is_reported_as_not_run(project: Path) -> None:
    refusing = Recording("sandbox", "paicli-sandbox: landlock unavailable\n", not_started=True)
    runner = make_runner(project, executors=CommandExecutors(Recording("approved"), refusing))
    result, text = run_one(runner, "execute_command", command("ls"))
    assert not result.success and "命令沙箱没能启动，命令未执行: ls" in text


def test_the_unconfined_executors_keep_keys_from_commands(project: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("OPENAI_API_KEY", "sk-provider-key")
    monkeypatch.setenv("MY_SERVICE_TOKEN", "token-value")
    executors = unconfined()
    printed = 'printf \'%s|%s|%s\' "$OPENAI_API_KEY" "$MY_SERVICE_TOKEN" "${' + MARKER_ENV + ':+marked}"'
    request = CommandRequest(printed, project, 30.0, _token(), 8000)
    assert executors.approved.run(request).capture.text == "|token-value|marked"
    assert executors.unasked.run(request).capture.text == "||marked"


def test_the_composition_root_chooses_by_the_sandbox_setting() -> None:
    off = SandboxGate(SandboxValues(mode="off"))
    chosen = session_executors(off, str(home_dir()))
    assert isinstance(chosen.unasked, GatedExecutor)
    assert chosen.unasked.current() is not chosen.approved  # off: unconfined, without secret-looking names
    assert (
        chosen.for_call(auto_run=False) is chosen.approved
        and chosen.for_call(auto_run=True) is chosen.unasked
    )
    runner = make_runner(Path("/"), approval=ApprovalState(sandbox=off))
    assert isinstance(runner.executors.unasked, GatedExecutor)


def _token():  # type: ignore[no-untyped-def]
    from paicli.cancel import CancelToken

    return CancelToken()
