"""Parser contract, ported from the reference's CliCommandParserTest rows for the commands paicli has."""

from __future__ import annotations

import pytest

from paicli.cli.command_table import BUILTIN, COMMANDS
from paicli.cli.commands import cell_width, mask_secrets

parse, find, command_list = BUILTIN.parse, BUILTIN.find, BUILTIN.command_list
help_text, unknown_reply = BUILTIN.help_text, BUILTIN.unknown_reply


@pytest.mark.parametrize(
    ("line", "name", "args"),
    [
        ("/plan", "plan", ""),
        ("/plan 重构登录模块", "plan", "重构登录模块"),
        ("/team", "team", ""),
        ("/team 写一个爬虫", "team", "写一个爬虫"),
        ("/init", "init", ""),
        ("/init --force", "init", "--force"),
        ("/model deepseek-flash", "model", "deepseek-flash"),
        ("/model glm/glm-5.1", "model", "glm/glm-5.1"),
        ("/model", "model", ""),
        ("/clear", "clear", ""),
        ("clear", "clear", ""),
        ("/compact", "compact", ""),
        ("/compact 保留接口设计", "compact", "保留接口设计"),
        ("/history clear", "history", "clear"),
        ("/exit", "exit", ""),
        ("/quit", "exit", ""),
        ("exit", "exit", ""),
        ("quit", "exit", ""),
        ("/memory", "memory", ""),
        ("/memory clear", "memory", "clear"),
        ("/memory list", "memory", "list"),
        ("/memory search Chrome 登录态", "memory", "search Chrome 登录态"),
        ("/memory delete fact-abcd1234", "memory", "delete fact-abcd1234"),
        ("/memory verify", "memory", "verify"),
        ("/memory verify fact-abcd1234", "memory", "verify fact-abcd1234"),
        ("/memory replace fact-1 项目使用 Java 21", "memory", "replace fact-1 项目使用 Java 21"),
        ("/mem list", "memory", "list"),
        ("/save", "save", ""),
        ("/save 这个项目使用Java 17", "save", "这个项目使用Java 17"),
        ("/save --force 默认用中文回答", "save", "--force 默认用中文回答"),
        ("/hitl on", "hitl", "on"),
        ("/hitl default", "hitl", "default"),
        ("/hitl", "hitl", ""),
        ("/mode", "mode", ""),
        ("/mode plan", "mode", "plan"),
        ("/policy", "policy", ""),
        ("/cancel", "cancel", ""),
        ("cancel", "cancel", ""),
        ("/context", "context", ""),
        ("/ctx", "context", ""),
        ("/resume", "resume", ""),
        ("/resume 2", "resume", "2"),
        ("/help", "help", ""),
        ("/snapshot", "snapshot", ""),
        ("/snapshot status", "snapshot", "status"),
        ("/snapshot clean", "snapshot", "clean"),
        ("/restore 3", "restore", "3"),
        ("/restore", "restore", ""),
        ("/undo", "undo", ""),
    ],
)
def test_recognised_commands(line: str, name: str, args: str) -> None:
    parsed = parse(line)
    assert (parsed.kind, parsed.name, parsed.args) == ("command", name, args)


@pytest.mark.parametrize(
    "line",
    [
        "/unknown",
        "/hitl off",
        "/memory verifyall",
        "/memory list extra",
        "/memory frobnicate",
        "/mcp frobnicate x",
        "/mcp restart",
        "/browser frobnicate",
        "/wechat",
        "/task frobnicate",
        "/snapshot gc",
        "/restore latest",
        "/undo 2",
        "/better-harness",
        "/skill bogus",
        "/skill show",
        "/skill on a b",
        "/skill list all",
        "/audit abc",
        "/clear now",
        "/exit please",
        "/init --fast",
        "/history",
        "/planx do it",
        "/",
    ],
)
def test_unknown_commands(line: str) -> None:
    parsed = parse(line)
    assert parsed.kind == "unknown"
    assert parsed.args == line.strip()


@pytest.mark.parametrize(
    "line",
    [
        "修复登录 bug",
        "exit the loop in main.py",
        "please clear the cache",
        "  hello  ",
        "/usr/bin/python3 报错了",
        "/src/app.py 第 3 行为什么报错",
        "//TODO 是谁写的",
    ],
)
def test_plain_text_is_a_task(line: str) -> None:
    parsed = parse(line)
    assert parsed.kind == "none"
    assert parsed.args == line.strip()


def test_blank_line_is_an_empty_task() -> None:
    assert parse("   ") == parse("") and parse("").args == ""


def test_command_words_are_case_insensitive_and_input_is_trimmed() -> None:
    assert parse("  /PLAN  Fix It  ").name == "plan"
    assert parse("  /PLAN  Fix It  ").args == "Fix It"
    assert parse("EXIT").name == "exit"
    assert parse("/Memory LIST").args == "LIST"
    assert parse("/HITL ON").kind == "command"


def test_arguments_may_follow_a_tab_or_newline() -> None:
    assert parse("/plan\tstep one").args == "step one"
    assert parse("/team 第一行\n第二行").args == "第一行\n第二行"


def test_every_table_entry_is_reachable_by_its_words() -> None:
    for spec in COMMANDS:
        for word in spec.words:
            assert find(word.upper()) is spec
            assert spec.description and spec.usage.startswith("/")


def test_unknown_reply_lists_every_command() -> None:
    reply = unknown_reply(" /nope ")
    assert reply.splitlines()[0] == "❌ 没有这个命令: /nope"
    assert "可用命令：" in reply
    for spec in COMMANDS:
        assert f"   {spec.usage}" in reply
        assert spec.description in reply


def test_a_known_command_with_wrong_arguments_gets_its_own_usage() -> None:
    for line, usage in (
        ("/hitl off", "/hitl [on|default]"),
        ("/HISTORY", "/history clear"),
        ("/memory verifyall", "/memory [<子命令>]"),
        ("/ctx 1", "/context"),
    ):
        assert parse(line).kind == "unknown"  # the parser contract stays: these are unknown inputs
        reply = unknown_reply(line)
        lines = reply.splitlines()
        spec = find(line.split()[0][1:])
        assert spec is not None
        assert (
            len(lines) == 2 + len(spec.forms)
            and line in lines[0]
            and lines[1].startswith(f"用法: {usage} - ")
        )
        assert lines[2:] == [f"   /{spec.name} {form.args} - {form.description}" for form in spec.forms]
        assert "可用命令：" not in reply


def test_help_lists_commands_aligned_by_terminal_cells() -> None:
    text = help_text()
    assert command_list() in text
    columns = {cell_width(line.split(" - ")[0]) for line in command_list().splitlines()}
    assert len(columns) == 1


def test_mask_secrets_hides_keys_and_tokens() -> None:
    masked = mask_secrets("/config provider glm --api-key sk-secret --model m token=abc&x=1")
    assert "sk-secret" not in masked and "abc" not in masked
    assert "--api-key ***" in masked and "token=***" in masked and "--model m" in masked


@pytest.mark.parametrize(
    ("line", "name", "args"),
    [
        ("/skill", "skill", ""),
        ("/skill list", "skill", "list"),
        ("/SKILL reload", "skill", "reload"),
        ("/skill show review-change", "skill", "show review-change"),
        ("/skill on pdf", "skill", "on pdf"),
        ("/skill off pdf", "skill", "off pdf"),
        ("/config", "config", ""),
        ("/audit", "audit", ""),
        ("/audit 20", "audit", "20"),
        ("/export", "export", ""),
        ("/export notes/chat.md", "export", "notes/chat.md"),
    ],
)
def test_skill_config_audit_export_commands(line: str, name: str, args: str) -> None:
    parsed = parse(line)
    assert (parsed.kind, parsed.name, parsed.args) == ("command", name, args)
