"""Workspace snapshots as a session holds them (issue 30): built from the settings, wired into the runner's
checkpoint and the `revert_turn` tool, and what the snapshot commands ask of them (every answer a CommandReply,
never an exception)."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply
from paicli.config.modes import DEFAULT_MODE, mode_named
from paicli.redact import Redactor
from paicli.snapshots.availability import NO_GIT, TURNED_OFF
from paicli.snapshots.git import SnapshotError
from paicli.snapshots.model import RestorePlan, Snapshot
from paicli.snapshots.note import file_lines
from paicli.snapshots.recorder import EventLedger, WorkspaceSnapshots, open_store
from paicli.snapshots.report import list_text, plan_text, result_text, status_text
from paicli.snapshots.store import SnapshotStore

if TYPE_CHECKING:
    from paicli.cli.compose import Components


def attach_snapshots(parts: Components, ledger: Callable[[], EventLedger]) -> WorkspaceSnapshots:
    """Build the session's snapshots from the knobs; each turn calls them before its first change (the session
    offers `revert_turn` itself: cli/snapshot_seam.py)."""
    from paicli.cli.compose import known_secrets

    files = parts.values.files
    secrets = known_secrets(parts.settings, parts.keys)
    unavailable = TURNED_OFF
    store = None
    if files.snapshots:
        home = parts.settings.paicli_home
        opened = open_store(parts.settings.project_root, home, files.snapshot_keep, files.user_home, secrets)
        store, unavailable = (None, opened) if isinstance(opened, str) else (opened, "")
    snapshots = WorkspaceSnapshots(
        store,
        unavailable,
        ledger=ledger,  # the running session's (/resume switches it)
        mode=lambda: (mode_named(parts.approval.mode) or DEFAULT_MODE).runs,
        announce_unavailable=unavailable == NO_GIT,  # $HOME as the project is a choice, not a fault
        redact=Redactor(secrets).text,
        notify=parts.notices.post,
    )
    return snapshots


class SnapshotCommands:
    """What the REPL asks of the session's snapshots; every answer is a CommandReply, never an exception."""

    def __init__(self, snapshots: WorkspaceSnapshots, yes: Callable[[], bool]) -> None:
        self.snapshots = snapshots
        self._yes = yes

    @property
    def yes(self) -> bool:
        return self._yes()

    def report(self, sub: str) -> CommandReply:
        store = self.snapshots.store
        if store is None:
            return CommandReply(
                f"📸 工作区快照不可用：{self.snapshots.unavailable}", ok=not sub.startswith("clean")
            )
        try:
            if sub == "clean --all":
                found = len(store.snapshots())
                freed = store.remove()
                return CommandReply(
                    f"🧹 已删除本项目的整个快照库（{found} 个快照），释放 {freed / 1024 / 1024:.1f} MB；"
                    "下一次改动文件前会重新建立。"
                )
            found_list = store.snapshots()
            if sub == "status":
                since = store.changes_since(found_list[0]) if found_list else None
                preparing = self.snapshots.priming.text() if self.snapshots.priming.running else ""
                text = status_text(
                    store.git_dir, found_list, store.disk_bytes(), store.keep, since, preparing
                )
                return CommandReply(text)
            if sub == "clean":
                freed = store.clean()
                return CommandReply(
                    f"🧹 已删除本项目的 {len(found_list)} 个快照，释放 {freed / 1024 / 1024:.1f} MB"
                )
            changed = changed_counts(store, found_list[:LISTED])
            return CommandReply(list_text(found_list, self.snapshots.session_id(), LISTED, changed))
        except SnapshotError as error:
            return CommandReply(f"❌ 快照操作失败: {error}", ok=False)

    def plan(self, number: int | None) -> tuple[RestorePlan | None, CommandReply]:
        """Restoring snapshot #`number`; None: `/undo` (the newest turn or Plan/Team run, taken back whole)."""
        try:
            plan = self.snapshots.plan_undo() if number is None else self.snapshots.plan(number)
        except SnapshotError as error:
            return None, CommandReply(f"❌ 无法恢复: {error}", ok=False)
        return plan, CommandReply(plan_text(plan))

    def restore(self, plan: RestorePlan, what: str) -> CommandReply:
        """Put the files back; the model is told in its next request (`what` names the command)."""
        try:
            result = self.snapshots.restore(plan, "user")
        except SnapshotError as error:
            return CommandReply(f"❌ 恢复失败: {error}（已恢复的文件可用 /undo 撤销）", ok=False)
        self.snapshots.tell_model(what, file_lines(result.changes))
        return CommandReply(result_text(result), ok=not result.conflicts)


LISTED = 20


def changed_counts(store: SnapshotStore, shown: list[Snapshot]) -> dict[str, int]:
    """Files changed after each listed snapshot: up to the next one, the newest up to now."""
    counts: dict[str, int] = {}
    if not shown:
        return counts
    counts[shown[0].ref] = len(store.changes_since(shown[0]))
    for newer, older in itertools.pairwise(shown):
        counts[older.ref] = len(store.changes_between(older, newer))
    return counts
