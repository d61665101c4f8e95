"""create_project (spec 9.1): scaffolds a new folder of the project, asks a person first in every mode, and
refuses what exists or is not one folder name."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from paicli.tools.approval import ApprovalState
from paicli.tools.registry import PROJECT_KINDS
from tests.tools.helpers import RecordingApprover, make_runner, run_one


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        (
            "python",
            {
                "README.md",
                "pyproject.toml",
                "src/demo_app/__init__.py",
                "src/demo_app/__main__.py",
                "tests/test_smoke.py",
                ".gitignore",
            },
        ),
        ("node", {"README.md", "package.json", "src/index.js", ".gitignore"}),
        ("java", {"README.md", "pom.xml", "src/main/java/com/example/App.java", ".gitignore"}),
        ("web", {"README.md", "index.html", "style.css", "main.js"}),
    ],
)
def test_each_type_is_scaffolded_after_the_person_agrees(
    project: Path, kind: str, expected: set[str]
) -> None:
    approver = RecordingApprover("approve")
    runner = make_runner(project, approver, approval=ApprovalState("auto"))
    result, text = run_one(runner, "create_project", json.dumps({"name": "demo-app", "type": kind}))
    assert result.success, text
    made = {
        p.relative_to(project / "demo-app").as_posix()
        for p in (project / "demo-app").rglob("*")
        if p.is_file()
    }
    assert made == expected
    assert f"✅ 已创建 {kind} 项目 demo-app" in text
    assert [r.summary for r in approver.requests] == [
        f"创建项目: demo-app（{kind}）"
    ]  # asked, even in auto mode
    if kind == "node":
        assert json.loads((project / "demo-app" / "package.json").read_text())["name"] == "demo-app"


def test_a_refusal_creates_nothing(project: Path) -> None:
    runner = make_runner(project, RecordingApprover("deny"), approval=ApprovalState("auto"))
    result, _ = run_one(runner, "create_project", '{"name": "demo", "type": "python"}')
    assert result.blocked and not (project / "demo").exists()


@pytest.mark.parametrize(
    ("name", "kind", "said"),
    [
        ("existing", "python", "已存在"),
        ("../outside", "python", "策略拒绝"),  # the PathGuard, before anyone is asked
        ("a/b", "node", "只能是一个目录名"),
        ("ok", "cobol", "type"),
    ],
)
def test_what_cannot_be_made_is_refused_and_nothing_changes(
    project: Path, name: str, kind: str, said: str
) -> None:
    (project / "existing").mkdir()
    (project / "existing" / "keep.txt").write_text("x")
    runner = make_runner(project, RecordingApprover("approve"), approval=ApprovalState("auto"))
    result, text = run_one(runner, "create_project", json.dumps({"name": name, "type": kind}))
    assert not result.success and said in text
    assert sorted(p.name for p in project.iterdir()) == ["existing"]
    assert [p.name for p in (project / "existing").iterdir()] == ["keep.txt"]
    assert not (project.parent / "outside").exists()


@pytest.mark.parametrize("kind", PROJECT_KINDS)
def test_every_type_the_spec_offers_is_one_the_tool_scaffolds(project: Path, kind: str) -> None:
    """The spec (offered to the model from the table) and the implementation (loaded at the first call) are two
    modules: what the one lists, the other makes."""
    runner = make_runner(project, RecordingApprover("approve"), approval=ApprovalState("auto"))
    result, text = run_one(runner, "create_project", json.dumps({"name": f"new-{kind}", "type": kind}))
    assert result.success, text
    assert (project / f"new-{kind}" / "README.md").is_file()
