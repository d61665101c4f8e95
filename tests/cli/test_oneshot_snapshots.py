"""A one-shot run (`-p`) leaves the snapshot store alone until its first change (issue 49): a run that writes
nothing hashes no file, and the run that writes still gets its snapshot first, which `/undo` restores."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from paicli.cancel import CancelToken
from paicli.cli.app_backend import AppBackend
from paicli.cli.snapshot_seam import SnapshotSeam
from paicli.snapshots.recorder import SNAPSHOT_EVENT, WorkspaceSnapshots
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from tests.cli.served_session import served_parts
from tests.snapshots.conftest import needs_git

pytestmark = [needs_git, pytest.mark.timeout(120)]


def _recorder(backend: AppBackend) -> WorkspaceSnapshots:
    assert backend.snapshots is not None and backend.snapshots.snapshots.store is not None
    return backend.snapshots.snapshots


def _side_index(recorder: WorkspaceSnapshots) -> Path:
    assert recorder.store is not None
    return recorder.store.repo.index


def test_a_one_shot_greeting_hashes_nothing_and_its_first_change_is_still_undone(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "keep.txt").write_text("原来的内容", encoding="utf-8")
    (project / "other.txt").write_text("不动的文件", encoding="utf-8")
    write = json.dumps({"path": "keep.txt", "content": "新内容"})
    replies: list[Reply | str] = ["你好！", Reply.tool_calls(("write_file", write)), "改好了"]
    with FakeOpenAIServer(replies) as server:
        backend = AppBackend(
            served_parts(tmp_path, server.base_url), count_context=False, prime_snapshots=False
        )
        try:
            recorder = _recorder(backend)
            backend.run("你好", "react", lambda event: None, CancelToken())
            assert not recorder.priming.running and not _side_index(recorder).exists()  # nothing hashed
            backend.run("把 keep.txt 改一下", "react", lambda event: None, CancelToken())
            assert (project / "keep.txt").read_text(encoding="utf-8") == "新内容"
            assert _side_index(recorder).exists() and recorder.taken == 1  # taken before the write
            result = recorder.restore(recorder.plan_undo(), "user")
            assert [change.path for change in result.changes] == [b"keep.txt"]
            assert (project / "keep.txt").read_text(encoding="utf-8") == "原来的内容"
            assert (project / "other.txt").read_text(encoding="utf-8") == "不动的文件"
        finally:
            backend.close(5)


def test_an_interactive_session_prepares_the_first_snapshot_at_start(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "keep.txt").write_text("内容", encoding="utf-8")
    with FakeOpenAIServer(["你好！"]) as server:
        backend = AppBackend(served_parts(tmp_path, server.base_url))
        try:
            recorder = _recorder(backend)
            recorder.priming.wait()
            assert _side_index(recorder).exists() and recorder.taken == 0  # prepared, nothing taken yet
        finally:
            backend.close(5)


class _Ledger:
    """What the snapshots read of a ledger (recorder.EventLedger); the events they record are kept."""

    session_id = "s1"

    def __init__(self) -> None:
        self.next_sequence = 5
        self.events: list[tuple[str, dict[str, Any]]] = []

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None:
        self.events.append((event, dict(metadata)))


def test_the_snapshots_load_at_the_first_change_and_keep_the_units_begun_before(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "keep.txt").write_text("内容", encoding="utf-8")
    ledger = _Ledger()
    with FakeOpenAIServer([]) as server:
        parts = served_parts(tmp_path, server.base_url)
        seam = SnapshotSeam(parts, lambda: ledger)
    names = [tool["function"]["name"] for tool in parts.tools.definitions()]
    assert names[-1] == "revert_turn"  # offered at once: the first request is the same
    seam.begin_unit("第一轮", "react")
    ledger.next_sequence = 9
    seam.begin_unit("第二轮", "react")
    ledger.next_sequence = 12
    assert (
        seam.built is None
        and seam.taken == 0
        and seam.take_note() == ""
        and seam.files_changed_since(0) == ()
    )
    seam.before_first_change("第二轮")
    assert seam.built is not None and seam.taken == 1
    [(event, metadata)] = ledger.events
    # the second unit, where it began: not where the snapshots happened to load
    assert event == SNAPSHOT_EVENT and metadata["turn"] == 2 and metadata["unitStart"] == 9
    seam.begin_unit("第三轮", "react")  # loaded: passed straight on
    seam.before_first_change("第三轮")
    assert ledger.events[-1][1]["turn"] == 3 and ledger.events[-1][1]["unitStart"] == 12
    seam.commands().snapshots.close()


def test_a_project_without_snapshots_is_not_offered_revert_turn(tmp_path: Path) -> None:
    (tmp_path / "project").mkdir()
    with FakeOpenAIServer([]) as server:
        parts = served_parts(tmp_path, server.base_url, PAICLI_SNAPSHOTS="off")
        seam = SnapshotSeam(parts, _Ledger)
    assert "revert_turn" not in {tool["function"]["name"] for tool in parts.tools.definitions()}
    seam.before_first_change("改文件")  # loads, finds them turned off, and lets the turn go on
    built = seam.built
    assert built is not None and built.snapshots.store is None and seam.taken == 0
