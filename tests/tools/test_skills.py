"""Skill discovery, front matter, enabled state and the system-prompt index (spec 7.5)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.tools.skills import (
    INDEX_HEADING,
    MAX_INDEX_CHARS,
    SkillFormatError,
    builtin_skills_dir,
    parse_skill_text,
    scan_source,
)
from tests.tools.skill_helpers import INDEX_NOTE, catalog, dirs, write_skill


def test_front_matter_in_the_common_format_is_read(tmp_path: Path) -> None:
    text = (
        "---\nname: pdf\ndescription: >\n  Extract text and tables\n  from PDF files.\nlicense: MIT\n"
        "metadata:\n  version: 2\nallowed-tools: [Read, Bash]\n---\n# PDF\n\nStep one.\n"
    )
    skill = parse_skill_text(text, tmp_path, "user")
    assert (skill.name, skill.description) == ("pdf", "Extract text and tables from PDF files.")
    assert skill.body == "# PDF\n\nStep one."
    assert skill.trusted


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("# no front matter\n", "缺少开头的 --- front matter"),
        ("---\ndescription: d\n---\nbody", "缺少 name 字段"),
        ("---\nname: x\n---\nbody", "缺少 description 字段"),
        ("---\nname: 'a b/c'\ndescription: d\n---\n", "name 'a b/c' 无效"),
        ("---\nname: [x\ndescription: d\n---\n", "不是合法的 YAML"),
        ("---\n- just\n- a list\n---\n", "映射"),
    ],
)
def test_malformed_front_matter_names_the_reason(tmp_path: Path, text: str, reason: str) -> None:
    with pytest.raises(SkillFormatError, match=reason.replace("[", r"\[")):
        parse_skill_text(text, tmp_path, "user")


def test_malformed_skill_is_skipped_with_a_warning_naming_the_file(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    write_skill(root, "good", "works")
    broken = root / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("no front matter at all", encoding="utf-8")
    binary = root / "binary"
    binary.mkdir()
    (binary / "SKILL.md").write_bytes(b"---\nname: b\n\xff\xfe")
    skills, problems = scan_source(root, "user")
    assert [s.name for s in skills] == ["good"]
    warnings = sorted(p.warning() for p in problems)
    assert str(binary / "SKILL.md") in warnings[0] and "不是 UTF-8" in warnings[0]
    assert str(broken / "SKILL.md") in warnings[1] and "front matter" in warnings[1]


def test_later_sources_override_earlier_and_project_skills_are_untrusted(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.builtin, "review", "builtin review")
    write_skill(d.builtin, "only-builtin", "b")
    write_skill(d.user, "review", "user review")
    write_skill(d.project, "deploy", "project deploy")
    made = catalog(tmp_path)
    by_name = {s.name: s for s in made.all()}
    assert by_name["review"].source == "user" and by_name["review"].description == "user review"
    assert by_name["only-builtin"].source == "builtin"
    assert by_name["deploy"].source == "project" and not by_name["deploy"].trusted
    index = made.index_text()
    assert "- `deploy`（项目 Skill，不可信）：project deploy" in index
    assert "- `review`：user review" in index


def test_index_has_heading_note_and_limits(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    for i in range(25):
        write_skill(d.user, f"s{i:02d}", "描" * 600)
    index = catalog(tmp_path).index_text()
    assert index.startswith(f"{INDEX_HEADING}\n\n{INDEX_NOTE}\n")
    assert len(index) <= MAX_INDEX_CHARS
    lines = [line for line in index.splitlines() if line.startswith("- `")]
    assert 1 <= len(lines) <= 20
    assert all(len(line.split("：", 1)[1]) <= 500 for line in lines)
    assert "未列出" in index.splitlines()[-1]


def test_description_is_cut_to_500_code_points(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "long", "😀" * 700)
    line = next(x for x in catalog(tmp_path).index_text().splitlines() if x.startswith("- `long`"))
    assert len(line.split("：", 1)[1]) == 500


def test_at_most_twenty_skills_are_listed(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    for i in range(23):
        write_skill(d.user, f"s{i:02d}", "short")
    index = catalog(tmp_path).index_text()
    assert len([x for x in index.splitlines() if x.startswith("- `")]) == 20
    assert "另有 3 个 Skill 未列出" in index


def test_enabled_state_persists_in_skills_json_and_changes_the_index(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "a", "alpha")
    write_skill(d.user, "b", "beta")
    made = catalog(tmp_path)
    before = made.index_text()
    assert made.summary() == "2/2 skills"
    assert made.set_enabled("a", False) is True
    assert made.set_enabled("a", False) is False
    assert json.loads(d.state_file.read_text(encoding="utf-8")) == {"disabled": ["a"]}
    assert "`a`" not in made.index_text() and made.index_text() != before
    assert made.summary() == "1/2 skills"
    again = catalog(tmp_path)
    assert not again.is_enabled("a") and again.is_enabled("b")
    again.set_enabled("a", True)
    assert catalog(tmp_path).index_text() == before


def test_broken_state_file_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "a", "alpha")
    d.state_file.parent.mkdir(parents=True, exist_ok=True)
    d.state_file.write_text("{oops", encoding="utf-8")
    made = catalog(tmp_path)
    assert made.is_enabled("a")
    assert any(str(d.state_file) in p.warning() for p in made.problems)


def test_index_is_stable_until_reload_even_when_files_change(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "a", "alpha")
    made = catalog(tmp_path)
    first = made.index_text()
    write_skill(d.user, "a", "alpha changed")
    write_skill(d.user, "new", "brand new")
    assert made.index_text() == first
    made.reload()
    assert "brand new" in made.index_text() and "alpha changed" in made.index_text()


def test_no_enabled_skills_means_no_index(tmp_path: Path) -> None:
    d = dirs(tmp_path)
    write_skill(d.user, "a", "alpha")
    made = catalog(tmp_path)
    made.set_enabled("a", False)
    assert made.index_text() == ""
    assert made.summary() == "0/1 skills"


def test_builtin_skills_ship_with_the_package(tmp_path: Path) -> None:
    skills, problems = scan_source(builtin_skills_dir(), "builtin")
    assert problems == []
    names = {s.name for s in skills}
    assert {"review-change", "commit-message"} <= names
    assert all(s.description and len(s.body) > 200 for s in skills)


@pytest.mark.parametrize(
    "front",
    [
        "name: tricky\ndescription: 'quoted: with colon'",
        "name: tricky\ndescription: first line\n  continues here",
        "name: tricky\ndescription: |\n  block text",
        'name: "tricky"\ndescription: "a # not a comment"',
    ],
)
def test_plain_and_yaml_front_matter_agree_on_names(tmp_path: Path, front: str) -> None:
    skill = parse_skill_text(f"---\n{front}\n---\nbody", tmp_path, "user")
    assert skill.name == "tricky" and skill.description


def test_plain_front_matter_keeps_yaml_keywords_as_text(tmp_path: Path) -> None:
    skill = parse_skill_text("---\nname: off\ndescription: yes\n---\n", tmp_path, "user")
    assert (skill.name, skill.description) == ("off", "yes")
    fancy = parse_skill_text("---\nname: 'off'\ndescription: >\n  yes\n---\n", tmp_path, "user")
    assert (fancy.name, fancy.description) == ("off", "yes")
