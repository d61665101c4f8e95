"""Project-supplied files are read only when their real path is a regular file inside the project (issue 26)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paicli.config.projectfile import contained_file, read_project_text
from paicli.memory.project import ProjectMemoryLoader, survey_project
from paicli.prompt.repository import PromptRepository
from paicli.tools.skills import SkillCatalog, SkillDirs

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- outside-secret-b3BlbnNzaA"
HAS_PROC = Path("/proc/self/environ").exists()


@pytest.fixture
def layout(tmp_path: Path) -> tuple[Path, Path, Path]:
    project, outside, home = tmp_path / "project", tmp_path / "outside", tmp_path / "home"
    for folder in (project / ".paicli" / "prompts", project / ".paicli" / "skills", outside, home):
        folder.mkdir(parents=True)
    (outside / "id_ed25519").write_text(SECRET + "\n", encoding="utf-8")
    return project, outside, home


def test_reader_refuses_symlinks_out_proc_dev_and_non_files(layout: tuple[Path, Path, Path]) -> None:
    project, outside, _ = layout
    (project / "inside.md").write_text("ok", encoding="utf-8")
    (project / "link-in.md").symlink_to(project / "inside.md")
    (project / "link-out.md").symlink_to(outside / "id_ed25519")
    (project / "tty").symlink_to("/dev/null")
    (project / "dir").mkdir()
    os.mkfifo(project / "fifo")
    assert read_project_text(project / "inside.md", project) == "ok"
    assert read_project_text(project / "link-in.md", project) == "ok"
    for name in ("link-out.md", "tty", "dir", "fifo", "missing"):
        assert read_project_text(project / name, project) is None, name
    if HAS_PROC:
        (project / "env").symlink_to("/proc/self/environ")
        assert read_project_text(project / "env", project) is None
        assert contained_file(Path("/proc/self/environ"), Path("/")) is None  # even with the root at /


def test_pai_md_symlinks_and_includes_out_of_the_project_read_as_absent(
    layout: tuple[Path, Path, Path],
) -> None:
    project, outside, home = layout
    (project / "PAI.md").symlink_to(outside / "id_ed25519")
    (project / "docs").symlink_to(outside)
    (project / "PAI.local.md").write_text("本地说明\n@docs/id_ed25519\n", encoding="utf-8")
    if HAS_PROC:
        (project / ".paicli" / "PAI.md").symlink_to("/proc/self/environ")
    text = ProjectMemoryLoader(project, home).load()
    assert "本地说明" in text and SECRET not in text
    assert "HOME=" not in text and "PATH=" not in text


def test_init_survey_does_not_follow_a_readme_out(layout: tuple[Path, Path, Path]) -> None:
    project, outside, _ = layout
    (project / "README.md").symlink_to(outside / "id_ed25519")
    (project / "Makefile").symlink_to(outside / "id_ed25519")
    assert SECRET not in survey_project(project)


def test_prompt_overrides_need_trust_and_a_real_path_inside(layout: tuple[Path, Path, Path]) -> None:
    project, outside, home = layout
    prompts = project / ".paicli" / "prompts"
    (prompts / "handoff.md").symlink_to(outside / "id_ed25519")
    (prompts / "tool-availability.md").write_text("项目覆盖", encoding="utf-8")
    trusted = PromptRepository(project, home, project_trusted=True)
    assert SECRET not in trusted.load("handoff.md")
    assert trusted.load("tool-availability.md") == "项目覆盖"
    untrusted = PromptRepository(project, home, project_trusted=False)
    assert untrusted.load("tool-availability.md") != "项目覆盖"
    (home / "prompts").mkdir()
    (home / "prompts" / "tool-availability.md").write_text("用户覆盖", encoding="utf-8")
    assert untrusted.load("tool-availability.md") == "用户覆盖"  # the user's own overrides always apply


def _skill(folder: Path, name: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: d\n---\n\nbody\n", encoding="utf-8")


def _catalog(project: Path, home: Path, trusted: bool) -> SkillCatalog:
    dirs = SkillDirs(
        home / "builtin", home / "skills", project / ".paicli" / "skills", home / "s.json", trusted
    )
    catalog = SkillCatalog(dirs)
    catalog.reload()
    return catalog


def test_project_skills_need_trust_and_never_load_through_a_symlink_out(
    layout: tuple[Path, Path, Path],
) -> None:
    project, outside, home = layout
    skills = project / ".paicli" / "skills"
    _skill(skills / "good", "good")
    _skill(outside / "evil", "evil")
    (skills / "evil").symlink_to(outside / "evil")
    (skills / "leak").mkdir()
    (skills / "leak" / "SKILL.md").symlink_to(outside / "id_ed25519")
    catalog = _catalog(project, home, trusted=True)
    assert [s.name for s in catalog.all()] == ["good"]
    assert {p.path.parent.name for p in catalog.problems} == {"evil", "leak"}
    assert all(SECRET not in p.warning() for p in catalog.problems)
    assert _catalog(project, home, trusted=False).all() == []


def test_a_symlinked_skills_folder_is_not_followed(layout: tuple[Path, Path, Path]) -> None:
    project, outside, home = layout
    (project / ".paicli" / "skills").rmdir()
    _skill(outside / "skills" / "evil", "evil")
    (project / ".paicli" / "skills").symlink_to(outside / "skills")
    assert _catalog(project, home, trusted=True).all() == []
