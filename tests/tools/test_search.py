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
