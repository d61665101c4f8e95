"""What memory writes and injections say to the person and the model: a save's reply to the model, the notice
of facts saved in the background, and the line naming the memories a turn brought in."""

from __future__ import annotations

from paicli.memory.results import MemoryWriteResult, WriteStatus


def model_save_text(result: MemoryWriteResult) -> str:
    """What save_memory tells the model: the write result, where a re-statement says it confirmed nothing."""
    entry = result.entry
    if result.status is not WriteStatus.DUPLICATE or entry is None or result.replaced is not None:
        text = result.describe()
    else:
        text = f"ℹ️ 长期记忆里已经有这条内容（{entry.id}）: {entry.content}\n   没有重复保存，也没有改变它的核实状态。"
    if result.written:
        text += "\n   这条记忆标为“模型保存，待核实”，用户用 /memory verify 确认之前不会当作已核实的事实。"
    return text


def _brief(text: str, limit: int = 40) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def auto_notice(results: list[MemoryWriteResult]) -> str:
    lines: list[str] = []
    for result in results:
        entry = result.entry
        if entry is None:
            continue
        if result.status is WriteStatus.CONFLICT:
            olds = "；".join(f"{old.id} {_brief(old.content)}" for old in result.conflicts)
            lines.append(
                f"⚠️ 自动记下的“{_brief(entry.content)}”与已有记忆冲突（{olds}），已存为待确认（{entry.id}），"
                "确认前不会当作事实使用；/memory conflicts 查看"
            )
        elif result.superseded:
            olds = "；".join(_brief(old.content) for old in result.superseded)
            lines.append(f"🔁 记下了项目事实“{_brief(entry.content)}”（{entry.id}），取代了旧的“{olds}”")
        else:
            lines.append(f"💾 记下了项目事实“{_brief(entry.content)}”（{entry.id}，待核实）")
    if lines:
        lines.append("   /memory list 可以查看，记错的可以用 /memory delete 删掉。")
    return "\n".join(lines)


def injected_line(contents: list[str], ctrl_o: bool = True) -> str:
    """One line: how many memories went into the turn, and the first words of each."""
    words = "；".join(_brief(content, 16) for content in contents[:3])
    more = f" 等 {len(contents)} 条" if len(contents) > 3 else ""
    hint = "（Ctrl+O 查看全部）" if ctrl_o else ""
    return f"🧠 本轮带入 {len(contents)} 条长期记忆：{words}{more}{hint}"
