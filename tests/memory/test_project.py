"""PAI.md loading (spec 7.3) and /init."""

from __future__ import annotations

from pathlib import Path

from paicli.cancel import Cancelled, CancelToken
from paicli.llm.protocol import LLMError
from paicli.memory.project import (
    BUDGET,
    HEADER,
    TRUNCATION_NOTE,
    ProjectMemoryLoader,
    init_project_memory,
    load_init_prompt,
    parse_init_args,
    run_init,
    survey_project,
    utf16_prefix,
)
from paicli.testing.scripted_llm import ScriptedLLM


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def _setup(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "repo", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return root, home


def test_five_locations_are_concatenated_in_order(tmp_path: Path) -> None:
    root, home = _setup(tmp_path)
    paths = [
        _write(home / "PAI.md", "用户级"),
        _write(root / "PAI.md", "项目级"),
        _write(root / ".paicli" / "PAI.md", "项目 .paicli"),
        _write(root / "PAI.local.md", "本地\n"),
        _write(root / ".paicli" / "PAI.local.md", "本地 .paicli"),
    ]
    expected = HEADER + "".join(
        f"\n\n### {p}\n\n{t}"
        for p, t in zip(paths, ["用户级", "项目级", "项目 .paicli", "本地", "本地 .paicli"], strict=True)
    )
    assert ProjectMemoryLoader(root, home).load() == expected


def test_missing_and_blank_files_are_skipped(tmp_path: Path) -> None:
    root, home = _setup(tmp_path)
    assert ProjectMemoryLoader(root, home).load() == ""
    _write(root / "PAI.md", "  \n")
    _write(root / "PAI.local.md", "只有这个")
    assert ProjectMemoryLoader(root, home).load() == f"{HEADER}\n\n### {root / 'PAI.local.md'}\n\n只有这个"


def test_edits_apply_on_the_next_load(tmp_path: Path) -> None:
    root, home = _setup(tmp_path)
    loader = ProjectMemoryLoader(root, home)
    _write(root / "PAI.md", "第一版")
    assert "第一版" in loader.load()
    _write(root / "PAI.md", "第二版")
    assert "第二版" in loader.load() and "第一版" not in loader.load()


def test_includes_nest_three_levels_relative_to_the_including_file(tmp_path: Path) -> None:
    root, home = _setup(tmp_path)
    _write(root / "PAI.md", "顶层\n@docs/one.md\n尾部")
    _write(root / "docs" / "one.md", "一级\n  @sub/two.md  ")
    _write(root / "docs" / "sub" / "two.md", "二级\n@three.md")
    _write(root / "docs" / "sub" / "three.md", "三级\n@four.md")
    _write(root / "docs" / "sub" / "four.md", "四级")
    text = ProjectMemoryLoader(root, home).load()
    assert "顶层\n一级\n二级\n三级\n@four.md\n尾部" in text
    assert "四级" not in text


def test_includes_cannot_escape_the_root_and_cycles_are_skipped(tmp_path: Path) -> None:
    root, home = _setup(tmp_path)
    _write(tmp_path / "secret.md", "机密")
    (root / "link.md").symlink_to(tmp_path / "secret.md")
    _write(root / "a.md", "A\n@b.md")
    _write(root / "b.md", "B\n@a.md")
    _write(
        root / "PAI.md",
        "@../secret.md\n@/etc/hostname\n@link.md\n@missing.md\n@a.md\n@ has space.md\ntext @a.md",
    )
    text = ProjectMemoryLoader(root, home).load()
    assert "机密" not in text
    assert "@../secret.md\n@/etc/hostname\n@link.md\n@missing.md\nA\nB\n" in text
    assert "text @a.md" in text and "@ has space.md" in text
    assert text.count("\nA\n") == 1 and "\nB\n\n@ has space.md" in text


def test_user_level_includes_resolve_inside_paicli_home(tmp_path: Path) -> None:
    root, home = _setup(tmp_path)
    _write(home / "PAI.md", "@style.md")
    _write(home / "style.md", "用户风格")
    assert "用户风格" in ProjectMemoryLoader(root, home).load()


def test_budget_truncates_with_a_note(tmp_path: Path) -> None:
    root, home = _setup(tmp_path)
    _write(root / "PAI.md", "字" * 30_000)
    text = ProjectMemoryLoader(root, home).load()
    assert text.endswith(TRUNCATION_NOTE)
    assert len(text) == 23_920 + len(TRUNCATION_NOTE)
    _write(root / "PAI.md", "😀" * 13_000)  # astral chars count twice, as in Java
    text = ProjectMemoryLoader(root, home).load()
    assert text.endswith(TRUNCATION_NOTE) and "\ud83d" not in text
    _write(root / "PAI.md", "x" * 100)
    assert len(ProjectMemoryLoader(root, home).load()) < BUDGET


def test_utf16_prefix_never_splits_a_pair() -> None:
    assert (
        utf16_prefix("a😀b", 2) == "a" and utf16_prefix("a😀b", 3) == "a😀" and utf16_prefix("ab", 9) == "ab"
    )


def test_init_prompt_is_package_data_and_survey_is_cheap(tmp_path: Path) -> None:
    root, _ = _setup(tmp_path)
    _write(root / "README.md", "# Demo\n一个示例项目")
    _write(root / "pyproject.toml", '[project]\nname = "demo"')
    _write(root / "src" / "demo" / "deep.py", "DEEP_SECRET = 1")
    (root / "node_modules").mkdir()
    assert "{{survey}}" in load_init_prompt()
    survey = survey_project(root)
    assert (
        "- src/" in survey
        and "- README.md" in survey
        and "一个示例项目" in survey
        and 'name = "demo"' in survey
    )
    assert "DEEP_SECRET" not in survey and "node_modules" not in survey


def test_init_writes_pai_md_from_one_model_call(tmp_path: Path) -> None:
    root, _ = _setup(tmp_path)
    _write(root / "README.md", "# Demo")
    llm = ScriptedLLM(["```markdown\n# 项目概述\n示例\n```"])
    ok, message = init_project_memory(root, llm)
    assert ok and str(root / "PAI.md") in message
    assert (root / "PAI.md").read_text(encoding="utf-8") == "# 项目概述\n示例\n"
    assert llm.calls == 1 and llm.requests[0].tools is None
    assert "# Demo" in (llm.requests[0].messages[-1].content or "")


def test_init_writes_pai_md_with_a_shared_files_mode(tmp_path: Path) -> None:
    """Issue 44 item 9: PAI.md is meant to be committed, so it gets the mode any new file gets here (0644 under
    the usual umask 022), not the 0600 of a temporary file; a regenerated one keeps the mode it had."""
    root, _ = _setup(tmp_path)
    probe = root / "probe.txt"
    probe.write_text("x", encoding="utf-8")
    assert init_project_memory(root, ScriptedLLM(["# 项目概述"]))[0]
    mode = (root / "PAI.md").stat().st_mode & 0o777
    assert mode == probe.stat().st_mode & 0o777
    (root / "PAI.md").chmod(0o640)
    assert init_project_memory(root, ScriptedLLM(["# 新的概述"]), force=True)[0]
    assert (root / "PAI.md").stat().st_mode & 0o777 == 0o640
    assert [p.name for p in root.iterdir() if p.name.endswith(".tmp")] == []


def test_init_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    root, _ = _setup(tmp_path)
    _write(root / "PAI.md", "手写的内容")
    llm = ScriptedLLM(["# 新内容"])
    assert run_init(root, llm, "").text.startswith("ℹ️")
    ok, _ = init_project_memory(root, llm, force=False)
    assert not ok and llm.calls == 0
    assert (root / "PAI.md").read_text(encoding="utf-8") == "手写的内容"
    reply = run_init(root, llm, "--force").text
    assert reply.startswith("✅") and "路径: " in reply and "Project Context" in reply
    assert (root / "PAI.md").read_text(encoding="utf-8") == "# 新内容\n"


def test_init_failures_leave_files_alone(tmp_path: Path) -> None:
    root, _ = _setup(tmp_path)
    failed = run_init(root, ScriptedLLM([LLMError("boom")]), "")
    assert failed.text.startswith("❌") and not failed.ok
    assert not run_init(root, ScriptedLLM([]), "--bogus").ok
    assert run_init(root, ScriptedLLM(["   "]), "").text.startswith("❌")
    assert run_init(root, ScriptedLLM([Cancelled()]), "").text.startswith("❌")
    cancel = CancelToken()
    cancel.cancel()
    llm = ScriptedLLM(["# 不该写入"])
    assert "取消" in run_init(root, llm, "", cancel).text and llm.calls == 0
    assert not (root / "PAI.md").exists()
    assert list(root.iterdir()) == []


def test_init_arguments() -> None:
    assert parse_init_args("") == (False, None)
    assert parse_init_args("/init --FORCE") == (True, None)
    force, error = parse_init_args("--fast")
    assert (
        not force
        and error == "❌ /init 不认识这个参数: --fast\n   写法: /init，或 /init --force 覆盖已有的 PAI.md"
    )
