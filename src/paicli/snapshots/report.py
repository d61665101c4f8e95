"""The words of `/snapshot`, `/restore` and `revert_turn` (pure functions of the store's values)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

from paicli.config import knobs
from paicli.snapshots.model import KIND_TEXT, Change, RestorePlan, RestoreResult, Snapshot, shown_path

MAX_LISTED_FILES = 30
_VERBS = {"A": "恢复", "D": "删除", "M": "还原", "T": "还原"}


def when(snapshot: Snapshot) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(snapshot.created_ms / 1000))


def snapshot_line(position: int, snapshot: Snapshot, session: str = "", number_width: int = 0) -> str:
    """`number_width`: the widest `#N` of the listing, so the columns after it stay in line past #9."""
    kind = KIND_TEXT.get(snapshot.kind, snapshot.kind)
    mine = " · 本会话" if session and snapshot.session == session else ""
    label = f" · {snapshot.label}" if snapshot.label else ""
    return f"   {f'#{position}':<{number_width}}  {when(snapshot)}  {kind}{mine}{label}"


def list_text(snapshots: Sequence[Snapshot], session: str = "", limit: int = 20) -> str:
    if not snapshots:
        return "📸 本项目还没有快照（每轮第一次改动文件之前会自动拍一个）"
    lines = [
        f"📸 本项目的快照（共 {len(snapshots)} 个，最新在前；/restore <编号> 恢复，/undo 即 /restore 1）："
    ]
    shown = snapshots[:limit]
    width = len(f"#{len(shown)}")
    lines += [snapshot_line(index, snap, session, width) for index, snap in enumerate(shown, 1)]
    if len(snapshots) > limit:
        lines.append(f"   …另有 {len(snapshots) - limit} 个更早的快照")
    return "\n".join(lines)


def status_text(
    git_dir: Path, snapshots: Sequence[Snapshot], disk_bytes: int, keep: int, since: Sequence[Change] | None
) -> str:
    lines = [
        "📸 工作区快照：已开启（每轮第一次改动文件之前自动拍摄）",
        f"   快照库: {git_dir}",
        f"   快照数: {len(snapshots)}（最多保留 {keep} 个，{knobs.SNAPSHOT_KEEP.key}）",
        f"   占用空间: {disk_bytes / 1024 / 1024:.1f} MB",
    ]
    if snapshots:
        latest = snapshots[0]
        lines.append(f"   最近一次: {when(latest)}（{KIND_TEXT.get(latest.kind, latest.kind)}）")
        if latest.skipped:
            lines.append(f"   未纳入快照: {'、'.join(latest.skipped[:10])}")
    if since is not None:
        lines.append(f"   此后改动的文件: {len(since)} 个")
    return "\n".join(lines)


def change_lines(changes: Sequence[Change], limit: int = MAX_LISTED_FILES) -> list[str]:
    lines = [f"   {_VERBS[change.status]} {shown_path(change.path)}" for change in changes[:limit]]
    if len(changes) > limit:
        lines.append(f"   …另有 {len(changes) - limit} 个文件")
    return lines


def plan_text(plan: RestorePlan) -> str:
    head = f"↩️ 恢复到快照 #{plan.position}（{when(plan.target)}，{KIND_TEXT.get(plan.target.kind, '')}）"
    if not plan.changes:
        return f"{head}：工作区和这个快照完全一致，没有需要改动的文件。"
    counts = _counts(plan.changes)
    lines = [f"{head}，将改动 {len(plan.changes)} 个文件（{counts}）："]
    lines += change_lines(plan.changes)
    lines.append("   恢复前会先给当前状态拍一个快照，之后可用 /undo 撤销这次恢复。")
    return "\n".join(lines)


def result_text(result: RestoreResult) -> str:
    done = len(result.changes) - len(result.conflicts)
    lines = [f"✅ 已恢复到 {when(result.target)} 的快照，改动了 {done} 个文件；/undo 可撤销这次恢复。"]
    if result.conflicts:
        lines.append(f"⚠️ 有 {len(result.conflicts)} 个路径没有恢复（那里现在是快照之外的文件或文件夹）：")
        lines += [f"   {path}" for path in result.conflicts[:MAX_LISTED_FILES]]
    return "\n".join(lines)


def _counts(changes: Sequence[Change]) -> str:
    created = sum(1 for change in changes if change.status == "A")
    deleted = sum(1 for change in changes if change.status == "D")
    edited = len(changes) - created - deleted
    parts = [
        f"{verb} {count}" for verb, count in (("恢复", created), ("删除", deleted), ("还原", edited)) if count
    ]
    return "，".join(parts)
