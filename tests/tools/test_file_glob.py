"""glob_files' walk (tools/file_glob.py) lists exactly what the former one did: pathlib's glob, each match's real
path checked against the project, skipped directories and non-regular files left out (symlinks inside and
outside the project, broken links, linked directories, dot names, skipped names as files)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.tools.file_glob import GLOB_SKIPPED_DIRS, matching_files
from paicli.tools.guards import PathGuard

pytestmark = pytest.mark.skipif(os.name != "posix", reason="symbolic links")

PATTERNS = [
    "**/*.py",
    "**/**/*.py",
    "*.py",
    "**/*",
    "*",
    "src/*.py",
    "src/**/*.py",
    "**/sub/*.py",
    "*/*.py",
    "*/*/*",
    "top.py",
    "src/a.py",
    "linked_in/*.py",
    "linked_out/*.py",
    "**/linked_in/*.py",
    "**/.hidden*",
    "**/[ab].py",
    "**/?.txt",
    "**/node_modules",
    "node_modules/x/d.py",
    "**/",
    "src/",
    "**",
    "nothing/*.py",
    "./src/*.py",
]


def _reference(base: Path, pattern: str, guard: PathGuard) -> list[str]:
    """The walk glob_files made before: Path.glob, then realpath, skipped parts and is_file per match."""
    found = set()
    for match in base.glob(re.sub(r"(?:\*\*/)+", "**/", pattern)):
        parts = match.relative_to(base).parts
        if any(part in GLOB_SKIPPED_DIRS for part in parts[:-1]) or not match.is_file():
            continue
        if guard.contains(os.path.realpath(match)):
            found.add(match.relative_to(base).as_posix())
    return sorted(found)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    project, outside = tmp_path / "project", tmp_path / "outside"
    for name in (
        "top.py",
        "src/a.py",
        "src/b.py",
        "src/c.txt",
        "src/sub/d.py",
        "src/sub/deeper/e.py",
        "src/.hidden.py",
        ".hidden_dir/f.py",
        "node_modules/x/d.py",
        "src/__pycache__/g.py",
        "src/.git/h.py",
        "docs/a.txt",
        "docs/z.txt",
        "skips/node_modules",
    ):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x", encoding="utf-8")
    (outside / "secret").mkdir(parents=True)
    (outside / "secret" / "s.py").write_text("x", encoding="utf-8")
    (outside / "o.py").write_text("x", encoding="utf-8")
    (project / "linked_in").symlink_to(project / "src" / "sub")
    (project / "linked_out").symlink_to(outside / "secret")
    (project / "src" / "link_in.py").symlink_to(project / "top.py")
    (project / "src" / "link_out.py").symlink_to(outside / "o.py")
    (project / "src" / "broken.py").symlink_to(project / "missing.py")
    (project / "src" / "dir_link.py").symlink_to(project / "docs")
    (project / "modules_link").symlink_to(project / "node_modules")
    return project


@pytest.mark.parametrize("pattern", PATTERNS)
@pytest.mark.parametrize("under", [".", "src"])
def test_the_walk_lists_what_pathlib_and_realpath_did(tree: Path, pattern: str, under: str) -> None:
    guard = PathGuard(tree)
    base = Path(os.path.realpath(tree / under))
    expected = _reference(base, pattern, guard)
    assert matching_files(base, pattern, guard.contains, CancelToken(), 200_000) == expected


def test_links_and_skipped_directories_in_the_listing(tree: Path) -> None:
    guard = PathGuard(tree)
    listed = matching_files(Path(os.path.realpath(tree)), "**/*.py", guard.contains, CancelToken(), 200_000)
    assert "src/link_in.py" in listed  # a link to a file inside the project
    assert (
        "src/link_out.py" not in listed and "src/broken.py" not in listed and "src/dir_link.py" not in listed
    )
    assert not any(path.startswith(("node_modules/", "src/__pycache__/", "src/.git/")) for path in listed)
    assert "src/.hidden.py" in listed and ".hidden_dir/f.py" in listed
    assert not any(path.startswith(("linked_in/", "linked_out/")) for path in listed)  # `**` skips links
    through = matching_files(Path(os.path.realpath(tree)), "*/*.py", guard.contains, CancelToken(), 200_000)
    assert "linked_in/d.py" in through and "linked_out/s.py" not in through


def test_a_double_star_inside_a_name_is_refused_as_pathlib_does(tree: Path) -> None:
    with pytest.raises(ValueError, match="entire path component"):
        matching_files(tree, "src/a**.py", PathGuard(tree).contains, CancelToken(), 10)
