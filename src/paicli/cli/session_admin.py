"""`/fork`, `/rename`, `/sessions [clean [天数]]` and the start-up retention of session ledgers (issue 43).

`/fork` copies this session's ledger into a new session and carries on there (the old one is kept as it is,
resumable); `/rename` names the session (an event: the ledger stays append-only); `/sessions clean` deletes
sessions whose last activity is older than the session retention setting (or the days given), which start-up
also does when the setting is there. Every answer is a CommandReply, never an exception.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from paicli.cli.backend import CommandReply
from paicli.cli.session_retention import retention_days
from paicli.config import knobs
from paicli.context.offload import OFFLOAD_DIR
from paicli.session.retention import RENAME_EVENT, Expired, clean_title, delete, expired

if TYPE_CHECKING:
    from paicli.cli.app_backend import AppBackend

RENAME_USAGE = "用法: /rename <名称>，例如 /rename 重构登录模块（/resume 列表里显示，也能按名称搜索）"
CLEAN_USAGE = (
    f"用法: /sessions clean <天数>，删除超过这么多天没有活动的会话；或设置 {knobs.SESSION_RETENTION_DAYS.key}"
)


def fork(session: AppBackend) -> CommandReply:
    """A new session that starts as a copy of this one; the conversation continues there."""
    from paicli import __version__
    from paicli.session.opener import LedgerOpener
    from paicli.session.ownership import fork_session

    ledger = session.parts.ledger
    if ledger.path is None:
        return CommandReply("⚠️ 会话账本不可用，无法分出新会话。", ok=False)
    if not session.has_conversation():
        return CommandReply("📭 当前对话还是空的，不需要分出新会话。")
    old = ledger.session_id
    try:
        path = fork_session(ledger.path, reason="slash_fork")
    except OSError as error:
        return CommandReply(f"❌ 无法分出新会话: {error.strerror or error}", ok=False)
    settings = session.settings
    opener = LedgerOpener(session.parts.keys(settings.api_key), session.background.notice)
    forked = opener.existing(path)
    forked.claim()
    forked.mark_resumed(
        {"model": settings.model, "provider": settings.provider, "paicliVersion": __version__}
    )
    session.continue_in(forked)
    return CommandReply(
        f"🔀 已从这里分出新会话 {forked.session_id}，接下来的对话写入新会话。\n"
        f"   原会话 {old} 保持不变，可用 /resume {old} 回到它。"
    )


def rename(session: AppBackend, args: str) -> CommandReply:
    from paicli.session.catalog import read_session_info

    ledger = session.parts.ledger
    if ledger.path is None:
        return CommandReply("⚠️ 会话账本不可用，无法命名会话。", ok=False)
    title = clean_title(args)
    if not title:
        info = read_session_info(ledger.path)
        current = f"当前会话的名称: {info.title}" if info is not None and info.title else "当前会话还没有名称"
        return CommandReply(f"{current}\n{RENAME_USAGE}")
    ledger.append_event(RENAME_EVENT, "react", "cli", "slash_rename", {"title": title})
    return CommandReply(f"✏️ 会话 {ledger.session_id} 已命名为「{title}」")


def sessions_list(session: AppBackend) -> CommandReply:
    from paicli.cli.session_picker import format_sessions

    found = session.core.restore.sessions(True)
    days = retention_days(session.parts)
    keep = f"保留 {days} 天（{knobs.SESSION_RETENTION_DAYS.key}）" if days else "一直保留（未设置保留天数）"
    current = f"当前会话: {session.parts.ledger.session_id}"
    if not found:
        return CommandReply(f"📭 本项目没有其他历史会话。\n   {current} · 会话记录{keep}")
    return CommandReply(
        f"{format_sessions(found)}\n   {current} · 会话记录{keep}；/sessions clean 清理过期会话"
    )


def expired_sessions(session: AppBackend, args: str) -> tuple[list[Expired], int] | CommandReply:
    """The sessions `/sessions clean [天数]` would delete, and the days; or why there are none."""
    raw = args.strip()
    if raw and not raw.isdigit():
        return CommandReply(f"❌ 天数应是正整数，收到: {raw}\n{CLEAN_USAGE}", ok=False)
    days = int(raw) if raw else retention_days(session.parts)
    if not days:
        return CommandReply(f"ℹ️ 没有设置保留天数，没有删除任何会话。\n{CLEAN_USAGE}")
    now = int(time.time() * 1000)
    found = expired(session.settings.paicli_home, days, now, keep=[session.parts.ledger.session_id])
    if not found:
        return CommandReply(f"✅ 没有超过 {days} 天没有活动的会话，什么也没删除。")
    return found, days


def clean(session: AppBackend, found: list[Expired], days: int) -> CommandReply:
    count, freed = delete(found, session.settings.project_root / OFFLOAD_DIR)
    return CommandReply(
        f"🧹 已删除 {count} 个超过 {days} 天没有活动的会话，释放 {freed / 1024 / 1024:.1f} MB"
    )
