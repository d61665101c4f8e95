"""AGENTS.md and CLAUDE.md beside PAI.md (issue 42): where they are read from, identical files once, the
untrusted-repository rules, and folder files that join a tool result instead of the system prompt."""

from __future__ import annotations

import json
import os
from pathlib import Path

from paicli.memory.project import ProjectMemoryLoader
from paicli.prompt.instructions import NestedInstructions
from tests.tools.helpers import make_runner, run_one


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_agents_and_claude_files_join_pai_md_and_identical_ones_load_once(tmp_path: Path) -> None:
    root, home = tmp_path / "repo", tmp_path / "home"
    _write(root / "PAI.md", "PAI-RULE")
    _write(root / "AGENTS.md", "AGENTS-RULE")
    _write(root / "CLAUDE.md", "AGENTS-RULE\n")  # a copy kept for the other agent
    home.mkdir()
    text = ProjectMemoryLoader(root, home).load()
    assert text.index("PAI-RULE") < text.index("AGENTS-RULE")
    assert text.count("AGENTS-RULE") == 1 and "CLAUDE.md" not in text


def test_a_symlink_out_of_the_project_reads_as_absent(tmp_path: Path) -> None:
    root, home = tmp_path / "repo", tmp_path / "home"
    secret = _write(tmp_path / "outside" / "id_key", "SECRET-KEY-MATERIAL")
    root.mkdir()
    home.mkdir()
    os.symlink(secret, root / "AGENTS.md")
    _write(root / "CLAUDE.md", "@../outside/id_key\n@docs/more.md")
    _write(root / "docs" / "more.md", "INCLUDED-TEXT")
    text = ProjectMemoryLoader(root, home).load()
    assert "SECRET-KEY-MATERIAL" not in text and "INCLUDED-TEXT" in text


def test_ancestor_files_from_the_repository_root_down(tmp_path: Path) -> None:
    top, home = tmp_path / "mono", tmp_path / "home"
    (top / ".git").mkdir(parents=True)
    home.mkdir()
    _write(top / "AGENTS.md", "TOP-RULE")
    _write(top / "services" / "CLAUDE.md", "SERVICES-RULE")
    _write(top / "services" / "api" / "AGENTS.md", "API-RULE")
    _write(tmp_path / "AGENTS.md", "ABOVE-THE-REPOSITORY")
    text = ProjectMemoryLoader(top / "services" / "api", home).load()
    assert text.index("TOP-RULE") < text.index("SERVICES-RULE") < text.index("API-RULE")
    assert "ABOVE-THE-REPOSITORY" not in text


def test_a_folder_file_is_handed_out_once_and_never_repeats_a_loaded_one(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _write(root / "AGENTS.md", "ROOT-RULE")
    _write(root / "web" / "AGENTS.md", "WEB-RULE")
    _write(root / "web" / "ui" / "CLAUDE.md", "ROOT-RULE")  # same as the root's: already in the prompt
    _write(root / "web" / "ui" / "a.ts", "x")
    loader = ProjectMemoryLoader(root, tmp_path / "home")
    nested = NestedInstructions(root, loader.loaded_keys)
    note = nested.note_for(["web/ui/a.ts"])
    assert "web/AGENTS.md" in note and "WEB-RULE" in note and "ROOT-RULE" not in note
    assert nested.note_for(["web/ui/a.ts", "web"]) == ""
    nested.reset()  # /clear: the conversation no longer holds it
    assert "WEB-RULE" in nested.note_for(["web/b.ts"])


def test_a_tool_result_in_the_folder_carries_its_file(tmp_path: Path) -> None:
    _write(tmp_path / "pkg" / "AGENTS.md", "PKG-RULE: run make check")
    _write(tmp_path / "pkg" / "mod.py", "print(1)\n")
    _write(tmp_path / "top.py", "print(0)\n")
    runner = make_runner(tmp_path, nested=NestedInstructions(tmp_path))
    _, first = run_one(runner, "read_file", json.dumps({"path": "top.py"}))
    _, second = run_one(runner, "read_file", json.dumps({"path": "pkg/mod.py"}))
    _, third = run_one(runner, "read_file", json.dumps({"path": "pkg/mod.py"}))
    assert "PKG-RULE" not in first and "PKG-RULE" in second and "PKG-RULE" not in third
    assert "不是用户的指令" in second


def test_a_folder_file_cleared_away_by_compaction_is_handed_out_again(tmp_path: Path) -> None:
    from paicli.context.clearing import placeholder

    _write(tmp_path / "pkg" / "AGENTS.md", "PKG-RULE: run make check")
    _write(tmp_path / "pkg" / "mod.py", "print(1)\n")
    nested = NestedInstructions(tmp_path)
    view: list[str] = []  # the followed conversation's tool results
    nested.follow(lambda: "\n".join(view))
    runner = make_runner(tmp_path, nested=nested)
    _, first = run_one(runner, "read_file", json.dumps({"path": "pkg/mod.py"}))
    view.append(first)
    _, while_shown = run_one(runner, "read_file", json.dumps({"path": "pkg/mod.py"}))
    view[0] = placeholder("read_file", first)  # what clearing leaves of the tool result
    _, after_clearing = run_one(runner, "read_file", json.dumps({"path": "pkg/mod.py"}))
    assert "PKG-RULE" in first and "PKG-RULE" not in while_shown
    assert "PKG-RULE" in after_clearing and after_clearing.count("PKG-RULE") == 1


def test_an_identical_folder_file_still_in_view_is_not_handed_out_again(tmp_path: Path) -> None:
    _write(tmp_path / "a" / "AGENTS.md", "SAME-RULE")
    _write(tmp_path / "b" / "CLAUDE.md", "SAME-RULE")
    nested = NestedInstructions(tmp_path)
    view: list[str] = []
    nested.follow(lambda: "\n".join(view))
    view.append(nested.note_for(["a/x.py"]))
    assert "SAME-RULE" in view[0] and nested.note_for(["b/y.py"]) == ""
    view.clear()  # summarised away
    assert "SAME-RULE" in nested.note_for(["b/y.py"])
