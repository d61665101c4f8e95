"""/snapshot, /restore and /undo through the REPL dispatcher: who confirms, and what is printed."""

from __future__ import annotations

import io
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from rich.console import Console

from paicli.cancel import CancelToken
from paicli.cli.repl_dispatch import Dispatcher
from paicli.cli.session_snapshots import SnapshotCommands
from paicli.snapshots.recorder import WorkspaceSnapshots
from paicli.snapshots.store import SnapshotStore
from paicli.testing.fake_backend import FakeBackend
from tests.snapshots.conftest import needs_git

pytestmark = needs_git
T = TypeVar("T")


class ScriptedIO:
    markdown = False

    def __init__(self, answers: list[str], interactive: bool) -> None:
        self.out = io.StringIO()
        self.console = Console(file=self.out, width=200)
        self.progress = Console(file=io.StringIO(), width=200)
        self.answers = answers
        self.questions: list[str] = []
        self.interactive = interactive

    def ask(self, question: str) -> str | None:
        self.questions.append(question)
        return self.answers.pop(0) if self.answers else None

    def run_cancellable(self, work: Callable[[CancelToken], T], **_: Any) -> T:
        return work(CancelToken())

    def clear_input_history(self) -> None:
        return None


def session(
    tmp_path: Path, answers: list[str], *, interactive: bool, yes: bool = False
) -> tuple[Dispatcher, ScriptedIO, Path]:
    git = shutil.which("git")
    assert git is not None
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    snapshots = WorkspaceSnapshots(SnapshotStore(work, tmp_path / "side", git))
    backend = FakeBackend()
    backend.snapshots = SnapshotCommands(snapshots, lambda: yes)
    scripted = ScriptedIO(answers, interactive)
    return Dispatcher(backend, scripted), scripted, work  # type: ignore[arg-type]


def one_turn(dispatcher: Dispatcher, work: Path) -> None:
    (work / "f.txt").write_bytes(b"before")
    commands = dispatcher.session.snapshots
    commands.snapshots.before_first_change("改文件")
    (work / "f.txt").write_bytes(b"after")
    (work / "new.txt").write_bytes(b"new")


def test_the_interactive_repl_lists_the_changes_and_asks(tmp_path: Path) -> None:
    dispatcher, scripted, work = session(tmp_path, ["n", "y"], interactive=True)
    one_turn(dispatcher, work)
    dispatcher.handle("/undo")
    assert "已取消" in scripted.out.getvalue() and (work / "new.txt").exists()
    dispatcher.handle("/restore 1")
    text = scripted.out.getvalue()
    assert "还原 f.txt" in text and "删除 new.txt" in text and "已恢复" in text
    assert len(scripted.questions) == 2
    assert (work / "f.txt").read_bytes() == b"before" and not (work / "new.txt").exists()
    dispatcher.handle("/snapshot list")
    listing = scripted.out.getvalue().split("本项目的快照")[-1]
    assert "#2" in listing and "恢复到 #1 之前" in listing and "#1" in listing and "改文件" in listing


def test_piped_input_without_yes_restores_nothing_and_with_yes_asks_nobody(tmp_path: Path) -> None:
    dispatcher, scripted, work = session(tmp_path, ["y"], interactive=False)
    one_turn(dispatcher, work)
    dispatcher.handle("/undo")
    assert "--yes" in scripted.out.getvalue() and scripted.questions == []
    assert (work / "f.txt").read_bytes() == b"after"

    dispatcher, scripted, work = session(tmp_path, [], interactive=False, yes=True)
    dispatcher.handle("/restore 1")
    assert scripted.questions == [] and (work / "f.txt").read_bytes() == b"before"


def test_status_clean_and_bad_numbers(tmp_path: Path) -> None:
    dispatcher, scripted, work = session(tmp_path, ["y"], interactive=True)
    one_turn(dispatcher, work)
    dispatcher.handle("/snapshot status")
    assert "快照数: 1" in scripted.out.getvalue() and "此后改动的文件: 2 个" in scripted.out.getvalue()
    dispatcher.handle("/restore 7")
    assert "没有编号为 #7 的快照" in scripted.out.getvalue()
    dispatcher.handle("/snapshot clean")
    assert "已删除本项目的 1 个快照" in scripted.out.getvalue()
    dispatcher.handle("/snapshot")
    assert "还没有快照" in scripted.out.getvalue()
    assert (work / "f.txt").read_bytes() == b"after"  # cleaning the store never touches the project
