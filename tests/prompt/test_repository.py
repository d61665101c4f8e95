from __future__ import annotations

from pathlib import Path

import pytest

from paicli.prompt.repository import PromptNotFoundError, PromptRepository, load_bundled

OWNED = [
    "base.md",
    "tool-availability.md",
    "personalities/calm.md",
    "modes/agent.md",
    "modes/plan.md",
    "modes/planner.md",
    "modes/team-planner.md",
    "modes/team-worker.md",
    "modes/team-reviewer.md",
    "approvals/suggest.md",
    "approvals/auto.md",
    "approvals/never.md",
    "context/context-management.md",
    "handoff.md",
]


@pytest.mark.parametrize("rel", ["/etc/passwd", "../secrets.md", "modes/../../x.md", ""])
def test_paths_outside_the_prompt_folders_are_rejected(tmp_path: Path, rel: str) -> None:
    with pytest.raises(ValueError):
        PromptRepository(tmp_path, tmp_path / "home").load(rel)


def test_missing_prompt_raises_not_found(tmp_path: Path) -> None:
    with pytest.raises(PromptNotFoundError, match=r"prompts/modes/nope\.md"):
        PromptRepository(tmp_path, tmp_path / "home").load("modes/nope.md")


@pytest.mark.parametrize("rel", OWNED)
def test_every_bundled_prompt_is_package_data_with_a_heading(rel: str) -> None:
    text = load_bundled(rel)
    assert text is not None and text.startswith("## ")


def test_overrides_are_reread_on_each_load(tmp_path: Path) -> None:
    repo = PromptRepository(tmp_path, tmp_path / "home")
    target = tmp_path / ".paicli" / "prompts" / "handoff.md"
    target.parent.mkdir(parents=True)
    target.write_text("## Handoff\n\n一", encoding="utf-8")
    assert repo.load("handoff.md").endswith("一")
    target.write_text("## Handoff\n\n二", encoding="utf-8")
    assert repo.load("handoff.md").endswith("二")
    target.unlink()
    assert repo.load("handoff.md") == load_bundled("handoff.md")


def test_user_override_is_read_from_paicli_home(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / "prompts" / "approvals").mkdir(parents=True)
    (home / "prompts" / "approvals" / "suggest.md").write_text("## Approval Mode\n\n自定义", encoding="utf-8")
    assert PromptRepository(tmp_path, home).load("approvals/suggest.md").endswith("自定义")


def test_unreadable_override_is_a_clear_configuration_error(tmp_path: Path) -> None:
    from paicli.config.env import ConfigError

    target = tmp_path / ".paicli" / "prompts" / "base.md"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"## Language\n\xff\xfe not utf-8\n")
    with pytest.raises(ConfigError, match=r"base\.md.*UTF-8"):
        PromptRepository(tmp_path, tmp_path / "home").load("base.md")
    target.write_text("## Language\n\n中文", encoding="utf-8")
    assert PromptRepository(tmp_path, tmp_path / "home").load("base.md").endswith("中文")
