"""Builders for the skill tests: SKILL.md folders in temp source directories and a catalog over them."""

from __future__ import annotations

from pathlib import Path

from paicli.tools.skills import SkillCatalog, SkillDirs

INDEX_NOTE = "需要时用 load_skill 加载。"


def write_skill(
    root: Path, folder: str, description: str, body: str = "正文", name: str | None = None
) -> Path:
    directory = root / folder
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "SKILL.md").write_text(
        f"---\nname: {name or folder}\ndescription: {description}\n---\n\n{body}\n", encoding="utf-8"
    )
    return directory


def dirs(tmp: Path) -> SkillDirs:
    return SkillDirs(
        tmp / "builtin",
        tmp / "home" / "skills",
        tmp / "project" / ".paicli" / "skills",
        tmp / "home" / "skills.json",
    )


def catalog(tmp: Path) -> SkillCatalog:
    made = SkillCatalog(dirs(tmp), lambda: INDEX_NOTE)
    made.reload()
    return made
