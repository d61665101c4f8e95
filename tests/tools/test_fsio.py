"""Safe opening beneath the project root and streamed line windows (issue 17: FIFOs, symlink swaps, ranges)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.tools.context import ToolContext
from paicli.tools.files import edit_file, read_file, split_lines, write_file
from paicli.tools.fsio import NotRegularFile, SymlinkSwapped, open_beneath, read_line_window
from paicli.tools.guards import GuardedPath, PathGuard

from .helpers import make_runner, run_one

pytestmark = pytest.mark.skipif(not hasattr(os, "O_NOFOLLOW"), reason="POSIX only")


def window(data: bytes, start: int, count: int, chunk: int) -> tuple[list[str], int]:
    result = read_line_window(_temp_fd(data), start, count, chunk_size=chunk)
    return result.lines, result.total


def _temp_fd(data: bytes) -> int:
    import tempfile

    with tempfile.TemporaryFile() as handle:
        handle.write(data)
        handle.flush()
        fd = os.dup(handle.fileno())
    os.lseek(fd, 0, os.SEEK_SET)
    return fd


PIECES = [b"a", b"bc", b"\r", b"\n", b"\r\n", b"\xe4\xbd\xa0", b"", b"  x"]


@pytest.mark.parametrize("seed", range(40))
def test_line_window_matches_split_lines_for_any_chunking(seed: int) -> None:
    rng = random.Random(seed)
    data = b"".join(rng.choice(PIECES) for _ in range(rng.randint(0, 60)))
    expected = split_lines(data.decode("utf-8", errors="replace"))
    for chunk in (1, 2, 3, 7, 64):
        start = rng.randint(0, max(len(expected), 1))
        count = rng.randint(1, 5)
        lines, total = window(data, start, count, chunk)
        assert total == len(expected), (data, chunk)
        assert lines == expected[start : start + count], (data, chunk, start, count)


def test_ranged_read_of_a_huge_sparse_file_streams(project: Path) -> None:
    path = project / "huge.log"
    with open(path, "wb") as handle:
        handle.write(b"".join(f"line {i:05d}\n".encode() for i in range(1, 1001)))  # 11 kB of text first
        handle.truncate(64 * 1024 * 1024)  # sparse tail: one 64 MB line of NULs
    runner = make_runner(project)
    result, text = run_one(runner, "read_file", json.dumps({"path": "huge.log", "offset": 3, "limit": 2}))
    assert result.success, text
    assert text.splitlines()[0] == "文件内容: huge.log (lines 3-4 of 1001)"
    assert text.splitlines()[1:3] == ["    3 | line 00003", "    4 | line 00004"]
    result, text = run_one(runner, "read_file", json.dumps({"path": "huge.log", "offset": 1001, "limit": 1}))
    assert result.success and len(text) < 2 * 1024 * 1024  # the huge line is capped, not loaded whole
    result, text = run_one(runner, "read_file", json.dumps({"path": "huge.log"}))
    assert not result.success and "5MB" in text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("read_file", {"path": "pipe"}),
        ("read_file", {"path": "pipe", "offset": 1, "limit": 5}),
        ("write_file", {"path": "pipe", "content": "x"}),
        ("edit_file", {"path": "pipe", "old_text": "a", "new_text": "b"}),
    ],
)
def test_file_tools_refuse_a_fifo_instead_of_blocking(
    project: Path, tool: str, args: dict[str, object]
) -> None:
    os.mkfifo(project / "pipe")
    result, text = run_one(make_runner(project), tool, json.dumps(args))
    assert not result.success
    assert "不是普通文件" in text or "文件不存在" in text


def test_open_beneath_refuses_symlinks_on_the_way(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (project / "real").mkdir()
    (project / "dirlink").symlink_to(outside)
    (project / "filelink").symlink_to(outside / "f.txt")
    (project / "inner").symlink_to(project / "real")
    for relative in ("dirlink/f.txt", "filelink", "inner/f.txt", "dirlink/new/f.txt", "../outside/f.txt"):
        with pytest.raises(SymlinkSwapped):
            open_beneath(project, relative, os.O_RDWR | os.O_CREAT, make_dirs=True)
    assert list(outside.iterdir()) == []
    fd = open_beneath(project, "real/deep/f.txt", os.O_RDWR | os.O_CREAT, make_dirs=True)
    os.close(fd)
    assert (project / "real" / "deep" / "f.txt").is_file()
    if hasattr(os, "mkfifo"):
        os.mkfifo(project / "real" / "p")
        with pytest.raises(NotRegularFile):
            open_beneath(project, "real/p")


class SwappingPathGuard(PathGuard):
    """A hostile file system: right after the path check, the checked directory becomes a symlink."""

    def __init__(self, root: Path, victim: str, target: Path) -> None:
        super().__init__(root)
        self.victim, self.target = victim, target

    def resolve(self, raw: str | None) -> GuardedPath:
        checked = super().resolve(raw)
        victim = self.root / self.victim
        if victim.is_dir() and not victim.is_symlink():
            victim.rename(self.root / (self.victim + ".moved"))
            victim.symlink_to(self.target)
        elif victim.is_file():
            victim.unlink()
            victim.symlink_to(self.target)
        return checked


@pytest.mark.parametrize(
    ("tool", "args", "victim"),
    [
        (write_file, {"path": "sub/a.txt", "content": "pwned"}, "sub"),
        (write_file, {"path": "sub/new/a.txt", "content": "pwned"}, "sub"),
        (write_file, {"path": "sub/a.txt", "content": "pwned"}, "sub/a.txt"),
        (edit_file, {"path": "sub/a.txt", "old_text": "old", "new_text": "pwned"}, "sub/a.txt"),
        (edit_file, {"path": "sub/a.txt", "old_text": "old", "new_text": "pwned"}, "sub"),
        (read_file, {"path": "sub/a.txt"}, "sub/a.txt"),
    ],
)
def test_a_symlink_swapped_in_after_the_check_is_not_followed(
    project: Path, tmp_path: Path, tool: object, args: dict[str, object], victim: str
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "a.txt").write_text("old secret", encoding="utf-8")
    (project / "sub").mkdir()
    (project / "sub" / "a.txt").write_text("old", encoding="utf-8")
    target = outside / "a.txt" if victim.endswith(".txt") else outside
    guard = SwappingPathGuard(project, victim, target)
    ctx = ToolContext(project, guard, CancelToken())
    output = tool(args, ctx)  # type: ignore[operator]
    assert not output.success and "符号链接" in output.content
    assert (outside / "a.txt").read_text(encoding="utf-8") == "old secret"
    assert sorted(p.name for p in outside.iterdir()) == ["a.txt"]


@pytest.mark.parametrize("pattern", ["**/*.py", "**/**/*.py", "**/**/**/**/*.py"])
def test_repeated_double_stars_walk_once_and_list_each_file_once(project: Path, pattern: str) -> None:
    deep = project / "a" / "b" / "c"
    deep.mkdir(parents=True)
    for folder in (project, project / "a", deep):
        (folder / "m.py").write_text("x\n", encoding="utf-8")
    result, text = run_one(make_runner(project), "glob_files", json.dumps({"pattern": pattern}))
    assert result.success
    listed = [line for line in text.splitlines()[1:] if line.endswith(".py")]
    assert listed == ["a/b/c/m.py", "a/m.py", "m.py"]
