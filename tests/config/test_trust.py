"""Folder trust: what a folder brings, the recorded answers (0600 under the paicli home) and the prompt."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from paicli.cli.trust_prompt import project_trusted
from paicli.config.trust import TRUST_FILE, TrustStore, decide, project_brings, untrusted_line


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".paicli" / "skills" / "deploy").mkdir(parents=True)
    (root / ".paicli" / "skills" / "deploy" / "SKILL.md").write_text(
        "---\nname: deploy\ndescription: d\n---\n"
    )
    (root / ".paicli" / "prompts").mkdir()
    (root / ".paicli" / "prompts" / "base.md").write_text("x")
    (root / ".paicli" / "mcp.json").write_text("{}")
    return root


def test_what_a_folder_brings(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("x")
    (project / ".paicli" / "prompts" / "handoff.md").symlink_to(outside)
    assert [(b.path, b.kind) for b in project_brings(project)] == [
        (".paicli/skills/deploy", "Skill"),
        (".paicli/prompts/base.md", "提示词覆盖"),
        (".paicli/mcp.json", "MCP 服务器配置"),
    ]
    assert project_brings(tmp_path / "empty") == []
    line = untrusted_line(project_brings(project))
    assert "--trust-project" in line and ".paicli/skills/" in line and "\n" not in line


@pytest.mark.parametrize(
    ("brought", "recorded", "flag", "interactive", "expected"),
    [
        (False, None, False, False, "trusted"),
        (True, None, True, False, "trusted"),
        (True, False, True, True, "trusted"),
        (True, True, False, False, "trusted"),
        (True, False, False, True, "untrusted"),
        (True, None, False, True, "ask"),
        (True, None, False, False, "untrusted"),
    ],
)
def test_decision(brought: bool, recorded: bool | None, flag: bool, interactive: bool, expected: str) -> None:
    assert decide(brought, recorded, flag, interactive) == expected


def test_the_repl_asks_once_and_records_the_answer_0600(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "paicli-home"
    asked: list[str] = []
    shown: list[str] = []

    def ask(question: str) -> str:
        asked.append(question)
        return "y\n"

    assert project_trusted(project, home, flag=False, interactive=True, ask=ask, warn=shown.append)
    assert len(asked) == 1 and ".paicli/skills/deploy" in shown[0] and ".paicli/mcp.json" in shown[0]
    assert stat.S_IMODE((home / TRUST_FILE).stat().st_mode) == 0o600
    assert TrustStore(home).recorded(project) is True
    assert project_trusted(project, home, flag=False, interactive=True, ask=ask, warn=shown.append)
    assert len(asked) == 1, "asked a second time"


def test_a_refusal_is_remembered_and_print_runs_get_one_line(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "paicli-home"
    shown: list[str] = []
    assert not project_trusted(
        project, home, flag=False, interactive=True, ask=lambda q: "n", warn=shown.append
    )
    assert TrustStore(home).recorded(project) is False
    assert not project_trusted(
        project, home, flag=False, interactive=True, ask=lambda q: "y", warn=shown.append
    )
    shown.clear()
    other = tmp_path / "paicli-home-2"
    assert not project_trusted(project, other, flag=False, interactive=False, warn=shown.append)
    assert len(shown) == 1 and "--trust-project" in shown[0]
    assert not (other / TRUST_FILE).exists(), "a -p run records nothing"
    assert project_trusted(project, other, flag=True, interactive=False, warn=shown.append)


def test_trust_is_keyed_by_the_real_path(project: Path, tmp_path: Path) -> None:
    home = tmp_path / "paicli-home"
    TrustStore(home).record(project, True)
    alias = tmp_path / "alias"
    alias.symlink_to(project)
    assert TrustStore(home).recorded(alias) is True
    (home / TRUST_FILE).write_text("not json")
    assert TrustStore(home).recorded(project) is None


def test_file_names_with_escape_sequences_are_shown_escaped(tmp_path: Path) -> None:
    from paicli.config.trust import describe_brought

    root = tmp_path / "repo"
    folder = root / ".paicli" / "skills" / "evil\x1b]52;c;aGk=\x07"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("---\nname: e\ndescription: d\n---\n")
    (line,) = describe_brought(project_brings(root))
    assert "\x1b" not in line and "\x07" not in line and "\\x1b]52" in line
