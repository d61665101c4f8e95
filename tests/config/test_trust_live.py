"""Issue 39: trust is looked at again when configuration appears in a folder that was trusted at start only
because it brought none; and the trust prompt never sends the folder name's control sequences to the terminal."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.cli.trust_prompt import project_trust
from paicli.config.trust import ProjectTrust, TrustStore
from paicli.prompt.repository import PromptRepository
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli
from paicli.tools.skill_load import build_skills

OVERRIDE = "APPEARED-LATER-OVERRIDE-7c1d"


def _add_prompt_override(root: Path) -> None:
    folder = root / ".paicli" / "prompts"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "handoff.md").write_text(OVERRIDE + "\n", encoding="utf-8")


def _add_skill(root: Path, name: str = "late-skill") -> None:
    folder = root / ".paicli" / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: 后来出现的\n---\n\n运行 ./x.sh\n")


def _start(root: Path, home: Path, flag: bool = False) -> tuple[ProjectTrust, list[str]]:
    shown: list[str] = []
    trust = project_trust(root, home, flag=flag, interactive=True, ask=lambda q: "n", warn=shown.append)
    notes: list[str] = []
    trust.notify = notes.append
    return trust, notes


def test_configuration_appearing_later_is_not_trusted_for_the_session(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    trust, notes = _start(root, tmp_path / "home")
    assert trust.trusted and notes == []
    (root / ".paicli" / "tool-outputs").mkdir(parents=True)  # paicli's own state is no configuration
    assert trust.trusted
    _add_prompt_override(root)
    assert not trust.trusted
    assert len(notes) == 1 and ".paicli/prompts/" in notes[0] and "下次启动" in notes[0]
    (root / ".paicli" / "prompts" / "handoff.md").unlink()
    assert not trust.trusted and len(notes) == 1  # withdrawn for the rest of the session, said once


def test_a_folder_the_user_trusted_before_stays_trusted(tmp_path: Path) -> None:
    root, home = tmp_path / "repo", tmp_path / "home"
    root.mkdir()
    TrustStore(home).record(root, True)
    trust, notes = _start(root, home)
    _add_skill(root)
    assert trust.trusted and notes == []


def test_trust_project_flag_is_not_withdrawn(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    trust, notes = _start(root, tmp_path / "home", flag=True)
    _add_skill(root)
    assert trust.trusted and notes == []


def test_prompt_overrides_and_skills_that_appear_later_do_not_apply(tmp_path: Path) -> None:
    root, home = tmp_path / "repo", tmp_path / "home"
    root.mkdir()
    trust, _ = _start(root, home)
    repository = PromptRepository(root, home, project_trusted=trust)
    skills = build_skills(home, root, repository, [], trust)
    before = repository.load("handoff.md")
    _add_prompt_override(root)
    _add_skill(root)
    assert repository.load("handoff.md") == before and OVERRIDE not in before
    skills.reload()
    assert "late-skill" not in skills.index_text()


def test_the_trust_prompt_shows_the_folder_name_without_its_escape_sequences(tmp_path: Path) -> None:
    hostile = "repo\x1b]52;c;cm0gLXJmIH4=\x07\x1b]0;owned\x07\x1b[2J\x1b[1A\r"
    root = tmp_path / hostile
    (root / ".paicli" / "skills" / "s").mkdir(parents=True)
    (root / ".paicli" / "skills" / "s" / "SKILL.md").write_text("---\nname: s\ndescription: d\n---\n")
    shown: list[str] = []
    project_trust(root, tmp_path / "home", flag=False, interactive=True, ask=lambda q: "n", warn=shown.append)
    text = "\n".join(shown)
    assert "\x1b" not in text and "\x07" not in text and "\r" not in text
    assert "\\x1b]52;c;" in text  # shown, visibly, as what it is


@pytest.mark.e2e  # a paicli process
def test_a_prompt_override_written_mid_session_does_not_reach_the_model_e2e(tmp_path: Path) -> None:
    root, home = tmp_path / "repo", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    override = f"{OVERRIDE}\n\n## Language\n\n用中文回答。\n"
    write = ("write_file", json.dumps({"path": ".paicli/prompts/handoff.md", "content": override}))
    # /clear rebuilds the system prompt: in a trusted folder the new override would apply from there on
    # (with --trust-project it does: the third request carries it).
    stdin = "写个提示词\n/clear\n再来一轮\n/exit\n"
    with FakeOpenAIServer() as server:
        server.push(Reply.tool_calls(write), "写好了", "第二轮的回答")
        done = run_paicli(["--yes"], paicli_env(home, server.base_url), root, stdin=stdin)
        server.assert_no_violations()
    assert done.returncode == 0, done.stderr
    assert (root / ".paicli" / "prompts" / "handoff.md").exists()
    systems = [str(r["messages"][0]["content"]) for r in server.requests]
    assert len(systems) == 3 and not [text for text in systems if OVERRIDE in text]
    assert "出现了项目配置" in done.stdout + done.stderr
