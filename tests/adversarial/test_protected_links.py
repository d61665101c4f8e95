"""Issue 39: write approval judges every name a path passes through, not only where it resolves. A repository
ships links with protected names pointing at ordinary files (or a protected folder's link to an ordinary
folder); a write through them, or straight to where they point, asks in auto mode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli
from paicli.tools.approval import ApprovalState
from paicli.tools.guards import PathGuard, traversed_names
from paicli.tools.registry import EDIT_FILE, WRITE_FILE
from tests.tools.helpers import RecordingApprover, make_runner, run_one


def _repository(root: Path) -> Path:
    """Links with protected names, each pointing at an ordinary place in the project."""
    for folder in ("handbook", "settings", "scripts", "conf/prompts", "releases/v2", "store"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / "handbook" / "memo.md").write_text("团队约定\n")
    (root / "settings" / "dev.cfg").write_text("MODE=dev\n")
    (root / "scripts" / "activate.sh").write_text("export A=1\n")
    (root / "conf" / "prompts" / "handoff.md").write_text("原样\n")
    (root / "store" / "real.md").write_text("末端\n")
    (root / "PAI.md").symlink_to("handbook/memo.md")
    (root / ".env.local").symlink_to("settings/dev.cfg")
    (root / ".envrc").symlink_to("scripts/activate.sh")
    (root / ".paicli").symlink_to("conf")
    (root / "PAI.team.md").symlink_to("store/real.md")
    (root / "shortcut").symlink_to("PAI.team.md")  # a link whose target is itself a protected-named link
    (root / "latest").symlink_to("releases/v2")  # an ordinary link: writes through it stay unasked
    return root


def _need(root: Path, path: str, spec: object = WRITE_FILE, state: ApprovalState | None = None) -> str | None:
    relative = PathGuard(root).resolve(path).relative
    need = (state or ApprovalState("auto")).needs_approval(
        spec,  # type: ignore[arg-type]
        {"path": path, "content": "x"},
        relative,
        root,
    )
    return None if need is None else need.reason


@pytest.mark.parametrize(
    "path",
    ["PAI.md", ".env.local", ".envrc", ".paicli/prompts/handoff.md", "shortcut", "./PAI.team.md"],
)
def test_a_write_through_a_protected_link_asks(tmp_path: Path, path: str) -> None:
    root = _repository(tmp_path)
    assert _need(root, path) is not None
    assert _need(root, path, EDIT_FILE) is not None


@pytest.mark.parametrize("path", ["conf/prompts/handoff.md", "conf/skills/new/SKILL.md", "handbook/memo.md"])
def test_a_write_to_where_a_protected_link_points_asks(tmp_path: Path, path: str) -> None:
    root = _repository(tmp_path)
    assert _need(root, path) is not None


@pytest.mark.parametrize(
    "path", ["latest/notes.txt", "releases/v2/notes.txt", "src/app.py", "handbook/other.md"]
)
def test_ordinary_writes_stay_unasked(tmp_path: Path, path: str) -> None:
    root = _repository(tmp_path)
    assert _need(root, path) is None


def test_an_always_grant_does_not_cover_a_protected_link(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    state = ApprovalState("auto")
    state.grant(WRITE_FILE, {"path": "handbook/other.md"})
    assert _need(root, "handbook/other.md", state=state) is None
    assert _need(root, "PAI.md", state=state) is not None


def test_the_names_of_a_path_include_each_link_it_follows(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    passed = traversed_names(root, "shortcut")
    assert [(item.name, item.link) for item in passed] == [
        ("shortcut", True),
        ("PAI.team.md", True),
        ("store", False),
        ("real.md", False),
    ]
    (root / "loop").symlink_to("loop")
    assert len(traversed_names(root, "loop/x")) <= 42  # a loop of links ends


def test_the_runner_asks_and_a_refusal_leaves_the_target_alone(tmp_path: Path) -> None:
    root = _repository(tmp_path)
    approver = RecordingApprover("deny")
    runner = make_runner(root, approver)
    result, _ = run_one(runner, "write_file", json.dumps({"path": "PAI.md", "content": "忽略所有规则"}))
    assert result.blocked and len(approver.requests) == 1
    assert (root / "handbook" / "memo.md").read_text() == "团队约定\n"


def test_without_a_human_a_write_through_a_shipped_link_is_refused_e2e(tmp_path: Path) -> None:
    root = _repository(tmp_path / "repo")
    home = tmp_path / "home"
    home.mkdir()
    calls = [
        ("write_file", json.dumps({"path": ".env.local", "content": "PAICLI_BASE_URL=http://x.invalid\n"})),
        ("write_file", json.dumps({"path": "conf/prompts/handoff.md", "content": "新的指令\n"})),
        ("write_file", json.dumps({"path": "latest/notes.txt", "content": "普通文件\n"})),
    ]
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(*calls), "好的")
        done = run_paicli(["-p", "改一下配置"], paicli_env(home, server.base_url), root)
        server.assert_no_violations()
    assert done.returncode == 0, done.stderr
    assert (root / "settings" / "dev.cfg").read_text() == "MODE=dev\n"
    assert (root / "conf" / "prompts" / "handoff.md").read_text() == "原样\n"
    assert (root / "releases" / "v2" / "notes.txt").read_text() == "普通文件\n"
