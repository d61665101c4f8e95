"""A denial says what denied it: the sandbox's refusals (a write outside the fence, a protected path, a hidden
path, network use) are told apart from ordinary errors by the command's own policy, shown first in the result,
offered for a rerun outside the sandbox with a human's yes, and printed by `-p`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli
from paicli.tools.approval import ApprovalState
from paicli.tools.rerun import RERUN_NOTE, RERUN_QUESTION
from paicli.tools.sandbox.denials import MAX_REPORTED, Denial, FenceView, denial_line, explain
from paicli.tools.sandbox.status import SandboxStatus
from tests.tools.helpers import RecordingApprover, make_runner, run_one

from .conftest import FixedGate, require_landlock, sandboxed


@pytest.fixture
def view(tmp_path: Path) -> FenceView:
    root, home, outside = tmp_path / "project", tmp_path / "home", tmp_path / "outside"
    for folder in (root / "src", root / ".git", home / ".ssh", outside):
        folder.mkdir(parents=True)
    (home / ".ssh" / "id").write_text("key\n")
    (root / ".git" / "config").write_text("[core]\n")
    rules = (("dir", str(root)), ("rw", str(root / "src")), ("ro", str(root / ".git")), ("ro", "/usr"))
    return FenceView(str(root), str(root), str(home), rules, None)


def _one(line: str, view: FenceView) -> list[Denial]:
    return explain(f"some output\n{line}\nmore output\n", view)


def test_writes_outside_and_into_protected_places_are_the_sandboxes(view: FenceView, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    assert _one(f"bash: line 1: {outside}/f: Permission denied", view) == [Denial("write", f"{outside}/f")]
    assert _one("error: could not lock config file .git/config: Permission denied", view) == [
        Denial("write", ".git/config")
    ]
    assert _one(f"touch: cannot touch ‘{view.root}/new.txt’: Permission denied", view) == [
        Denial("create", "new.txt")  # the root holds `.git`: it takes no new entries
    ]
    assert _one("PermissionError: [Errno 13] Permission denied: '../outside/x.json'", view) == [
        Denial("write", f"{outside}/x.json")
    ]


def test_reads_of_what_the_policy_leaves_out_are_the_sandboxes(view: FenceView) -> None:
    assert _one(f"cat: {view.home}/.ssh/id: Permission denied", view) == [Denial("access", "~/.ssh/id")]
    assert _one("cat: ~/.ssh/id: 权限不够", view) == [Denial("access", "~/.ssh/id")]


def test_ordinary_errors_are_not_blamed_on_the_sandbox(view: FenceView) -> None:
    assert _one("PermissionError: [Errno 13] Permission denied: 'src/x.py'", view) == []
    assert _one("cat: src/missing.txt: No such file or directory", view) == []
    assert _one("Permission denied (publickey).", view) == []
    assert _one("make: *** [all] Error 1", view) == []


def test_a_path_outside_the_namespaces_tree_is_hidden(view: FenceView) -> None:
    line = f"ls: cannot access '{view.home}/.ssh': No such file or directory"
    assert _one(line, view) == []  # without namespaces nothing is hidden
    tree = FenceView(view.root, view.cwd, view.home, view.rules, (view.root, "/usr"))
    assert _one(line, tree) == [Denial("hidden", "~/.ssh")]
    assert _one(f"sh: 1: cannot create {view.home}/planted: Directory nonexistent", tree) == []


@pytest.mark.parametrize(
    "lines",
    [
        "fatal: unable to access 'https://example.com/x.git/': Could not resolve host: example.com",
        "socket.gaierror: [Errno -3] Temporary failure in name resolution",
        "curl: (7) Failed to connect to 10.0.0.1 port 80: Network is unreachable",
        "npm ERR! getaddrinfo ENOTFOUND registry.npmjs.org",
        '  File "x.py", line 1, in <module>\n    s.sendto(b"x", ("8.8.8.8", 53))\nPermissionError: [Errno 13] Permission denied',
        "ssh: connect to host example.com port 22: Connection refused",
    ],
)
def test_network_use_is_recognised(view: FenceView, lines: str) -> None:
    assert Denial("network", "") in explain(lines, view)


def test_a_flood_of_refusals_is_summed_up_in_a_few(view: FenceView, tmp_path: Path) -> None:
    lines = "\n".join(f"bash: {tmp_path}/outside/f{index}: Permission denied" for index in range(50))
    found = explain(lines, view)
    assert len(found) == MAX_REPORTED
    line = denial_line(found)
    assert line.startswith("🛡️ 命令沙箱拒绝了：写入 ") and f"{tmp_path}/outside/f0" in line


def test_the_result_says_what_the_sandbox_refused(repo: Path, tmp_path: Path, status: SandboxStatus) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("outside notes\n")
    out = sandboxed(
        repo, f"cat {outside}/notes.txt; echo x > {outside}/new; echo x > .git/planted; echo done", status
    )
    first = out.content.split("\n", 1)[0]
    assert first.startswith("🛡️ 命令沙箱拒绝了："), out.content
    assert f"{outside}/notes.txt" in first and f"{outside}/new" in first and ".git/planted" in first
    assert out.metadata.get("sandbox_refused") is True
    plain = sandboxed(repo, "cat no-such-file; echo done", status)
    assert not plain.content.startswith("🛡️") and "sandbox_refused" not in plain.metadata


def _runner(repo: Path, status: SandboxStatus, approver: RecordingApprover):  # type: ignore[no-untyped-def]
    approval = ApprovalState("auto", sandbox=FixedGate(status))
    values = {"HOME": os.environ["HOME"], "PAICLI_HOME": os.environ["PAICLI_HOME"]}
    return make_runner(repo, approver, values=values, approval=approval)


def test_a_human_may_have_a_refused_command_run_outside(
    repo: Path, tmp_path: Path, status: SandboxStatus
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("outside notes\n")
    approver = RecordingApprover("approve")
    runner = _runner(repo, status, approver)
    result, body = run_one(runner, "execute_command", json.dumps({"command": f"cat {outside}/notes.txt"}))
    assert len(approver.requests) == 1
    reason = approver.requests[0].reason
    assert reason.startswith("🛡️ 命令沙箱拒绝了：") and reason.endswith(RERUN_QUESTION)
    assert body.startswith(RERUN_NOTE) and "outside notes" in body and result.success


def test_without_a_yes_the_refusal_stands(repo: Path, tmp_path: Path, status: SandboxStatus) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("outside notes\n")
    approver = RecordingApprover("deny")
    runner = _runner(repo, status, approver)
    _, body = run_one(runner, "execute_command", json.dumps({"command": f"cat {outside}/notes.txt"}))
    assert len(approver.requests) == 1
    assert body.startswith("🛡️ 命令沙箱拒绝了：") and "outside notes" not in body
    _, quiet = run_one(runner, "execute_command", json.dumps({"command": "cat notes.txt"}))
    assert len(approver.requests) == 1 and "second line changed" in quiet  # nothing refused: nobody asked


def test_print_mode_shows_the_same_line(repo: Path, home: Path, tmp_path: Path) -> None:
    require_landlock()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("outside notes\n")
    call = ("execute_command", json.dumps({"command": f"cat {outside}/notes.txt"}))
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(call), "看完了")
        done = run_paicli(["-p", "看看"], paicli_env(home, server.base_url), repo)
        assert done.returncode == 0, done.stderr
        messages = server.requests[1]["messages"]
    tool = next(str(m["content"]) for m in messages if m.get("role") == "tool")  # type: ignore[union-attr]
    line = next(line for line in tool.splitlines() if line.startswith("🛡️"))
    assert f"{outside}/notes.txt" in line
    assert line[:60] in done.stderr, done.stderr
