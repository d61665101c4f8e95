"""/save and /memory: pure argument parsing plus the reply text the REPL prints (spec 10.3)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, tzinfo
from typing import Literal

from paicli.memory import evolve
from paicli.memory.dedup import is_stale
from paicli.memory.entry import MemoryEntry, Scope
from paicli.memory.manager import EMPTY_FACT_TEXT, MemoryManager
from paicli.memory.provenance import MODEL_MARK, MODEL_MARK_CONFIRMED, is_model_saved
from paicli.memory.results import MemoryReply
from paicli.memory.store import MemoryStoreError
from paicli.timefmt import local_time, local_time_text

MemoryAction = Literal[
    "status",
    "list",
    "list_all",
    "history",
    "conflicts",
    "search",
    "delete",
    "verify",
    "replace",
    "clear",
    "invalid",
]

SEARCH_HINT = "❌ /memory search 后面要写上关键词，比如 /memory search 登录态"
DELETE_HINT = (
    "❌ /memory delete 后面要写上记忆 id（/memory list 可以查到），比如 /memory delete fact-1a2b3c4d"
)
VERIFY_HINT = (
    "❌ /memory verify 后面要写上记忆 id（/memory list 可以查到），比如 /memory verify fact-1a2b3c4d"
)
HISTORY_HINT = (
    "❌ /memory history 后面要写上记忆 id（/memory list --all 可以查到），比如 /memory history fact-1a2b3c4d"
)
NO_CONFLICTS = "✅ 没有待确认的记忆冲突。"
REPLACE_HINT = (
    "❌ 写法: /memory replace <记忆 id> <新的事实>，比如 /memory replace fact-1a2b3c4d 项目改用 Java 21"
)
NO_MATCH = "📭 没有找到符合条件的长期记忆。"
CLEARED = "🧹 全部长期记忆已删除"
_FLAGS = {"--global": "global", "--project": "project", "--force": "force"}
_SUBCOMMANDS = ("list", "history", "conflicts", "search", "delete", "verify", "replace", "clear")
# The advertised forms of /memory and /save (after the command word; cli/command_forms.py notation): the one
# source of /help, completion, the argument check of the command table and the help in /memory's status.
MEMORY_FORMS: tuple[tuple[str, str], ...] = (
    ("list [--all]", "列出当前有效的长期记忆（含 id、作用域和核实状态）；--all 连同被取代的旧版本"),
    ("history <id>", "查看一条记忆的前后版本"),
    ("conflicts", "查看待确认的记忆冲突"),
    ("search <关键词>", "搜索当前项目和全局的记忆"),
    ("delete <id>", "删除一条记忆"),
    ("verify <id>", "确认记忆仍然准确（待确认的冲突以它为准）"),
    ("replace <id> <新事实>", "用新事实替换一条旧记忆"),
    ("clear", "清空全部长期记忆（会先确认）"),
    ("files", "列出系统提示里的说明文件（PAI.md、AGENTS.md、CLAUDE.md）及各自的 token 数"),
    ("edit [<文件>]", "用 $EDITOR 编辑一个说明文件，保存后重新加载"),
)
SAVE_FORMS: tuple[tuple[str, str], ...] = (
    ("<事实>", "保存一条事实（默认只对当前项目生效）"),
    ("--global <事实>", "保存为对所有项目生效的全局记忆"),
    ("--project <事实>", "明确保存为本项目的记忆"),
    ("--force <事实>", "与已有记忆冲突时仍然两条都保留"),
)


def _help_lines() -> tuple[str, ...]:
    from unicodedata import east_asian_width

    rows = [(f"/memory {a}", d) for a, d in MEMORY_FORMS] + [(f"/save {a}", d) for a, d in SAVE_FORMS]
    cells = [sum(2 if east_asian_width(c) in "WF" else 1 for c in usage) for usage, _ in rows]
    column = max(cells) + 2
    return tuple(f"   {u}{' ' * (column - w)}{d}" for (u, d), w in zip(rows, cells, strict=True))


HELP_LINES = _help_lines()


@dataclass(frozen=True)
class SaveArgs:
    scope: Scope
    force: bool
    fact: str


@dataclass(frozen=True)
class MemoryCommand:
    action: MemoryAction
    arg: str = ""  # query for search, id for delete/verify/replace
    fact: str = ""  # new fact for replace
    message: str = ""  # the error text for an invalid command


def _strip_command(text: str, *names: str) -> str:
    stripped = text.strip()
    head, _, rest = stripped.partition(" ")
    return rest.strip() if head.lower() in names else stripped


def _split_first(text: str) -> tuple[str, str]:
    parts = text.split(None, 1)
    if not parts:
        return "", ""
    return parts[0], (parts[1].strip() if len(parts) > 1 else "")


def parse_save_args(text: str) -> SaveArgs:
    """Leading --global/--project/--force in any order and case; anything else (even --x) is the fact."""
    rest = _strip_command(text, "/save")
    scope: Scope = "project"
    force = False
    while rest:
        word, remainder = _split_first(rest)
        flag = _FLAGS.get(word.lower())
        if flag is None:
            break
        if flag == "force":
            force = True
        else:
            scope = "global" if flag == "global" else "project"
        rest = remainder
    return SaveArgs(scope, force, rest.strip())


def parse_memory_args(text: str) -> MemoryCommand:
    rest = _strip_command(text, "/memory", "/mem")
    word, payload = _split_first(rest)
    action = word.lower()
    if not action:
        return MemoryCommand("status")
    if action not in _SUBCOMMANDS:
        return MemoryCommand(
            "invalid", message=f"❌ 未知的 /memory 子命令: {word}\n可用写法:\n" + "\n".join(HELP_LINES)
        )
    if action == "list":
        return MemoryCommand("list_all" if payload.lower().startswith("--all") else "list")
    if action in ("clear", "conflicts"):
        return MemoryCommand("clear" if action == "clear" else "conflicts")
    if action == "history":
        entry_id, _ = _split_first(payload)
        return (
            MemoryCommand("history", entry_id) if entry_id else MemoryCommand("invalid", message=HISTORY_HINT)
        )
    if action == "search":
        return MemoryCommand("search", payload) if payload else MemoryCommand("invalid", message=SEARCH_HINT)
    if action == "replace":
        entry_id, fact = _split_first(payload)
        if not entry_id or not fact:
            return MemoryCommand("invalid", message=REPLACE_HINT)
        return MemoryCommand("replace", entry_id, fact)
    entry_id, _ = _split_first(payload)
    if not entry_id:
        return MemoryCommand("invalid", message=DELETE_HINT if action == "delete" else VERIFY_HINT)
    return MemoryCommand("delete" if action == "delete" else "verify", entry_id)


def not_found(entry_id: str) -> str:
    return f"📭 长期记忆里没有这个 id: {entry_id}"


def short_project(path: str) -> str:
    parts = [p for p in path.replace("\\", "/").split("/") if p]
    return path if len(parts) <= 3 else "…/" + "/".join(parts[-3:])


def format_entry(entry: MemoryEntry, now: datetime, days: int, zone: tzinfo | None = None) -> str:
    """`zone`: the zone times are shown in (None: this machine's local time)."""
    head = f"- {entry.id} [{entry.scope}]"
    if entry.scope == "project" and entry.project:
        head += f" {short_project(entry.project)}"
    head += f" · 写入 {local_time(entry.timestamp, zone)}"
    pending = entry.verification_pending
    head += " · 尚未经用户核实" if pending else f" · 最后核实 {local_time(entry.last_verified_at, zone)}"
    if is_stale(entry, now, days):
        head += " · ⚠️ 可能已过时"
    if is_model_saved(entry.metadata):
        head += f" · {MODEL_MARK if pending else MODEL_MARK_CONFIRMED}"
    elif pending:
        head += " · 🔎 自动提取，待核实"
    if entry.external_sources:
        head += f" · 🌐 写入时会话含外部内容({entry.external_sources})"
    return f"{head}{_evolution_marks(entry, zone)}\n  {entry.content}"


def _evolution_marks(entry: MemoryEntry, zone: tzinfo | None) -> str:
    marks = ""
    if evolve.is_superseded(entry):
        when = local_time_text(entry.metadata.get(evolve.SUPERSEDED_AT, ""), zone)
        marks += f" · ⛔ 已被 {entry.metadata[evolve.SUPERSEDED_BY]} 取代（{when}）"
    if evolve.is_conflict_pending(entry):
        marks += f" · ⚠️ 与 {entry.metadata.get(evolve.CONFLICT_WITH, '')} 冲突，待确认"
    count = evolve.confirmations(entry.metadata)
    if count:
        marks += f" · 👍 用户确认过 {count} 次"
    return marks


def format_memory_entries(
    title: str, entries: Sequence[MemoryEntry], now: datetime, days: int, zone: tzinfo | None = None
) -> str:
    if not entries:
        return NO_MATCH
    return f"{title}：\n" + "\n".join(format_entry(entry, now, days, zone) for entry in entries)


def status_text(manager: MemoryManager, profile_summary: str = "", token_usage_line: str = "") -> str:
    lines = ["📋 记忆系统状态：", *manager.status_lines(profile_summary, token_usage_line)]
    lines.append(f"   当前项目作用域: {manager.project_key}")
    lines.append(f"   {manager.evolution_summary()}")
    lines.extend(HELP_LINES)
    return "\n".join(lines)


def run_memory_command(
    manager: MemoryManager, cmd: MemoryCommand, profile_summary: str = "", token_usage_line: str = ""
) -> MemoryReply:
    """The reply for a parsed /memory command. `clear` clears at once: the REPL confirms before calling."""
    try:
        reply = _run(manager, cmd, profile_summary, token_usage_line)
    except MemoryStoreError as exc:
        reply = MemoryReply(f"❌ 长期记忆操作失败，已有记忆没有改动: {exc}", ok=False)
    return _with_store_warnings(manager, reply)


def _with_store_warnings(manager: MemoryManager, reply: MemoryReply, read_errors: bool = True) -> MemoryReply:
    """Read problems the store met (unreadable file, corrupt file backed up) go in front of the reply."""
    warnings = [f"⚠️ {notice}" for notice in manager.store.take_notices()]
    if read_errors and manager.store.last_error:
        warnings.append(f"⚠️ 长期记忆文件现在读不了，下面的结果可能不完整: {manager.store.last_error}")
    return MemoryReply("\n".join([*warnings, reply.text]), reply.ok)


def _run(
    manager: MemoryManager, cmd: MemoryCommand, profile_summary: str, token_usage_line: str
) -> MemoryReply:
    if cmd.action == "invalid":
        return MemoryReply(cmd.message, ok=False)
    if cmd.action == "replace":
        result = manager.replace_fact(cmd.arg, cmd.fact)
        return MemoryReply(result.describe(), ok=not result.failed)
    return MemoryReply(_answer(manager, cmd, profile_summary, token_usage_line))


def _answer(manager: MemoryManager, cmd: MemoryCommand, profile_summary: str, token_usage_line: str) -> str:
    now, days = manager.clock(), manager.values.stale_days
    if cmd.action == "status":
        return status_text(manager, profile_summary, token_usage_line)
    if cmd.action == "list":
        current = [e for e in manager.list_all() if not evolve.is_superseded(e)]
        return format_memory_entries("📋 长期记忆列表", current, now, days)
    if cmd.action == "list_all":
        return format_memory_entries("📋 长期记忆列表（含被取代的旧版本）", manager.list_all(), now, days)
    if cmd.action == "history":
        chain = manager.store.history(cmd.arg)
        if not chain:
            return not_found(cmd.arg)
        return format_memory_entries(f"🕰️ 记忆 {cmd.arg} 的版本历史（从旧到新）", chain, now, days)
    if cmd.action == "conflicts":
        pending = manager.store.conflicts(manager.project_key)
        if not pending:
            return NO_CONFLICTS
        text = format_memory_entries("⚠️ 待确认的记忆冲突", pending, now, days)
        return (
            text + "\n以哪条为准: /memory verify <id>（另一条会标记为被取代）；不要这条: /memory delete <id>"
        )
    if cmd.action == "search":
        return format_memory_entries(f"🔎 长期记忆搜索: {cmd.arg}", manager.search(cmd.arg, 20), now, days)
    if cmd.action == "delete":
        return f"🗑️ 这条长期记忆已删除: {cmd.arg}" if manager.delete(cmd.arg) else not_found(cmd.arg)
    if cmd.action == "verify":
        entry = manager.verify(cmd.arg)
        return f"✅ 核实时间已更新为现在: {entry.id} {entry.content}" if entry else not_found(cmd.arg)
    if cmd.action == "clear":
        manager.clear()
        return CLEARED
    raise ValueError(
        f"no reply for /memory action {cmd.action!r}"
    )  # "invalid" and "replace" are answered above


def run_save(manager: MemoryManager, args: SaveArgs) -> MemoryReply:
    if not args.fact.strip():
        return MemoryReply(f"❌ {EMPTY_FACT_TEXT}", ok=False)
    result = manager.store_fact(args.fact, args.scope, None, args.force)
    # a failed write says why itself
    return _with_store_warnings(
        manager, MemoryReply(result.describe(), ok=not result.failed), read_errors=False
    )
