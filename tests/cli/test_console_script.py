"""The installed `paicli` command (the console script an installer writes, what users run) answers --version and
--help without importing anything `python -c pass` does not, apart from paicli's own entry modules (issue 49).

A module-set check, not a clock: each run's imports are read from Python's own import log
(PYTHONPROFILEIMPORTTIME), so a wrapper that imports `re` (pip before 25.0 wrote one: `re`, `enum`, `functools`,
about half a `python -c pass` on this machine) or an entry point that drags in argparse, typing or settings fails
here, however fast the machine is."""

from __future__ import annotations

import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

from paicli import __version__
from paicli.testing.proc import paicli_env

# what the quick answers may import beyond the bare interpreter: the entry point's own modules
_ALLOWED_EXTRA = {"__future__", "paicli", "paicli.cli", "paicli.cli.app"}
_LEAN_WRAPPER_PIP = (25, 0)  # pip's console-script template stopped importing `re` in 25.0 (pypa/pip#13166)


def _imported(command: list[str], env: dict[str, str], cwd: Path) -> tuple[set[str], str]:
    done = subprocess.run(
        command,
        env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    names = {
        line.rsplit("|", 1)[1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:") and line.count("|") == 2
    }
    names.discard("package")  # the log's header row
    return names, done.stdout


def _installed_script() -> Path:
    script = Path(sys.executable).with_name("paicli")
    assert script.is_file(), (
        f"no console script beside {sys.executable}: install the project (pip install -e .)"
    )
    return script


def _pip_version() -> tuple[int, ...]:
    try:
        raw = metadata.version("pip")
    except metadata.PackageNotFoundError:
        return _LEAN_WRAPPER_PIP  # another installer (uv, ...): its wrapper is checked as it is
    return tuple(int(part) for part in raw.split(".")[:2] if part.isdigit())


def test_the_installed_command_answers_quickly_with_no_import_beyond_its_entry(tmp_path: Path) -> None:
    if _pip_version() < _LEAN_WRAPPER_PIP:
        pytest.skip(
            "this venv's pip predates 25.0, whose console scripts import re: "
            "`python -m pip install --upgrade pip && pip install -e .` to check the wrapper"
        )
    env = paicli_env(tmp_path / "home", None)
    bare, _ = _imported([sys.executable, "-c", "pass"], env, tmp_path)
    assert "site" in bare  # the log was read: the bare interpreter's own start-up imports are in it
    script = _installed_script()
    for flag, expected in (("--version", f"paicli {__version__}\n"), ("--help", "usage: paicli")):
        modules, out = _imported([str(script), flag], env, tmp_path)
        assert out.startswith(expected)
        assert modules - bare <= _ALLOWED_EXTRA, (
            f"`paicli {flag}` imports {sorted(modules - bare - _ALLOWED_EXTRA)} that `python -c pass` does not "
            f"({script}: reinstall with a current pip if its wrapper imports re)"
        )


def test_the_entry_point_itself_imports_nothing_beyond_its_modules(tmp_path: Path) -> None:
    # what any installer's wrapper runs: `from <module> import <attr>; <attr>()`, whatever writes the script
    (entry,) = (ep for ep in metadata.entry_points(group="console_scripts") if ep.name == "paicli")
    env = paicli_env(tmp_path / "home", None)
    bare, _ = _imported([sys.executable, "-c", "pass"], env, tmp_path)
    launcher = f"import sys; from {entry.module} import {entry.attr}; sys.exit({entry.attr}())"
    for flag in ("--version", "--help"):
        modules, out = _imported([sys.executable, "-c", launcher, flag], env, tmp_path)
        assert out.startswith(("paicli ", "usage: paicli"))
        assert modules - bare <= _ALLOWED_EXTRA, sorted(modules - bare - _ALLOWED_EXTRA)
