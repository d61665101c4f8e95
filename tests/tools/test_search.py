"""grep_code on both engines (ripgrep, the time-limited Python fallback) and its limits."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from paicli.tools.search import expand_braces

from .helpers import make_runner, run_one


@pytest.fixture
def code(project: Path) -> Path:
    (project / "src").mkdir()
    (project / "src/app.py").write_text(
        "import os\n\ndef main():\n    return os.getcwd()\n", encoding="utf-8"
    )
    (project / "src/util.ts").write_text("export const main = 1;\n", encoding="utf-8")
    (project / "notes.md").write_text("main idea\n", encoding="utf-8")
    (project / ".git").mkdir()
    (project / ".git/config").write_text("main\n", encoding="utf-8")
    (project / "blob.bin").write_bytes(b"\x00main\x00")
    return project


ENGINES = {"ripgrep": {}, "python": {"PAICLI_GREP_RIPGREP": "false"}}


@pytest.fixture(params=sorted(ENGINES))
def engine(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def grep(project: Path, engine: str = "ripgrep", **args: object) -> tuple[bool, str, dict[str, object]]:
    runner = make_runner(project, values=ENGINES[engine])
    result, text = run_one(runner, "grep_code", json.dumps(args))
    return result.success, text, result.metadata


def test_finds_matches_with_context_and_skips_binary_and_vcs(code: Path, engine: str) -> None:
    ok, text, meta = grep(code, engine, pattern=r"def main", context_lines=1)
    assert ok and meta["partial"] is False
    assert "src/app.py:3:def main():" in text
    assert "src/app.py-2-" in text and "src/app.py-4-    return os.getcwd()" in text
    _, everywhere, _ = grep(code, engine, pattern="main")
    assert ".git" not in everywhere and "blob.bin" not in everywhere
    assert "notes.md:1:main idea" in everywhere


def test_glob_and_path_restrict_the_search(code: Path, engine: str) -> None:
    _, text, _ = grep(code, engine, pattern="main", glob="*.{ts,md}")
    assert "src/util.ts:1:" in text and "notes.md:1:" in text and "app.py" not in text
    _, text, _ = grep(code, engine, pattern="main", path="src")
    assert "notes.md" not in text and "src/app.py" in text
    _, text, _ = grep(code, engine, pattern="main", path="src/app.py", context_lines=0)
    assert text.splitlines()[1:] == ["src/app.py:3:def main():"]


def test_head_limit_and_max_chars_mark_partial_with_suggested_reads(project: Path, engine: str) -> None:
    (project / "many.txt").write_text("".join(f"hit {i}\n" for i in range(100)), encoding="utf-8")
    ok, text, meta = grep(project, engine, pattern="hit", head_limit=5, context_lines=0)
    assert ok and meta["partial"] is True
    assert sum(1 for line in text.splitlines() if line.startswith("many.txt:")) == 5
    assert "partial: true" in text
    assert 'read_file {"path":"many.txt","offset":1,"limit":60}' in text
    _, text, meta = grep(project, engine, pattern="hit", head_limit=100, context_lines=0, max_chars=300)
    assert meta["partial"] is True and len(text) < 1200


def test_no_match_and_missing_path(code: Path, engine: str) -> None:
    ok, text, _ = grep(code, engine, pattern="zzz_not_here")
    assert ok and "没有找到" in text
    ok, text, _ = grep(code, engine, pattern="x", path="nope")
    assert not ok and "不存在" in text


def test_brace_expansion() -> None:
    assert expand_braces("*.{ts,tsx}") == ["*.ts", "*.tsx"]
    assert expand_braces("src/**/*.py") == ["src/**/*.py"]


@pytest.mark.skipif(shutil.which("rg") is None, reason="ripgrep not installed")
def test_ripgrep_path_renders_the_same_shape(code: Path) -> None:
    _, text, _ = grep(code, pattern=r"def main", context_lines=0)
    assert "src/app.py:3:def main():" in text


FAKE_RG = r"""#!/usr/bin/env python3
import json, sys
args = sys.argv[1:]
with open("rg-args.json", "w") as f:
    json.dump(args, f)
pattern = args[args.index("--regexp") + 1]
if pattern == "(":
    print("regex parse error: unclosed group", file=sys.stderr)
    sys.exit(2)
def emit(kind, path, n, text):
    print(json.dumps({"type": kind, "data": {"path": {"text": path}, "lines": {"text": text + "\n"},
                                             "line_number": n}}))
print(json.dumps({"type": "begin", "data": {"path": {"text": "./src/a.py"}}}))
for n in range(1, 6):
    emit("context", "./src/a.py", n * 2 - 1, f"ctx {n}")
    emit("match", "./src/a.py", n * 2, f"hit {n}")
print(json.dumps({"type": "end", "data": {}}))
print(json.dumps({"type": "summary", "data": {}}))
"""


@pytest.fixture
def fake_rg(project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    rg = bin_dir / "rg"
    rg.write_text(FAKE_RG, encoding="utf-8")
    rg.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return project


def test_ripgrep_json_output_is_parsed_and_cut_at_head_limit(fake_rg: Path) -> None:
    ok, text, meta = grep(fake_rg, pattern="hit", glob="*.py", context_lines=1, head_limit=3)
    assert ok and meta["partial"] is True
    args = json.loads((fake_rg / "rg-args.json").read_text(encoding="utf-8"))
    assert args[:5] == ["--no-config", "--json", "--no-messages", "--sort", "path"]
    assert args[args.index("--glob") : args.index("--glob") + 2] == ["--glob", "*.py"]
    assert "src/a.py:2:hit 1" in text and "src/a.py-1-ctx 1" in text
    assert "src/a.py:6:hit 3" in text and "hit 4" not in text
    assert "在 1 个文件中找到 3 处匹配" in text


def test_ripgrep_regex_errors_become_results(fake_rg: Path) -> None:
    ok, text, _ = grep(fake_rg, pattern="(")
    assert not ok and "正则表达式无效" in text and "unclosed group" in text


# ---- hostile patterns and files (issue 17 item 5) -------------------------------------------------

CATASTROPHIC = ["(a|aa)+$", "(?:a|aa){2,}x$", "((a|aa)+)+!!", r"(\w|aa)+$"]


def _slow_project(project: Path) -> Path:
    (project / "slow.txt").write_text(("a" * 64 + "!\n") * 50, encoding="utf-8")
    return project


def _query(project: Path, pattern: str) -> object:
    from paicli.tools.search import GrepQuery

    return GrepQuery(pattern, project.resolve(), project.resolve(), (), 0, 20)


def _context(project: Path, cancel: object) -> object:
    from paicli.tools.context import ToolContext
    from paicli.tools.guards import PathGuard

    return ToolContext(project, PathGuard(project), cancel)  # type: ignore[arg-type]


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_fallback_engine_gives_up_on_catastrophic_patterns(project: Path, pattern: str) -> None:
    from paicli.cancel import CancelToken
    from paicli.tools.search import RegexTimeout, python_grep

    _slow_project(project)
    with pytest.raises(RegexTimeout):
        python_grep(_query(project, pattern), _context(project, CancelToken()), deadline_seconds=0.2)  # type: ignore[arg-type]


@pytest.mark.parametrize("pattern", CATASTROPHIC[:2])
def test_a_cancel_ends_a_catastrophic_fallback_search(project: Path, pattern: str) -> None:
    import threading

    from paicli.cancel import Cancelled, CancelToken
    from paicli.tools.search import python_grep

    _slow_project(project)
    cancel = CancelToken()
    started = threading.Event()
    outcome: list[BaseException] = []

    def search() -> None:
        started.set()
        try:
            python_grep(_query(project, pattern), _context(project, cancel))  # type: ignore[arg-type]
        except BaseException as error:
            outcome.append(error)

    worker = threading.Thread(target=search)
    worker.start()
    started.wait(30)
    cancel.cancel()
    worker.join(60)
    assert not worker.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], Cancelled)


def test_batch_timeout_fires_while_catastrophic_fallback_searches_run(project: Path) -> None:
    """The regex runs without the GIL on a worker thread: the batch timer gets to run (20 s regex budget)."""
    from .helpers import run

    _slow_project(project)
    runner = make_runner(project, values=ENGINES["python"], batch_timeout=0.5)
    results = run(
        runner,
        ("grep_code", json.dumps({"pattern": CATASTROPHIC[0]})),
        ("grep_code", json.dumps({"pattern": CATASTROPHIC[1]})),
        ("read_file", json.dumps({"path": "slow.txt", "limit": 1})),
    )
    assert [r.timed_out for r in results[:2]] == [True, True]
    assert "工具执行超时" in results[0].content and "正则表达式执行超时" not in results[0].content
    assert results[2].success and "lines 1-1 of 50" in results[2].content


@pytest.mark.parametrize("pattern", CATASTROPHIC)
def test_ripgrep_runs_catastrophic_patterns_in_linear_time(project: Path, pattern: str) -> None:
    (project / "slow.txt").write_text("a" * 64 + "b\n" + "aaaa\n", encoding="utf-8")
    ok, text, _ = grep(project, "ripgrep", pattern=pattern)
    assert ok, text


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_searches_skip_fifos_and_refuse_one_named_directly(project: Path, engine: str) -> None:
    os.mkfifo(project / "pipe")
    (project / "sub").mkdir()
    os.mkfifo(project / "sub" / "pipe.py")
    (project / "real.py").write_text("needle\n", encoding="utf-8")
    ok, text, _ = grep(project, engine, pattern="needle")
    assert ok and "real.py:1:needle" in text and "pipe" not in text
    ok, text, _ = grep(project, engine, pattern="needle", glob="*.py")
    assert ok and "real.py:1:needle" in text
    ok, text, _ = grep(project, engine, pattern="needle", path="sub/pipe.py")
    assert not ok and "不是普通文件" in text


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"foo(?=bar)", "a.txt:1:foobar"),
        (r"(?<!x)baz", "a.txt:2:ybaz"),
        (r"(\w)\1{2}", "a.txt:3:zzz"),
    ],
)
def test_patterns_ripgrep_lacks_fall_back_to_the_regex_engine(
    project: Path, pattern: str, expected: str
) -> None:
    (project / "a.txt").write_text("foobar\nybaz\nzzz\nxbaz\n", encoding="utf-8")
    ok, text, _ = grep(project, "ripgrep", pattern=pattern, context_lines=0)
    assert ok and expected in text, text
    ok, text, _ = grep(project, "ripgrep", pattern="(unclosed", context_lines=0)
    assert not ok and "正则表达式无效" in text


def test_names_and_lines_that_are_not_utf8_survive_both_engines(project: Path, engine: str) -> None:
    with open(os.path.join(os.fsencode(project), b"bad\xff.txt"), "wb") as handle:
        handle.write(b"needle \xfe\n")
    ok, text, _ = grep(project, engine, pattern="needle", context_lines=0)
    assert ok and "bad" in text and ".:1:" not in text
    assert "needle \ufffd" in text


def test_thirty_brace_groups_are_refused_before_expanding(project: Path) -> None:
    from paicli.tools.globs import MAX_GLOBS, GlobTooLarge, brace_count

    glob = "{a,b}" * 30
    assert brace_count(glob) == MAX_GLOBS + 1  # counted, not expanded: 2^30 would exhaust memory
    with pytest.raises(GlobTooLarge):
        expand_braces(glob)
    assert len(expand_braces("{a,b}" * 8)) == MAX_GLOBS  # exactly the cap still expands
    (project / "a.py").write_text("x = 1\n")
    runner = make_runner(project)
    result, text = run_one(runner, "grep_code", json.dumps({"pattern": "x", "glob": glob}))
    assert not result.success
    assert "超过 256 个模式" in text
