"""/help, completion and the README's command list come from one place, the command table (issue 44 item 8):
/help prints every form of every command, completion offers each form's first word, and the README's
"Slash commands" list names the same commands with the same sub-commands and flags."""

from __future__ import annotations

from pathlib import Path

from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from paicli.cli.command_forms import first_words, matches, parse_usage
from paicli.cli.command_table import BUILTIN
from paicli.cli.repl_complete import ReplCompleter
from paicli.memory.commands import HELP_LINES, MEMORY_FORMS
from tests.cli.command_lines import literal_words, literals, readme_spans, slash_section


def readme_commands() -> dict[str, set[str]]:
    """Command name -> the literal words its README lines use."""
    found: dict[str, set[str]] = {}
    for span in readme_spans(slash_section()):
        head, _, args = span.partition(" ")
        spec = BUILTIN.find(head[1:])
        assert spec is not None, span
        found.setdefault(spec.name, set()).update(literals(args))
    return found


def test_the_readme_lists_the_tables_commands_with_the_same_words() -> None:
    readme = readme_commands()
    table = {spec.name: literal_words(spec) for spec in BUILTIN.visible()}
    assert set(readme) == set(table)
    assert {name: words for name, words in readme.items() if words != table[name]} == {}


def test_help_prints_every_form_of_every_command() -> None:
    text = BUILTIN.help_text()
    for spec in BUILTIN.visible():
        assert f"   {spec.usage} " in text
        for form in spec.forms:
            assert f"     /{spec.name} {form.args} " in text and form.description in text
    for usage in ("/memory list [--all]", "/memory history <id>", "/memory conflicts"):
        assert usage in text
    assert "/save [--global|--project] [--force] <事实>" in text


def test_completion_offers_the_first_word_of_every_form(tmp_path: Path) -> None:
    completer = ReplCompleter(tmp_path)
    for spec in BUILTIN.visible():
        offered = {
            c.text.strip() for c in completer.get_completions(Document(f"/{spec.name} "), CompleteEvent())
        }
        expected = {word for form in spec.forms for word, _ in first_words(form.args)}
        assert expected <= offered, spec.name
        assert offered <= literal_words(spec), spec.name  # nothing offered that help does not show
    subs = [c.text for c in completer.get_completions(Document("/memory h"), CompleteEvent())]
    assert subs == ["history "]  # an argument follows: the space is typed for you
    assert [c.text for c in completer.get_completions(Document("/save --p"), CompleteEvent())] == [
        "--project"
    ]


def test_memory_status_help_uses_the_same_forms() -> None:
    for args, description in MEMORY_FORMS:
        assert any(f"/memory {args}" in line and description in line for line in HELP_LINES)


def test_the_notation() -> None:
    usage = "[--global|--project] [--force] <事实>"
    assert literals(usage) == {"--global", "--project", "--force"}
    assert matches(usage, "--global --force 项目 用 Java 21") and matches(usage, "只有事实")
    assert not matches(usage, "") and not matches("history <id>", "history")
    assert matches("list [--all]", "LIST --all") and not matches("list [--all]", "list extra")
    assert matches("history <id>", "history fact-1") and not matches(
        "replace <id> <新事实>", "replace fact-1"
    )
    assert matches("replace <id> <新事实>", "replace fact-1 项目 改用 Java 21")
    assert matches("(resources|prompts) [<名称>]", "prompts docs") and not matches("(a|b) <x>", "c x")
    assert first_words("history <id>") == [("history", True)]
    assert first_words("list [--all]") == [("list", False)]
    assert parse_usage("[<编号>|<会话 id>|all]") is not None


def test_a_memory_subcommand_outside_its_forms_is_a_usage_error() -> None:
    for line in ("/memory list extra", "/memory conflicts now", "/memory clear all", "/memory frobnicate"):
        assert BUILTIN.parse(line).kind == "unknown", line
    for line in (
        "/memory list --all",
        "/memory history fact-1a2b3c4d",
        "/memory conflicts",
        "/memory search",
    ):
        assert BUILTIN.parse(line).kind == "command", line
