"""Compaction receipts and pins as the terminal shows them (`/compact show`, `--preview`, Ctrl+O, /pins). Pure.

Summary text is model output and pins are the user's: both go through `strip_terminal` before they are shown.
"""

from __future__ import annotations

from collections.abc import Sequence

from paicli.context.receipts import Receipt, ReplacedItem
from paicli.termsafe import strip_terminal

_STRATEGIES = {
    "tool_result_clearing": "清理旧工具结果",
    "tool_result_offload": "卸载未读的大工具结果",
    "full_summary": "历史摘要",
    "session_memory": "会话记忆摘要",
    "dropped_rounds": "折叠早期对话（摘要失败时的兜底）",
}
MAX_LISTED = 12


def strategy_label(strategy: str) -> str:
    return _STRATEGIES.get(strategy, strategy)


def _items(items: Sequence[ReplacedItem], verb: str) -> list[str]:
    if not items:
        return []
    shown = [f"{item.id or '（无 id）'} {item.tool or '工具'} 约 {item.chars:,} 字符" for item in items]
    more = f"；另有 {len(shown) - MAX_LISTED} 条" if len(shown) > MAX_LISTED else ""
    return [f"  {verb} {len(items)} 条工具结果：" + "；".join(shown[:MAX_LISTED]) + more]


def cost_line(receipt: Receipt) -> str:
    observed = receipt.observed_uncached
    line = f"  成本：下一次请求未命中缓存、需要重新计费的输入预计约 {receipt.predicted_uncached:,} tokens"
    if observed is None:
        return line + "（实际数字在下一次请求的 usage 返回后记录）"
    return (
        line
        + f"，实际 {observed:,} tokens（共 {receipt.observed_prompt or 0:,}，缓存命中 {receipt.observed_cached or 0:,}）"
    )


def receipt_lines(receipt: Receipt, pins: int = 0) -> list[str]:
    how = "手动" if receipt.manual else "自动"
    lines = [
        f"🧾 压缩回执（{how}，{strategy_label(receipt.strategy)}）：对话消息 "
        f"{receipt.before_tokens:,} → {receipt.after_tokens:,} tokens，"
        f"{receipt.before_messages} → {receipt.after_messages} 条消息"
    ]
    if receipt.summarised_messages:
        ids = f"（原文 recall:{receipt.summarised_id}）" if receipt.summarised_id else ""
        lines.append(
            f"  摘要替换了 {receipt.summarised_messages} 条消息，其中用户消息 {receipt.summarised_user_turns} 条{ids}"
        )
    lines += _items(receipt.cleared, "清理了")
    lines += _items([i for i in receipt.replaced if i.kind == "offloaded"], "卸载了")
    kept = f"（recall:{receipt.kept_id}）" if receipt.kept_id else ""
    lines.append(
        f"  原样保留 {receipt.kept_messages} 条消息{kept}" + (f"，以及 {pins} 条固定内容" if pins else "")
    )
    lines.append(cost_line(receipt))
    return lines


def receipt_text(receipt: Receipt, pins: int = 0, *, with_summary: bool = True) -> str:
    lines = receipt_lines(receipt, pins)
    if with_summary and receipt.summary:
        lines += ["", "替换进上下文的摘要：", strip_terminal(receipt.summary)]
    return "\n".join(lines)


def pins_text(pins: Sequence[str]) -> str:
    if not pins:
        return "📌 还没有固定内容。用 /pin <内容> 固定一段话，或 /pin last 固定你的上一条消息。"
    lines = [f"📌 固定内容 {len(pins)} 条（原文写在系统提示里，压缩不会移走；/unpin <编号> 取消）："]
    for number, text in enumerate(pins, start=1):
        lines.append(f"  {number}. " + strip_terminal(text).replace("\n", "\n     "))
    return "\n".join(lines)
