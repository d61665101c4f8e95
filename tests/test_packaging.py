"""A plain (non-editable) install ships the prompts and the entry points work from anywhere."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SKIP = shutil.ignore_patterns(
    ".git",
    ".ci-venv",
    "venv",
    ".venv",
    "__pycache__",
    "*.egg-info",
    "build",
    "dist",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".paicli",
    "tests",
    "evals",
)


def test_plain_install_finds_prompts_and_runs(tmp_path: Path, isolated_home: Path) -> None:
    source = tmp_path / "src-copy"
    shutil.copytree(REPO, source, symlinks=True, ignore=SKIP)
    site = tmp_path / "site"
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(site),
            str(source),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr
    assert not (site / "paicli" / "prompts").is_symlink()
    assert (site / "paicli" / "prompts" / "base.md").is_file()
    assert (site / "paicli" / "prompts" / "skills" / "index.md").is_file()
    assert (site / "paicli" / "builtin_skills" / "review-change" / "SKILL.md").is_file()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site), "PAICLI_HOME": str(isolated_home / ".paicli")}
    probe = (
        "import paicli, sys\n"
        "from paicli.prompt.repository import PromptRepository\n"
        "from paicli.prompt.assembler import PromptAssembler, PromptMode\n"
        "text = PromptAssembler(PromptRepository()).assemble(PromptMode.AGENT)\n"
        "print(paicli.__file__)\n"
        "print('## Language' in text, '## Runtime Context' in text)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith(str(site)) and lines[1] == "True True"
    script = site / "bin" / "paicli"
    assert script.is_file()  # the console script
    version = subprocess.run(
        [str(script), "--version"], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert version.returncode == 0 and version.stdout.startswith("paicli ")
    helptext = subprocess.run(
        [sys.executable, "-m", "paicli", "--help"], cwd=elsewhere, env=env, capture_output=True, text=True
    )
    assert helptext.returncode == 0 and "--output-format" in helptext.stdout
