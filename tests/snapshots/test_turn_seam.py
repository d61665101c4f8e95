"""The runner's checkpoint seam, the recorder's notices and ledger lines, and revert_turn's approval."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from paicli.cancel import CancelToken
from paicli.cli.approval import question_options
from paicli.cli.session_factory import SnapshottedTools
from paicli.snapshots.recorder import RESTORE_EVENT, SNAPSHOT_EVENT, WorkspaceSnapshots
from paicli.snapshots.revert_spec import REVERT_TURN
from paicli.snapshots.store import SnapshotStore
from paicli.snapshots.tool import RevertTurn
from paicli.tools.approval import ApprovalState, DenyingApprover
from tests.snapshots.conftest import needs_git
from tests.tools.helpers import RecordingApprover, calls, make_runner, run, unwrap


class CountingCheckpoint:
    def __init__(self, fail: bool = False) -> None:
        self.labels: list[str] = []
        self.fail = fail

    def before_first_change(self, label: str, wait: object = None) -> None:
        self.labels.append(label)
        if self.fail:
            raise RuntimeError("broken checkpoint")


class FakeLedger:
    session_id = "session-1-test"
    next_sequence = 1

    def __init__(self) -> None:
        self.events: list[tuple[str, str, str, dict[str, Any]]] = []

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None:
        self.events.append((event, mode, actor, dict(metadata)))


def write_call(path: str, content: str = "x") -> tuple[str, str]:
    return ("write_file", json.dumps({"path": path, "content": content}))


def test_one_checkpoint_per_turn_before_its_first_change(tmp_path: Path) -> None:
    runner = make_runner(tmp_path)
    checkpoint = CountingCheckpoint()  # given to each turn, as the session's tools do (SnapshottedTools)
    (tmp_path / "a.txt").write_text("a", encoding="utf-8")
    run(runner, ("read_file", '{"path": "a.txt"}'), ("list_dir", "{}"), text="只读", checkpoint=checkpoint)
    assert checkpoint.labels == []
    run(
        runner,
        write_call("b.txt"),
        ("edit_file", json.dumps({"path": "a.txt", "old_text": "a", "new_text": "c"})),
        ("execute_command", '{"command": "true"}'),
        text="第一轮",
        checkpoint=checkpoint,
    )
    run(runner, ("execute_command", '{"command": "true"}'), text="第二轮", checkpoint=checkpoint)
    assert checkpoint.labels == ["第一轮", "第二轮"]


def test_a_refused_call_takes_no_snapshot_and_a_broken_checkpoint_loses_no_call(tmp_path: Path) -> None:
    refused = make_runner(tmp_path, RecordingApprover("deny"), approval=ApprovalState("ask"))
    checkpoint = CountingCheckpoint()
    [result] = run(refused, write_call("b.txt"), checkpoint=checkpoint)
    assert result.blocked and checkpoint.labels == [] and not (tmp_path / "b.txt").exists()

    broken = make_runner(tmp_path)
    [result] = run(broken, write_call("c.txt", "kept"), checkpoint=CountingCheckpoint(fail=True))
    assert result.success and (tmp_path / "c.txt").read_text(encoding="utf-8") == "kept"


def test_failures_are_said_once_until_a_snapshot_works_again(tmp_path: Path) -> None:
    notices: list[str] = []
    store = SnapshotStore(tmp_path / "work", tmp_path / "side", str(tmp_path / "no-such-git"))
    (tmp_path / "work").mkdir()
    snapshots = WorkspaceSnapshots(store, notify=notices.append)
    snapshots.before_first_change("一")
    snapshots.before_first_change("二")
    assert len(notices) == 1 and "快照失败" in notices[0] and "/undo" in notices[0]


def test_unavailable_snapshots_are_announced_once(tmp_path: Path) -> None:
    notices: list[str] = []
    snapshots = WorkspaceSnapshots(None, "没有找到 git", notify=notices.append, announce_unavailable=True)
    snapshots.before_first_change("一")
    snapshots.before_first_change("二")
    assert notices == ["⚠️ 没有找到 git"]


@needs_git
def test_revert_turn_needs_approval_and_records_the_restore(tmp_path: Path) -> None:
    import shutil

    git = shutil.which("git")
    assert git is not None
    work = tmp_path / "work"
    work.mkdir()
    ledger = FakeLedger()
    snapshots = WorkspaceSnapshots(SnapshotStore(work, tmp_path / "side", git), ledger=lambda: ledger)

    denied = make_runner(work, DenyingApprover())
    denied.register(RevertTurn.tool(snapshots))
    run(denied, write_call("made.txt", "by the turn"), text="写文件", checkpoint=snapshots)
    assert [event[0] for event in ledger.events] == [SNAPSHOT_EVENT]
    [refused] = run(denied, ("revert_turn", '{"n": 1}'), text="撤回")
    assert refused.blocked and unwrap(refused).startswith("[HITL]")
    assert (work / "made.txt").exists()

    approver = RecordingApprover("approve")
    allowed = make_runner(work, approver)
    allowed.register(RevertTurn.tool(snapshots))
    [done] = run(allowed, ("revert_turn", '{"n": 1}'), text="撤回")
    assert done.success and "已恢复" in unwrap(done) and not (work / "made.txt").exists()
    assert [request.tool for request in approver.requests] == ["revert_turn"]  # asked even in auto mode
    [asked] = approver.requests
    assert asked.preview is not None and "#1" in asked.preview and "made.txt" in asked.preview
    assert "第 1 近" in asked.summary and not asked.command
    assert "（这一项只能逐次允许）" in question_options(asked)
    assert all("命令" not in option for option in question_options(asked))
    assert [event[0] for event in ledger.events] == [SNAPSHOT_EVENT, SNAPSHOT_EVENT, RESTORE_EVENT]
    restore = ledger.events[-1][3]
    assert restore["snapshot"] == ledger.events[0][3]["snapshot"] and restore["files"] == 1
    assert ledger.events[1][3]["kind"] == "restore"


@needs_git
def test_revert_turn_to_a_snapshot_that_is_not_there_fails_without_asking(tmp_path: Path) -> None:
    import shutil

    git = shutil.which("git")
    assert git is not None
    work = tmp_path / "work"
    work.mkdir()
    snapshots = WorkspaceSnapshots(SnapshotStore(work, tmp_path / "side", git), ledger=FakeLedger)
    approver = RecordingApprover("approve")
    runner = make_runner(work, approver)
    runner.register(RevertTurn.tool(snapshots))
    [failed] = run(runner, ("revert_turn", '{"n": 7}'), text="撤回")
    assert not failed.success and unwrap(failed).startswith("❌ 无法恢复快照")
    assert approver.requests == []


def test_revert_turn_is_dangerous_in_every_mode_but_yes() -> None:
    for mode in ("auto", "ask"):
        assert ApprovalState(mode).needs_approval(REVERT_TURN, {"n": 1}) is not None  # type: ignore[arg-type]
    assert ApprovalState("auto", yes=True).needs_approval(REVERT_TURN, {"n": 1}) is None


@needs_git
def test_the_stored_label_is_redacted(tmp_path: Path) -> None:
    import shutil

    git = shutil.which("git")
    assert git is not None
    (tmp_path / "work").mkdir()
    store = SnapshotStore(tmp_path / "work", tmp_path / "side", git)
    key = "sk-" + "a1b2c3d4" * 4
    WorkspaceSnapshots(store).before_first_change(f"用这个 key {key} 调接口")
    [snapshot] = store.snapshots()
    assert key not in snapshot.label and "[REDACTED]" in snapshot.label
    raw = store.repo.run(["cat-file", "commit", snapshot.commit])
    assert key.encode() not in raw


def test_the_session_tools_give_every_turn_the_checkpoint(tmp_path: Path) -> None:
    """The session's tool source hands its snapshots to each turn it makes; the runner holds none."""
    checkpoint = CountingCheckpoint()
    tools = SnapshottedTools(make_runner(tmp_path), checkpoint)
    for text in ("第一轮", "第二轮"):
        tools.for_turn(text).execute(
            calls(write_call(f"{len(text)}{text}.txt")), CancelToken(), lambda _e: None
        )
    assert checkpoint.labels == ["第一轮", "第二轮"]
    assert not hasattr(make_runner(tmp_path), "checkpoint")
