"""Workspace snapshots as a session holds them (issue 30): built from the settings, wired into the runner's
checkpoint and the `revert_turn` tool, and what the snapshot commands ask of them (every answer a CommandReply,
never an exception)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply
from paicli.config import knobs
from paicli.config.modes import DEFAULT_MODE, mode_named
from paicli.redact import Redactor
from paicli.snapshots.git import SnapshotError
from paicli.snapshots.model import RestorePlan
from paicli.snapshots.recorder import NO_GIT, TURNED_OFF, EventLedger, WorkspaceSnapshots, open_store
from paicli.snapshots.report import list_text, plan_text, result_text, status_text
from paicli.snapshots.tool import RevertTurn

if TYPE_CHECKING:
    from paicli.cli.compose import Components


def attach_snapshots(parts: Components, ledger: Callable[[], EventLedger]) -> WorkspaceSnapshots:
    """Build the session's snapshots from the knobs; the runner calls them before each turn's first change."""
    from paicli.cli.compose import known_secrets

    env = parts.env
    secrets = known_secrets(parts.settings, env)
    unavailable = TURNED_OFF
    store = None
    if knobs.SNAPSHOTS.read(env) == "on":
        home = parts.settings.paicli_home
        user_home = env.get("HOME")
        opened = open_store(
            parts.settings.project_root,
            home,
            knobs.SNAPSHOT_KEEP.read(env),
            None if user_home is None else Path(user_home).expanduser(),
            secrets,
        )
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
    parts.tools.checkpoint = snapshots
    if store is not None:
        parts.tools.register(RevertTurn.tool(snapshots))
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
            return CommandReply(f"📸 工作区快照不可用：{self.snapshots.unavailable}", ok=sub != "clean")
        try:
            found = store.snapshots()
            if sub == "status":
                since = store.changes_since(found[0]) if found else None
                return CommandReply(status_text(store.git_dir, found, store.disk_bytes(), store.keep, since))
            if sub == "clean":
                freed = store.clean()
                return CommandReply(
                    f"🧹 已删除本项目的 {len(found)} 个快照，释放 {freed / 1024 / 1024:.1f} MB"
                )
            return CommandReply(list_text(found, self.snapshots.session_id()))
        except SnapshotError as error:
            return CommandReply(f"❌ 快照操作失败: {error}", ok=False)

    def plan(self, position: int) -> tuple[RestorePlan | None, CommandReply]:
        try:
            plan = self.snapshots.plan(position)
        except SnapshotError as error:
            return None, CommandReply(f"❌ 无法恢复: {error}", ok=False)
        return plan, CommandReply(plan_text(plan))

    def restore(self, plan: RestorePlan) -> CommandReply:
        try:
            result = self.snapshots.restore(plan, "user")
        except SnapshotError as error:
            return CommandReply(f"❌ 恢复失败: {error}（已恢复的文件可用 /undo 撤销）", ok=False)
        return CommandReply(result_text(result), ok=not result.conflicts)
