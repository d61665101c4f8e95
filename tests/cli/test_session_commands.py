"""/skill, /config, /audit and /export handlers over real catalogs, settings, audit files and histories."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from paicli.cli.session_commands import (
    audit_command,
    config_report,
    conversation_markdown,
    export_command,
    skill_command,
)
from paicli.config.env import EnvLookup
from paicli.config.settings import load_settings
from paicli.config.sources import ConfigSources
from paicli.llm.messages import Message, ToolCall
from paicli.tools.audit import AuditLog
from tests.tools.skill_helpers import catalog, dirs, write_skill


def test_skill_list_show_on_off(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "review", "审查改动", body="# Review\n看 diff")
    write_skill(d.project, "deploy", "部署")
    made = catalog(tmp_path)
    listing = skill_command(made, "list").text
    assert "已启用 2/2" in listing and "[项目·不可信] 部署" in listing and "[用户] 审查改动" in listing
    assert skill_command(made, "").text == listing
    shown = skill_command(made, "show review").text
    assert "来源：user" in shown and str(d.user / "review") in shown and shown.endswith("# Review\n看 diff")
    off = skill_command(made, "off deploy")
    assert off.ok and "已停用 Skill deploy（1/2 skills）" in off.text and "缓存" in off.text
    assert "⛔ deploy" in skill_command(made, "list").text
    same = skill_command(made, "off deploy")
    assert same.ok and "本来就是停用状态" in same.text
    missing = skill_command(made, "on nope")
    assert not missing.ok and "review" in missing.text
    assert not skill_command(made, "frobnicate").ok


def test_skill_reload_reports_changes_and_warnings(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "review", "审查改动")
    made = catalog(tmp_path)
    unchanged = skill_command(made, "reload").text
    assert unchanged.startswith("🔄 已重新扫描 skill 目录") and "没有变化" in unchanged
    write_skill(d.user, "new", "新增")
    (d.user / "bad").mkdir()
    (d.user / "bad" / "SKILL.md").write_text("nothing", encoding="utf-8")
    changed = skill_command(made, "reload").text
    assert "共 2 个 Skill，已启用 2 个" in changed and str(d.user / "bad" / "SKILL.md") in changed
    assert "下一次模型调用生效" in changed


def test_skill_list_without_skills_says_where_to_put_them(tmp_path: Path) -> None:
    assert "$PAICLI_HOME/skills" in skill_command(catalog(tmp_path), "list").text


def test_config_shows_sources_and_masks_secrets(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".env").write_text(
        "PAICLI_CONTEXT_WINDOW=64000\nSERPAPI_KEY=serp-secret-abcdef\n", encoding="utf-8"
    )
    env = EnvLookup(
        environ={
            "HOME": str(tmp_path),
            "PAICLI_HOME": str(tmp_path / ".paicli"),
            "DEEPSEEK_API_KEY": "sk-deepseek-secret-9876",
            "PAICLI_TOOL_OFFLOAD_ENABLED": "false",
        },
        cwd=project,
    )
    settings = load_settings(env, cwd=project)
    text = config_report(settings, ConfigSources.parse(env), ["PAICLI_TOOL_OFFLOAD_ENABLED"])
    assert "sk-deepseek-secret-9876" not in text and "serp-secret-abcdef" not in text
    assert "sk-***9876 · 环境变量 DEEPSEEK_API_KEY" in text
    assert f"64,000 · PAICLI_CONTEXT_WINDOW（{project / '.env'}）" in text
    assert "deepseek-flash · 默认值 / 命令行" in text
    assert "PAICLI_TOOL_OFFLOAD_ENABLED = false · 环境变量" in text
    assert f"SERPAPI_KEY = ser***cdef · {project / '.env'}" in text


def test_audit_shows_recent_records_and_rejects_bad_counts(tmp_path: Path) -> None:
    log = AuditLog(tmp_path / "audit")
    for i in range(3):
        log.record("execute_command", f'{{"command": "echo {i}"}}', "executed", True)
    log.record("write_file", '{"path": "a"}', "denied", False)
    reply = audit_command(log, "2")
    assert reply.ok and "最近 2 条" in reply.text
    assert "write_file [denied]" in reply.text and "echo 2" in reply.text and "echo 1" not in reply.text
    assert str(tmp_path / "audit") in reply.text
    assert not audit_command(log, "0").ok and not audit_command(log, "101").ok
    assert "最近 4 条" in audit_command(log, "").text


def test_export_writes_markdown_with_tool_calls_and_safe_fences(tmp_path: Path) -> None:
    history = [
        Message.system("系统提示不导出"),
        Message.user("看看 a.py"),
        Message.assistant("先读文件", (ToolCall("c1", "read_file", '{"path": "a.py"}'),)),
        Message.tool("c1", "```python\nprint(1)\n```"),
        Message.user("[PAICLI_SKILL_INJECTION]\n## 已加载 Skill：review（来源：user）\n正文"),
        Message.assistant("完成了"),
    ]
    when = datetime(2026, 9, 23, 8, 30, 5, tzinfo=timezone.utc)
    reply = export_command(
        history,
        "",
        home=tmp_path / "home",
        project_root=tmp_path,
        session_id="s-1",
        model="m",
        now=lambda: when,
    )
    path = tmp_path / "home" / "exports" / "session-2026-09-23_08-30-05.md"
    assert reply.ok and str(path) in reply.text and "共 5 条消息" in reply.text
    text = path.read_text(encoding="utf-8")
    assert "系统提示不导出" not in text and "- 会话: s-1" in text
    assert "## 👤 用户\n\n看看 a.py" in text and "`read_file`" in text
    assert "````\n```python\nprint(1)\n```\n````" in text
    assert "## 🧩 Skill 注入：review" in text and text.rstrip().endswith("完成了")
    relative = export_command(
        history, "out/x.md", home=tmp_path, project_root=tmp_path, session_id="s", model="m"
    )
    assert relative.ok and (tmp_path / "out" / "x.md").read_text(encoding="utf-8").startswith(
        "# paicli 对话记录"
    )


def test_export_failure_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    reply = export_command(
        [Message.user("hi")],
        "file/inside.md",
        home=tmp_path,
        project_root=tmp_path,
        session_id="s",
        model="m",
    )
    assert not reply.ok and "导出失败" in reply.text


def test_markdown_of_empty_conversation_has_only_the_header() -> None:
    text = conversation_markdown([], "s", "m", datetime(2026, 1, 1))
    assert text.startswith("# paicli 对话记录") and "##" not in text


def test_banner_shows_enabled_and_total_skills() -> None:
    from paicli.cli.backend import BannerInfo
    from paicli.cli.repl_prompt import banner_lines

    info = BannerInfo("1.0", "m", "p", 128_000, "s", "/proj", "none", skills="2/3 skills")
    assert any("2/3 skills" in text for text, _ in banner_lines(info))
    bare = BannerInfo("1.0", "m", "p", 128_000, "s", "/proj", "none")
    assert not any("skills" in text for text, _ in banner_lines(bare))
