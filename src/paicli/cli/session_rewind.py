"""`/rewind` on the session (issue 43): the turns it can go back to, read from the ledger; what going back would
change; and doing it — the files through the snapshot taken before that turn, the conversation folded from the
ledger as the model saw it then (append-only: a rewind event and a checkpoint, nothing erased).

A Plan or Team run is one turn. Every answer is a value or a CommandReply, never an exception.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from paicli.cli.backend import CommandReply
from paicli.session.timeline import Timeline, TurnStart, read_timeline, view_before
from paicli.snapshots.git import SnapshotError
from paicli.snapshots.model import Change, RestorePlan, Snapshot
from paicli.snapshots.note import file_lines
from paicli.snapshots.report import change_lines, result_text

if TYPE_CHECKING:
    from paicli.agent.react import ReactAgent
    from paicli.session.ledger import ConversationLedger
    from paicli.snapshots.recorder import WorkspaceSnapshots

Scope = Literal["all", "conversation", "files"]
SCOPE_TEXT: dict[Scope, str] = {"all": "对话和文件", "conversation": "只回退对话", "files": "只恢复文件"}
PRUNED = (
    "第 {n} 轮之前的快照已经不在了（超出保留数量或被 /snapshot clean 删除），无法把文件恢复到那时；"
    "可以用 /rewind {back} --conversation 只回退对话"
)


@dataclass(frozen=True)
class RewindChoice:
    turn: TurnStart
    number: int  # the turn's number in the conversation (1 = the first)
    scope: Scope
    files: RestorePlan | None = None  # the files to put back (None: none to put back, or not asked)
    kept: tuple[Change, ...] = ()  # conversation only: files changed since that turn, left as they are
    files_note: str = ""  # why the files are not part of it, when they were asked for


def timeline(ledger: ConversationLedger) -> Timeline | CommandReply:
    if ledger.path is None:
        return CommandReply("⚠️ 会话账本不可用，无法回退对话。", ok=False)
    try:
        found = read_timeline(ledger.path)
    except OSError as error:
        return CommandReply(f"❌ 无法读取会话记录: {error.strerror or error}", ok=False)
    if not found.turns:
        return CommandReply("📭 这个会话还没有可以回退的对话。")
    return found


def prepare(
    found: Timeline, index: int, scope: Scope, snapshots: WorkspaceSnapshots | None
) -> RewindChoice | CommandReply:
    """What going back to before turn `index` (0-based) would change, nothing changed yet."""
    turn, number = found.turns[index], index + 1
    if scope == "conversation":
        return RewindChoice(turn, number, scope, kept=_kept_changes(found, turn, snapshots))
    store = snapshots.store if snapshots is not None else None
    if snapshots is None or store is None:
        why = snapshots.unavailable if snapshots is not None else "这个会话没有工作区快照"
        if scope == "files":
            return CommandReply(f"❌ 无法恢复文件: {why}", ok=False)
        return RewindChoice(turn, number, scope, files_note=f"文件没有恢复（{why}）")
    mark = found.snapshot_before(turn)
    if mark is None:
        return RewindChoice(turn, number, scope)  # no turn changed a file since
    snapshot = _stored(snapshots, mark.commit)
    if snapshot is None:
        back = len(found.turns) - index
        return CommandReply(PRUNED.format(n=number, back=back), ok=False)
    try:
        plan = snapshots.plan_snapshot(snapshot)
    except SnapshotError as error:
        return CommandReply(f"❌ 无法恢复文件: {error}", ok=False)
    return RewindChoice(turn, number, scope, files=plan)


def _stored(snapshots: WorkspaceSnapshots, commit: str) -> Snapshot | None:
    try:
        return next((s for s in snapshots.snapshots() if s.commit == commit), None)
    except SnapshotError:
        return None


def _kept_changes(
    found: Timeline, turn: TurnStart, snapshots: WorkspaceSnapshots | None
) -> tuple[Change, ...]:
    """Files the taken-back turns changed (the snapshot before the turn up to now): they stay as they are."""
    store = snapshots.store if snapshots is not None else None
    mark = found.snapshot_before(turn)
    if snapshots is None or store is None or mark is None:
        return ()
    snapshot = _stored(snapshots, mark.commit)
    if snapshot is None:
        return ()
    try:
        return store.changes_since(snapshot)
    except SnapshotError:
        return ()


def preview(choice: RewindChoice, total: int) -> str:
    """What the person is asked to confirm."""
    later = total - choice.number
    lines = [f"⏪ 回退到第 {choice.number} 轮之前（{SCOPE_TEXT[choice.scope]}）：{_shown(choice.turn)}"]
    if choice.scope != "files":
        lines.append(
            f"   对话: 第 {choice.number} 轮及之后的 {later + 1} 轮从模型的上下文中撤回（会话记录里仍保留）"
        )
    plan = choice.files
    if plan is not None and plan.changes:
        lines.append(f"   文件: 将改动 {len(plan.changes)} 个文件：")
        lines += change_lines(plan.changes)
    elif choice.scope != "conversation":
        lines.append(f"   文件: {choice.files_note or '那一轮之后没有改动过文件，不需要恢复'}")
    if choice.kept:
        lines.append(f"   文件保持不变（其中 {len(choice.kept)} 个在那之后改动过，会告诉模型）")
    return "\n".join(lines)


def apply(
    choice: RewindChoice,
    agent: ReactAgent,
    ledger: ConversationLedger,
    snapshots: WorkspaceSnapshots | None,
) -> CommandReply:
    """Files first (a failure stops before the conversation changes), then the conversation."""
    lines: list[str] = []
    plan = choice.files
    restored: tuple[Change, ...] = ()
    if plan is not None and plan.changes and snapshots is not None:
        try:
            result = snapshots.restore(plan, "user")
        except SnapshotError as error:
            return CommandReply(
                f"❌ 恢复文件失败，对话没有回退: {error}（已恢复的文件可用 /undo 撤销）", ok=False
            )
        restored = result.changes
        lines.append(result_text(result))
        if result.conflicts:
            return CommandReply("\n".join([*lines, "对话没有回退。"]), ok=False)
    if choice.scope != "files":
        assert ledger.path is not None
        view = view_before(ledger.path, choice.turn.sequence)
        metadata = {"toSequence": choice.turn.sequence, "turn": choice.number, "scope": choice.scope}
        agent.rewind(view.messages, metadata)
        if snapshots is not None:
            snapshots.rewound(choice.number - 1)
        lines.insert(0, f"⏪ 对话已回到第 {choice.number} 轮之前（模型上下文 {len(view.messages)} 条消息）。")
    if choice.files_note:
        lines.append(f"⚠️ {choice.files_note}")
    _tell_model(choice, restored, snapshots)
    return CommandReply("\n".join(lines) or "⏪ 没有需要恢复的文件。")


def _tell_model(
    choice: RewindChoice, restored: tuple[Change, ...], snapshots: WorkspaceSnapshots | None
) -> None:
    """The conversation and the files disagree after a rewind of one of them: the model hears which files."""
    if snapshots is None:
        return
    if choice.scope == "files":
        what = f"用户用 /rewind 把项目文件恢复到了第 {choice.number} 轮之前的样子（对话没有回退）"
        snapshots.tell_model(what, file_lines(restored))
    elif choice.scope == "conversation":
        what = f"用户用 /rewind 把对话回退到了第 {choice.number} 轮之前，但项目文件保留了之后的改动"
        snapshots.tell_model(what, file_lines(choice.kept, kept=True))


def _shown(turn: TurnStart) -> str:
    from paicli.cli.render import shorten

    run = {"plan": "（Plan 运行）", "team": "（Team 运行）"}.get(turn.run_mode, "")
    return f"{shorten(turn.typed, 60)}{run}"


def turn_list(found: Timeline, shown: list[int] | None = None, limit: int = 20) -> str:
    """The turns to choose from, newest first, numbered as `/rewind N` counts (1 = the last)."""
    import time

    total = len(found.turns)
    indexes = shown if shown is not None else list(range(total - 1, -1, -1))
    lines = ["⏪ 可以回退到这些消息之前（最新在前）："]
    for index in indexes[:limit]:
        turn = found.turns[index]
        when = time.strftime("%H:%M", time.localtime(turn.timestamp / 1000)) if turn.timestamp else "--:--"
        lines.append(f"  {total - index:>2}. {when}  第 {index + 1} 轮  {_shown(turn)}")
    if len(indexes) > limit:
        lines.append(f"   …另有 {len(indexes) - limit} 条更早的消息（输入搜索词查找）")
    return "\n".join(lines)
