"""The outcome of an explicit memory write and the text that /save, /memory replace and save_memory show."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import Enum

from paicli.memory.entry import MemoryEntry


class WriteStatus(str, Enum):
    STORED = "STORED"
    REPLACED = "REPLACED"
    SUPERSEDED = "SUPERSEDED"  # stored; older facts on the same subject are kept as superseded
    DUPLICATE = "DUPLICATE"
    CONFLICT = "CONFLICT"
    REPLACE_TARGET_NOT_FOUND = "REPLACE_TARGET_NOT_FOUND"
    INVALID = "INVALID"  # refused before touching the store (empty or oversized fact)
    FAILED = "FAILED"  # the store could not be locked, read or written; nothing changed


def local_date(moment: datetime) -> str:
    return moment.astimezone().strftime("%Y-%m-%d")


@dataclass(frozen=True)
class MemoryReply:
    """What a memory command shows, and whether it did what was asked (the REPL's outcome, never read off the text)."""

    text: str
    ok: bool = True


@dataclass(frozen=True)
class MemoryWriteResult:
    status: WriteStatus
    entry: MemoryEntry | None = None  # stored / refreshed entry; the pending new entry for CONFLICT
    conflicts: tuple[MemoryEntry, ...] = ()
    replaced: MemoryEntry | None = None
    target_id: str = ""
    message: str = ""  # reason for INVALID / FAILED
    superseded: tuple[MemoryEntry, ...] = ()

    @property
    def written(self) -> bool:
        """A new entry is on disk (a pending conflict too: it is kept, just not served as a truth)."""
        return self.status in (
            WriteStatus.STORED,
            WriteStatus.REPLACED,
            WriteStatus.SUPERSEDED,
            WriteStatus.CONFLICT,
        )

    @property
    def failed(self) -> bool:
        """Refused or not written: the command reports a failure (a duplicate or a pending conflict is an answer)."""
        return self.status in (WriteStatus.INVALID, WriteStatus.FAILED)

    def describe(self) -> str:
        status = self.status
        if status is WriteStatus.STORED:
            return self._stored()
        if status is WriteStatus.REPLACED:
            return self._replaced()
        if status is WriteStatus.SUPERSEDED:
            return self._superseded()
        if status is WriteStatus.DUPLICATE:
            return self._duplicate()
        if status is WriteStatus.CONFLICT:
            return self._conflict()
        if status is WriteStatus.REPLACE_TARGET_NOT_FOUND:
            return (
                f"📭 没有找到可替换的长期记忆: {self.target_id}（不存在、不属于当前项目，或已被新版本取代），本次没有写入。"
                "可以用 /memory list 查看现有记忆的 id。"
            )
        if status is WriteStatus.INVALID:
            return f"❌ {self.message}"
        return f"❌ 长期记忆写入失败，已有记忆没有改动: {self.message}"

    def _stored(self) -> str:
        entry = _required(self.entry)
        return f"💾 已写入长期记忆（{entry.scope}，id {entry.id}）: {entry.content}"

    def _replaced(self) -> str:
        entry, old = _required(self.entry), _required(self.replaced)
        return (
            f"🔁 已替换长期记忆 {old.id}（{entry.scope}，新 id {entry.id}）\n"
            f"   旧内容: {old.content}（保留为被取代的历史版本）\n"
            f"   新内容: {entry.content}"
        )

    def _superseded(self) -> str:
        entry = _required(self.entry)
        lines = [f"🔁 已写入长期记忆（{entry.scope}，id {entry.id}）: {entry.content}"]
        for old in self.superseded:
            lines.append(
                f"   旧记忆 {old.id} 已标记为被取代（保留在历史里，不再当作事实使用）: {old.content}"
            )
        lines.append(f"   /memory history {entry.id} 可以查看前后版本。")
        return "\n".join(lines)

    def _duplicate(self) -> str:
        entry = _required(self.entry)
        text = (
            f"ℹ️ 长期记忆里已经有这条内容（{entry.id}）: {entry.content}\n"
            f"   没有重复保存，只把它的核实时间刷新为 {local_date(entry.last_verified_at)}。"
        )
        if self.replaced is not None:
            text += f"\n   要替换的旧记忆 {self.replaced.id} 已标记为被取代: {self.replaced.content}"
        return text

    def _conflict(self) -> str:
        incoming = _required(self.entry)
        flag = " --global" if incoming.scope == "global" else ""
        lines = [
            f"⚠️ 新事实与已有的长期记忆冲突，已先保存为待确认记录（{incoming.id}），在确认之前不会当作事实使用。",
            f"   新内容: {incoming.content}",
            "   冲突的已有记忆:",
        ]
        for old in self.conflicts:
            lines.append(
                f"   - {old.id}（写入 {local_date(old.timestamp)}，最后核实 {local_date(old.last_verified_at)}）: {old.content}"
            )
        lines.append("   请先确认以哪条为准（模型应先询问用户），再选择:")
        lines.append(
            f"   1. 以新事实为准: /memory verify {incoming.id}（旧记忆会标记为被取代；"
            f"save_memory 工具传 replace_id={self.conflicts[0].id if self.conflicts else ''}）"
        )
        lines.append(f"   2. 保留旧记忆: /memory delete {incoming.id}")
        lines.append(
            f"   3. 两条都当作事实保留: /save{flag} --force {incoming.content}（save_memory 工具传 keep_both=true）"
        )
        lines.append("   /memory conflicts 可以随时查看所有待确认的冲突。")
        return "\n".join(lines)


def _required(entry: MemoryEntry | None) -> MemoryEntry:
    if entry is None:
        raise ValueError("this write result carries no entry")
    return entry


def invalid(message: str) -> MemoryWriteResult:
    return MemoryWriteResult(WriteStatus.INVALID, message=message)


def failed(message: str) -> MemoryWriteResult:
    return MemoryWriteResult(WriteStatus.FAILED, message=message)
