"""Choosing an earlier session to resume: the numbered list, a number / id / id prefix, or a search."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import Console

from paicli.cli.backend import SessionSummary
from paicli.cli.render import say, shorten

PICK_QUESTION = "输入编号、会话 id 或搜索词恢复（all 显示全部，直接回车取消）："
PICK_HINT = "用 /resume <编号|会话 id|搜索词> 恢复其中一个（/resume all 显示全部）。"


def search(sessions: list[SessionSummary], query: str) -> list[SessionSummary]:
    words = query.lower().split()
    return [
        s for s in sessions if all(w in f"{s.title} {s.first_input} {s.session_id}".lower() for w in words)
    ]


def format_sessions(sessions: list[SessionSummary], now_ms: int | None = None) -> str:
    from paicli.session.catalog import relative_time

    now = now_ms if now_ms is not None else int(time.time() * 1000)
    hidden = sum(1 for item in sessions if item.hidden)
    lines = ["🗂️ 本项目的历史会话（最近活动在前）："]
    for number, item in enumerate(sessions, start=1):
        when = relative_time(item.updated_at_ms or item.started_at_ms, now)
        first = f"【{shorten(item.title, 30)}】" if item.title else ""
        first += shorten(item.first_input, 48 - (len(first) if first else 0)) or (
            "" if first else "（无输入）"
        )
        lines.append(f"  {number:>2}. {when:<8} {first}  · {item.turns} 轮 · {item.model}")
        lines.append(f"      {item.session_id}")
    if hidden:
        lines.append(f"   （其中 {hidden} 个是空的或只有一轮且没有得到回答）")
    return "\n".join(lines)


def pick_session(sessions: list[SessionSummary], choice: str) -> str | None:
    """A list number (1 = newest), a full session id, or a unique id prefix."""
    choice = choice.strip()
    if choice.isdigit() and 1 <= int(choice) <= len(sessions):
        return sessions[int(choice) - 1].session_id
    exact = [item.session_id for item in sessions if item.session_id == choice]
    if exact:
        return exact[0]
    prefixed = [
        item.session_id
        for item in sessions
        if choice.startswith("session-") and item.session_id.startswith(choice)
    ]
    return prefixed[0] if len(prefixed) == 1 else None


def choose_session(
    list_sessions: Callable[[bool], list[SessionSummary]],
    console: Console,
    ask: Callable[[str], str | None] | None,
    args: str,
) -> str | None:
    """`/resume [all | number | id | words]`: the session to resume, asking until one is chosen (`all` lists the
    hidden ones too, words narrow the list); None once it has said why there is none. Without `ask` (piped
    input, where the next line is the next input) a list that needs a choice is shown with how to choose."""
    show_all = args.lower() in ("all", "--all")
    sessions = list_sessions(show_all)
    if not sessions:
        say(console, "📭 本项目还没有可以恢复的历史会话。")
        return None
    choice = "" if show_all else args
    while True:
        if not choice:
            say(console, format_sessions(sessions))
            if ask is None:
                say(console, PICK_HINT, "dim")
                return None
            choice = (ask(PICK_QUESTION) or "").strip()
            if not choice:
                say(console, "已取消恢复。", "yellow")
                return None
        if choice.lower() in ("all", "--all") and not show_all:
            sessions, choice, show_all = list_sessions(True), "", True
            continue
        session_id = pick_session(sessions, choice)
        if session_id is not None:
            return session_id
        matches = search(sessions, choice)
        if not matches:
            say(console, f"❌ 没有找到会话: {choice}（可用 /resume 查看列表）", "red")
            return None
        if len(matches) == 1:
            return matches[0].session_id
        say(console, f"🔎 有 {len(matches)} 个会话包含“{choice}”：")
        sessions, choice = matches, ""
