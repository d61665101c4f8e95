"""Command files (issue 42): `commands/NAME.md` become `/NAME [args]` with `$ARGUMENTS`, front matter for the
description, listed in /help and completion; never shadowing a built-in; a project's only when trusted."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from paicli.cli.command_files import load_command_files, parse_command_file, with_command_files
from paicli.cli.command_table import BUILTIN
from paicli.cli.repl_complete import ReplCompleter


def _write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text, encoding="utf-8")


def test_front_matter_gives_the_description_and_arguments_replace_the_placeholder() -> None:
    item = parse_command_file("review", "---\ndescription: 审查改动\n---\n请审查 $ARGUMENTS 的改动", "用户")
    assert item is not None and item.description == "审查改动"
    assert item.prompt("src/app.py") == "请审查 src/app.py 的改动"
    plain = parse_command_file("plain", "# 跑测试\n运行全部测试", "用户")
    assert plain is not None and plain.description == "跑测试"
    assert plain.prompt("只跑 unit") == "# 跑测试\n运行全部测试\n\n只跑 unit"
    assert parse_command_file("empty", "---\ndescription: x\n---\n", "用户") is None


def test_files_join_help_and_completion_but_never_shadow_a_builtin(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    _write(home / "commands", "review.md", "---\ndescription: 审查改动\n---\n审查 $ARGUMENTS")
    _write(home / "commands", "clear.md", "清掉一切")
    _write(home / "commands", "quit.md", "alias of exit")
    _write(home / "commands", "Bad Name.md", "ignored")
    root.mkdir()
    table, skipped = with_command_files(BUILTIN, load_command_files(home, root, trusted=True))
    assert sorted(skipped) == ["clear", "quit"]
    assert table.find("clear") is BUILTIN.find("clear")
    assert "/review [<参数>]" in table.help_text() and "审查改动（用户命令文件）" in table.help_text()
    parsed = table.parse("/review src/a.py")
    assert (parsed.kind, parsed.name, parsed.args) == ("command", "review", "src/a.py")
    offered = [
        c.text
        for c in ReplCompleter(tmp_path, table=table).get_completions(Document("/rev"), CompleteEvent())
    ]
    assert any(text.startswith("/review") or text.startswith("review") for text in offered), offered


def test_a_project_file_applies_only_in_a_trusted_folder_and_a_user_file_wins(tmp_path: Path) -> None:
    home, root = tmp_path / "home", tmp_path / "repo"
    _write(home / "commands", "deploy.md", "USER-DEPLOY")
    _write(root / ".paicli" / "commands", "deploy.md", "PROJECT-DEPLOY")
    _write(root / ".paicli" / "commands", "lint.md", "PROJECT-LINT")
    assert [item.name for item in load_command_files(home, root, trusted=False)] == ["deploy"]
    trusted = {item.name: item for item in load_command_files(home, root, trusted=True)}
    assert trusted["deploy"].body == "USER-DEPLOY" and trusted["lint"].source == "项目"
