"""/save and /memory argument rules and replies (spec 10.3; MemoryCommandArgsTest)."""

from __future__ import annotations

from datetime import timedelta, timezone
from pathlib import Path

import pytest

from paicli.config.run_values import MemoryValues
from paicli.memory.commands import (
    CLEARED,
    DELETE_HINT,
    NO_MATCH,
    REPLACE_HINT,
    SEARCH_HINT,
    VERIFY_HINT,
    MemoryCommand,
    SaveArgs,
    format_memory_entries,
    not_found,
    parse_memory_args,
    parse_save_args,
    run_memory_command,
    run_save,
    short_project,
)
from paicli.memory.manager import MemoryManager
from tests.memory.helpers import CLOCK, NOW, entry, env, memory


@pytest.mark.parametrize(
    "text",
    [
        "--global --force 默认中文",
        "--force --global 默认中文",
        "--FORCE --Global 默认中文",
        "/save --force --global 默认中文",
    ],
)
def test_parses_save_flags_in_any_order(text: str) -> None:
    assert parse_save_args(text) == SaveArgs("global", True, "默认中文")


def test_plain_save_defaults_to_project_without_force() -> None:
    assert parse_save_args("这个项目使用Java 17") == SaveArgs("project", False, "这个项目使用Java 17")
    assert parse_save_args("/save   这个项目  使用Java 17 ") == SaveArgs(
        "project", False, "这个项目  使用Java 17"
    )
    assert parse_save_args("--global --project 事实") == SaveArgs("project", False, "事实")


def test_unknown_flag_is_kept_as_fact_text() -> None:
    assert parse_save_args("--verbose 输出") == SaveArgs("project", False, "--verbose 输出")
    assert parse_save_args("--global --verbose 输出") == SaveArgs("global", False, "--verbose 输出")
    assert parse_save_args("事实 --force") == SaveArgs("project", False, "事实 --force")
    assert parse_save_args("--global") == SaveArgs("global", False, "")
    assert parse_save_args("") == SaveArgs("project", False, "")


def test_parses_memory_subcommands() -> None:
    assert parse_memory_args("") == MemoryCommand("status")
    assert parse_memory_args("/mem") == MemoryCommand("status")
    assert parse_memory_args("LIST") == MemoryCommand("list")
    assert parse_memory_args("/memory clear") == MemoryCommand("clear")
    assert parse_memory_args("search Chrome 登录态") == MemoryCommand("search", "Chrome 登录态")
    assert parse_memory_args("delete fact-1234") == MemoryCommand("delete", "fact-1234")
    assert parse_memory_args("verify  fact-1234 ") == MemoryCommand("verify", "fact-1234")


def test_parses_replace_id_and_fact() -> None:
    assert parse_memory_args("replace fact-1234 项目使用 Java 21") == MemoryCommand(
        "replace", "fact-1234", "项目使用 Java 21"
    )
    assert parse_memory_args("replace fact-1234") == MemoryCommand("invalid", message=REPLACE_HINT)
    assert parse_memory_args("replace") == MemoryCommand("invalid", message=REPLACE_HINT)


def test_missing_arguments_and_unknown_subcommands_are_invalid() -> None:
    assert parse_memory_args("search").message == SEARCH_HINT
    assert parse_memory_args("delete").message == DELETE_HINT
    assert parse_memory_args("verify").message == VERIFY_HINT
    unknown = parse_memory_args("verifyall")
    assert (
        unknown.action == "invalid" and "verifyall" in unknown.message and "/memory list" in unknown.message
    )


def _manager(tmp_path: Path) -> MemoryManager:
    root = tmp_path / "work" / "team" / "repo"
    root.mkdir(parents=True)
    return MemoryManager(memory(tmp_path / "mem"), root, MemoryValues.parse(env()), clock=CLOCK)


def test_save_replies(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    assert run_save(mgr, parse_save_args("")).text.startswith("❌ /save 后面要写上要记住的内容")
    stored = run_save(mgr, parse_save_args("项目使用 Java 17")).text
    assert stored.startswith("💾") and "项目使用 Java 17" in stored and "project" in stored
    corrected = run_save(mgr, parse_save_args("项目使用 Java 21")).text
    assert "取代" in corrected and "项目使用 Java 17" in corrected and "/memory history" in corrected
    run_save(mgr, parse_save_args("每次发布前跑 3 遍回归测试"))
    conflict = run_save(mgr, parse_save_args("每次发布前跑 5 遍回归测试")).text
    assert "冲突" in conflict and "/save --force" in conflict and "/memory conflicts" in conflict
    assert run_save(mgr, parse_save_args("--force 每次发布前跑 4 遍回归测试")).text.startswith("💾")
    assert "已经有" in run_save(mgr, parse_save_args("项目使用java21。")).text
    assert run_save(mgr, parse_save_args("--global 默认中文回答")).text.startswith("💾")
    assert len(mgr.list_all()) == 6


def test_memory_command_replies(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    first = mgr.store_fact("用户偏好使用Java开发").entry
    assert first is not None
    run = lambda text: run_memory_command(mgr, parse_memory_args(text)).text  # noqa: E731
    status = run_memory_command(mgr, parse_memory_args(""), "window: 128000", "Token 统计: 调用 1 次").text
    assert status.startswith("📋 记忆系统状态：\n上下文策略: window: 128000")
    assert f"当前项目作用域: {mgr.project_key}" in status and "/memory replace" in status
    assert run("list").startswith("📋 长期记忆列表：\n- " + first.id)
    assert first.id in run("search 偏好") and run("search kotlin") == NO_MATCH
    assert run("verify fact-nope") == not_found("fact-nope") == "📭 长期记忆里没有这个 id: fact-nope"
    assert run(f"verify {first.id}") == f"✅ 核实时间已更新为现在: {first.id} 用户偏好使用Java开发"
    assert "已替换" in run(f"replace {first.id} 用户偏好使用Kotlin开发")
    assert "没有找到" in run(f"replace {first.id} 又一个事实")  # superseded: history, not a target
    assert run("replace fact-1234") == REPLACE_HINT
    assert run("delete fact-nope") == not_found("fact-nope")
    assert run(f"delete {first.id}").startswith("🗑️")
    only = mgr.list_all()[0]
    assert run(f"delete {only.id}") == f"🗑️ 这条长期记忆已删除: {only.id}"
    mgr.store_fact("一条将被清空的事实")
    assert run("clear") == CLEARED and mgr.list_all() == []


UTC_PLUS_8 = timezone(timedelta(hours=8))


def test_listing_shows_local_time_to_the_second() -> None:
    """Issue 44 item 7: no ISO `T…Z` and no microseconds in /memory list and /memory search."""
    precise = entry(
        "精确到微秒的事实", "global", entry_id="fact-0000000a", when=NOW + timedelta(microseconds=656277)
    )
    text = format_memory_entries("📋 长期记忆列表", [precise], NOW, 30, UTC_PLUS_8)
    head = text.splitlines()[1]
    assert head == "- fact-0000000a [global] · 写入 2026-09-23 08:00:00 · 最后核实 2026-09-23 08:00:00"
    assert "656" not in text and "T00:00" not in text
    old = entry(
        "旧事实",
        "global",
        entry_id="fact-0000000b",
        supersededBy="fact-0000000a",
        supersededAt="2026-09-23T01:02:03.656277Z",
    )
    listed = format_memory_entries("t", [old], NOW, 30, UTC_PLUS_8)
    assert "已被 fact-0000000a 取代（2026-09-23 09:02:03）" in listed


def test_format_memory_entries_layout() -> None:
    plain = entry("项目使用 Java 17", "project", "/home/u/work/team/repo", entry_id="fact-00000001", when=NOW)
    stale = entry(
        "自动提取的事实",
        "project",
        "/r",
        entry_id="fact-00000002",
        when=NOW - timedelta(days=90),
        verification_pending="true",
    )
    external = entry(
        "外部事实",
        "global",
        entry_id="fact-00000003",
        when=NOW,
        external_context="true",
        external_context_sources="web_fetch,mcp__docs__search",
    )
    text = format_memory_entries("📋 长期记忆列表", [plain, stale, external], NOW, 30, UTC_PLUS_8)
    assert text.splitlines() == [
        "📋 长期记忆列表：",
        "- fact-00000001 [project] …/work/team/repo · 写入 2026-09-23 08:00:00 · 最后核实 2026-09-23 08:00:00",
        "  项目使用 Java 17",
        "- fact-00000002 [project] /r · 写入 2026-06-25 08:00:00 · 尚未经用户核实 · ⚠️ 可能已过时 · 🔎 自动提取，待核实",
        "  自动提取的事实",
        "- fact-00000003 [global] · 写入 2026-09-23 08:00:00 · 最后核实 2026-09-23 08:00:00"
        " · 🌐 写入时会话含外部内容(web_fetch,mcp__docs__search)",
        "  外部事实",
    ]
    assert "可能已过时" not in format_memory_entries("t", [stale], NOW, 0)
    assert format_memory_entries("t", [], NOW, 30) == NO_MATCH
    assert short_project("/a/b") == "/a/b"


REFERENCE_SENTENCES = (  # the reference's own wording (spec 10.3): paicli says the same in its own words
    "请提供搜索关键词",
    "请提供要删除的记忆 id",
    "请提供要核实的记忆 id",
    "请提供要保存的内容",
    "已刷新核实时间",
    "未找到长期记忆",
    "长期记忆已清空",
    "已删除长期记忆",
    "没有匹配的长期记忆",
)


def test_replies_are_in_our_own_words(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    entry_id = mgr.store_fact("用户偏好使用Java开发").entry.id  # type: ignore[union-attr]
    commands = [
        "",
        "list",
        "search",
        "search kotlin",
        "delete",
        "delete fact-x",
        "verify",
        "verify fact-x",
        f"verify {entry_id}",
        "replace x",
        "frobnicate",
        f"delete {entry_id}",
        "clear",
    ]
    replies = [run_memory_command(mgr, parse_memory_args(c)).text for c in commands]
    replies.append(run_save(mgr, parse_save_args("--global")).text)
    for reply in replies:
        assert reply.strip()
        for sentence in REFERENCE_SENTENCES:
            assert sentence not in reply, (sentence, reply)


def test_a_corrupt_file_is_reported_once_with_its_backup(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    kept = mgr.store_fact("用户偏好使用Java开发").entry
    assert kept is not None
    mgr.store.path.write_text('[ {"id" : "fact-broken"', encoding="utf-8")
    listing = run_memory_command(mgr, parse_memory_args("list")).text
    backups = list(mgr.store.path.parent.glob("long_term_memory.json.corrupt-*"))
    assert len(backups) == 1
    assert listing.startswith("⚠️ ") and str(backups[0]) in listing.splitlines()[0]
    assert kept.id in listing  # the in-memory entries are still there
    assert not run_memory_command(mgr, parse_memory_args("list")).text.startswith("⚠️")  # said once
    saved = run_save(mgr, parse_save_args("新的一条事实")).text
    assert saved.startswith("💾")
    assert {e.id for e in memory(tmp_path / "mem").get_all()} >= {kept.id}


def test_every_reply_says_whether_the_command_did_what_was_asked(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    save = lambda text: run_save(mgr, parse_save_args(text))  # noqa: E731
    run = lambda text: run_memory_command(mgr, parse_memory_args(text))  # noqa: E731
    assert not save("").ok and save("项目使用 Java 17").ok
    save("每次发布前跑 3 遍回归测试")
    assert save("每次发布前跑 5 遍回归测试").ok  # a pending conflict is an answer, not a failure
    assert save("项目使用 Java 17").ok  # so is a duplicate
    assert not save("x" * 100_000).ok
    assert run("list").ok and run("conflicts").ok and run("search java").ok
    for wrong in ("frobnicate", "delete", "verify", "history", "search", "replace fact-1234"):
        assert not run(wrong).ok, wrong


def test_a_failure_behind_a_store_warning_is_still_a_failure(tmp_path: Path) -> None:
    folder = tmp_path / "mem"
    (folder / "long_term_memory.json").mkdir(parents=True)  # reading fails with an OS error, every time
    mgr = MemoryManager(memory(folder), tmp_path, MemoryValues.parse(env()), clock=CLOCK)
    listing = run_memory_command(mgr, parse_memory_args("list"))
    assert listing.text.startswith("⚠️ ") and listing.ok
    reply = run_memory_command(mgr, parse_memory_args("frobnicate"))
    assert reply.text.startswith("⚠️ ") and "❌ 未知的 /memory 子命令" in reply.text
    assert not reply.ok


def test_an_unreadable_file_is_not_shown_as_an_empty_memory(tmp_path: Path) -> None:
    folder = tmp_path / "mem"
    (folder / "long_term_memory.json").mkdir(parents=True)  # reading fails with an OS error
    mgr = MemoryManager(memory(folder), tmp_path, MemoryValues.parse(env()), clock=CLOCK)
    listing = run_memory_command(mgr, parse_memory_args("list")).text
    assert listing.startswith("⚠️ 长期记忆文件现在读不了") and "无法读取" in listing
    saved = run_save(mgr, parse_save_args("新的一条事实")).text
    assert saved.startswith("❌") and saved.count("无法读取") == 1


def test_a_huge_stale_period_does_not_break_the_listing() -> None:
    old = entry("很久以前的事实", "global", entry_id="fact-00000009", when=NOW - timedelta(days=900))
    text = format_memory_entries("📋 长期记忆列表", [old], NOW, 99_999_999_999)
    assert "fact-00000009" in text and "可能已过时" not in text


def test_status_counts_current_entries_and_names_the_superseded_apart(tmp_path: Path) -> None:
    mgr = _manager(tmp_path)
    first = mgr.store_fact("用户偏好使用Java开发").entry
    assert first is not None
    assert mgr.status_summary().startswith("长期记忆: 1条 / ") and "被取代" not in mgr.status_summary()
    replaced = mgr.replace_fact(first.id, "用户偏好使用Kotlin开发").entry
    assert replaced is not None and len(mgr.list_all()) == 2  # the old version is kept as history
    line = mgr.status_summary()
    tokens = replaced.token_count
    assert line == (
        f"长期记忆: 1条 / {tokens} tokens (事实: 1, 摘要: 0, 工具结果: 0)；"
        "另有 1 条被取代的旧版本（/memory list --all）"
    )
    status = run_memory_command(mgr, parse_memory_args("")).text
    assert line in status.splitlines()  # /memory says the same
