"""The whole conversation as Markdown, read from the ledger (issue 43: `/export`): every turn of the main
conversation in the order it happened, compacted or not, with a mark where a compaction, a `/clear`, a
`/rewind` or a resume happened; without the program's internal blocks (the long-term memory put before an
input, the `<tool_result … trust="untrusted-data">` wrappers, skill bodies, reminders, workspace notes).
A Plan or Team run is its goal and its result. The caller redacts the text before it is written.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from paicli.cli.backend import CommandReply
from paicli.cli.summaries import strip_boundary
from paicli.context.internal import skill_names
from paicli.llm.messages import Message
from paicli.session.ledger_index import INTERNAL_SOURCES
from paicli.session.ledger_keys import HISTORY_CLEAR_EVENT, REWIND_EVENT
from paicli.session.resume import LedgerEntry, parse_entries
from paicli.session.transcript import starts_turn, typed_input

_IDENTITY = b'"mode":"react","actor":"agent"'
_RESUMED = b'"event":"session_resumed"'
_HEAD = 400
_RUN_TITLES = {"plan": "（以 Plan-and-Execute 模式运行）", "team": "（交给多智能体协作运行）"}
_COMPACTION_TEXT = {
    "manual": "手动压缩",
    "automatic:tool_result_clearing": "自动清理旧工具结果",
    "automatic:full_summary": "自动摘要",
    "automatic:session_memory": "会话记忆摘要",
}


@dataclass
class Exported:
    text: str
    turns: int
    messages: int
    marks: int


def _relevant(lines: Iterable[bytes]) -> Iterator[LedgerEntry]:
    for line in lines:
        head = line[:_HEAD]
        if _IDENTITY in head or _RESUMED in head:
            entries, _ = parse_entries([line], first_line=None)
            yield from entries


def ledger_markdown(path: Path, session_id: str, model: str, when: datetime) -> Exported:
    with open(path, "rb") as handle:
        return conversation_from(_relevant(handle), session_id, model, when)


def conversation_from(
    entries: Iterable[LedgerEntry], session_id: str, model: str, when: datetime
) -> Exported:
    header = (
        f"# paicli 对话记录\n\n- 会话: {session_id}\n- 模型: {model}\n"
        f"- 导出时间: {when.strftime('%Y-%m-%d %H:%M:%S')}\n"
        "- 内容: 会话记录里的全部对话（含已压缩和已回退的部分），不含程序注入的内部内容\n"
    )
    parts = [header]
    turns = messages = marks = 0
    compacted = False
    for entry in entries:
        mark = _mark(entry, compacted)
        if mark is not None:
            compacted = entry.event == "compaction"
            parts.append(mark)
            marks += 1
            continue
        block = _message_block(entry)
        if block is None:
            continue
        compacted = False
        parts.append(block)
        messages += 1
        turns += starts_turn(entry)
    return Exported("\n".join(parts).rstrip() + "\n", turns, messages, marks)


def _mark(entry: LedgerEntry, after_compaction: bool) -> str | None:
    metadata = entry.metadata
    if entry.event == "compaction":
        if after_compaction:
            return None  # the steps of one compaction get one mark
        what = _COMPACTION_TEXT.get(entry.source, "压缩")
        tokens = ""
        before, after = metadata.get("beforeTokens"), metadata.get("afterTokens")
        if isinstance(before, int) and isinstance(after, int):
            tokens = f"，{before:,} -> {after:,} tokens"
        return f"> 📦 **此处发生了上下文压缩**（{what}{tokens}）：上面的对话在模型的上下文里已被摘要或清理，这里保留原文。\n"
    if entry.event == HISTORY_CLEAR_EVENT:
        return "> 🗑️ **/clear**：对话历史在此清空，下面是之后的对话。\n"
    if entry.event == REWIND_EVENT:
        turn = metadata.get("turn")
        where = f"第 {turn} 轮之前" if isinstance(turn, int) else "更早的一条消息之前"
        return f"> ⏪ **/rewind**：对话在此回到{where}；上面被撤回的对话仍保留在这份记录里。\n"
    if entry.event == "session_resumed":
        return "> ▶️ 会话在此处被恢复（/resume 或 -c），继续写入同一个会话。\n"
    return None


def _message_block(entry: LedgerEntry) -> str | None:
    message = entry.message
    if message is None or message.role == "system":
        return None
    if message.role == "user":
        return _user_block(entry, message)
    if message.role == "tool":
        body = strip_boundary(message.content or "")
        return f"### 🔧 工具结果\n\n{fenced(body)}\n"
    if message.role == "assistant":
        return _assistant_block(message)
    return None


def _user_block(entry: LedgerEntry, message: Message) -> str | None:
    if entry.source == "skill_injection":
        names = "、".join(skill_names(message)) or "Skill"
        return f"*（加载了 Skill：{names}）*\n"
    if entry.source in INTERNAL_SOURCES or not starts_turn(entry):
        return None  # reminders, budget instructions, workspace notes: the program's, not the user's
    mode = entry.metadata.get("runMode")
    run = _RUN_TITLES.get(mode, "") if isinstance(mode, str) else ""
    return f"## 👤 用户\n\n{typed_input(entry)}\n" + (f"\n*{run}*\n" if run else "")


def _assistant_block(message: Message) -> str:
    lines = ["## 🤖 助手\n"]
    text = (message.content or "").strip()
    if text:
        lines.append(text)
    for call in message.tool_calls:
        lines.append(f"\n**调用工具** `{call.name}`\n\n{fenced(_pretty(call.arguments), 'json')}")
    return "\n".join(lines) + "\n"


def _pretty(arguments: str) -> str:
    try:
        return json.dumps(json.loads(arguments), ensure_ascii=False, indent=2)
    except ValueError:
        return arguments


def fenced(text: str, language: str = "") -> str:
    longest = 2
    run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    fence = "`" * (longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def export_ledger(
    path: Path,
    args: str,
    *,
    home: Path,
    project_root: Path,
    session_id: str,
    model: str,
    redact: Callable[[str], str],
    now: Callable[[], datetime] = datetime.now,
) -> CommandReply:
    """`/export [FILE]`: the whole conversation from the ledger, redacted, to FILE or the exports folder."""
    from paicli.cli.session_commands import export_target, write_export

    when = now()
    try:
        exported = ledger_markdown(path, session_id, model, when)
    except OSError as error:
        return CommandReply(f"❌ 无法读取会话记录: {error.strerror or error}", ok=False)
    if not exported.messages:
        return CommandReply("📭 当前对话还没有任何消息，没有可导出的内容（没有写入文件）。")
    target = export_target(args, home, project_root, when)
    failed = write_export(target, redact(exported.text), home)
    if failed is not None:
        return failed
    marks = f"，{exported.marks} 处压缩/清空/回退标记" if exported.marks else ""
    return CommandReply(
        f"✅ 对话记录已导出: {target}\n   共 {exported.turns} 轮对话、{exported.messages} 条消息{marks}"
        "（/export --view 导出模型此刻看到的上下文）"
    )
