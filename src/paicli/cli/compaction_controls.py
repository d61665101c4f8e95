"""What lets the user see, steer and undo compaction: `/pin`, `/pins`, `/unpin`, `/compact show`,
`/compact --preview [focus]`, `/compact undo`. The controls work on the current session core (rebuilt by /model
and /resume) through one accessor; the command handlers (cli/compaction_commands.py) only print their replies."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from paicli.cancel import CancelToken
from paicli.cli.backend import CommandReply
from paicli.cli.receipt_view import pins_text, receipt_text
from paicli.context.internal import is_real_user_turn
from paicli.context.memory_block import without_memory
from paicli.context.pins import PINS_EVENT, PinError
from paicli.context.receipt_events import UNDO_EVENT
from paicli.session.compaction_log import last_compaction, view_without
from paicli.session.ledger_events import read_entries

if TYPE_CHECKING:
    from paicli.cli.session_factory import SessionCore

SHOW_WORDS = ("show",)
UNDO_WORDS = ("undo",)
PREVIEW_FLAG = "--preview"
NO_COMPACTION = "📭 本会话还没有发生过上下文压缩。"


def compact_subcommand(args: str) -> tuple[str, str]:
    """`/compact` arguments -> (what, focus): `show`, `undo`, `preview` (focus after the flag) or `compact`."""
    words = args.split(maxsplit=1)
    first = words[0].lower() if words else ""
    if first in SHOW_WORDS and len(words) == 1:
        return "show", ""
    if first in UNDO_WORDS and len(words) == 1:
        return "undo", ""
    if first == PREVIEW_FLAG:
        return "preview", words[1].strip() if len(words) > 1 else ""
    return "compact", args


class CompactionControls:
    def __init__(self, core: Callable[[], SessionCore]) -> None:
        self._core = core

    # ---- pins ---------------------------------------------------------------------------------------

    def pin(self, args: str) -> CommandReply:
        core = self._core()
        text = args.strip()
        if text.lower() == "last":
            text = _last_user_words(core)
            if not text:
                return CommandReply("📭 还没有你的消息可以固定（/pin last 固定你的上一条消息）。", ok=False)
        board = core.parts.pins
        before = len(board)
        try:
            number = board.add(text)
        except PinError as exc:
            return CommandReply(f"❌ {exc}", ok=False)
        if len(board) == before:
            return CommandReply(f"📌 这段内容已经固定过了（第 {number} 条）。")
        self._record(core, "add", number)
        return CommandReply(
            f"📌 已固定第 {number} 条。它原文写在系统提示里（下一次请求起生效），压缩不会移走；"
            "/pins 查看，/unpin <编号> 取消。"
        )

    def pins(self) -> CommandReply:
        return CommandReply(pins_text(self._core().parts.pins.items()))

    def unpin(self, args: str) -> CommandReply:
        core = self._core()
        if not args.strip().isdigit():
            return CommandReply("用法：/unpin <编号>（/pins 查看编号）", ok=False)
        number = int(args.strip())
        try:
            core.parts.pins.remove(number)
        except PinError as exc:
            return CommandReply(f"❌ {exc}", ok=False)
        self._record(core, "remove", number)
        return CommandReply(f"📌 已取消第 {number} 条固定内容（下一次请求起生效）。")

    @staticmethod
    def _record(core: SessionCore, action: str, number: int) -> None:
        metadata = {**core.parts.pins.to_metadata(), "action": action, "number": number}
        core.parts.ledger.append_event(PINS_EVENT, "react", "cli", f"slash_pin_{action}", metadata)
        core.agent.invalidate_system_prompt()

    # ---- receipts, preview, undo --------------------------------------------------------------------

    def show(self) -> CommandReply:
        """The newest receipt; when that one wrote no summary (a clearing), the newest summary's too."""
        core = self._core()
        entries = read_entries(core.parts.ledger.path)
        logged = last_compaction(entries)
        if logged is None:
            return CommandReply(NO_COMPACTION)
        pins = len(core.parts.pins)
        parts = [receipt_text(logged.receipt, pins)]
        if logged.undone:
            parts.append("（这次压缩已用 /compact undo 撤销）")
        summary = None if logged.receipt.summary else last_compaction(entries, with_summary=True)
        if summary is not None:
            parts += ["", "最近一次摘要：", receipt_text(summary.receipt, pins)]
        return CommandReply("\n".join(parts))

    def preview(self, focus: str, cancel: CancelToken | None) -> CommandReply:
        core = self._core()
        result = core.compaction.preview(core.agent.history, focus or None, cancel, llm=core.agent.llm)
        if result.error:
            return CommandReply(f"❌ 预览没有完成: {result.error}", ok=False)
        if result.receipt is None:
            return CommandReply("📭 对话还很短，暂时没有可以压缩的内容")
        header = "🔍 压缩预览（没有应用，上下文保持不变；要应用请用 /compact [重点]）"
        return CommandReply(f"{header}\n{receipt_text(result.receipt, len(core.parts.pins))}")

    def undo(self) -> CommandReply:
        core = self._core()
        entries = read_entries(core.parts.ledger.path)
        logged = last_compaction(entries)
        if logged is None:
            return CommandReply(NO_COMPACTION, ok=False)
        if logged.undone:
            return CommandReply("↩️ 最近一次压缩已经撤销过了（只能撤销最近的一次）。", ok=False)
        if logged.rebuilt_after:
            return CommandReply(
                "↩️ 最近一次压缩之后上下文已经重建过（/clear、恢复会话或撤销），无法再撤销它。", ok=False
            )
        view = view_without(entries, logged)
        core.agent.restore(view.messages, source="compact_undo")
        core.agent.conversation.event(UNDO_EVENT, "slash_compact_undo", {"receiptSequence": logged.sequence})
        tokens = core.compaction.measure(core.agent.history, core.agent.llm.model)
        lines = [
            f"↩️ 已撤销最近一次压缩：上下文恢复为 {len(view.messages)} 条消息，约 {tokens:,} tokens"
            "（压缩之后的对话都保留）。"
        ]
        trigger = core.compaction.profile.compression_trigger_tokens
        if trigger and tokens >= trigger:
            lines.append(f"   ⚠️ 这已超过自动压缩的阈值（{trigger:,} tokens），下一次请求前会再次自动压缩。")
        return CommandReply("\n".join(lines))


def _last_user_words(core: SessionCore) -> str:
    for message in reversed(core.agent.history):
        if is_real_user_turn(message):
            return without_memory(message.content or "").strip()
    return ""
