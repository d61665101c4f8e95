"""`--version` and `--help` answer without importing the rest of paicli (issue 49), and say what the parser says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from paicli import __version__
from paicli.cli.app import build_parser, kept_help
from paicli.testing.proc import paicli_env, run_paicli

_IMPORTED = (
    "import sys; sys.argv = ['paicli', {flag!r}]; from paicli.cli.app import run; run(); "
    "sys.stderr.write(' '.join(sorted(sys.modules)))"
)


def test_the_kept_help_is_what_the_parser_prints() -> None:
    # a failure here: run `python -m paicli.cli.help_text` after changing a flag or the provider table
    kept = kept_help()
    if kept is None:
        pytest.skip("no help kept for this Python; --help renders it with argparse")
    assert build_parser().format_help() == kept


@pytest.mark.e2e  # paicli processes
def test_version_and_help_print_the_parsers_answers(tmp_path: Path) -> None:
    env = paicli_env(tmp_path / "home", None)
    for flag, expected in (
        ("--version", f"paicli {__version__}\n"),
        ("--help", build_parser().format_help()),
        ("-h", build_parser().format_help()),
    ):
        done = run_paicli([flag], env, tmp_path)
        assert (done.returncode, done.stdout, done.stderr) == (0, expected, "")


@pytest.mark.e2e  # paicli processes
def test_the_quick_answers_import_no_settings_parser_or_typing(tmp_path: Path) -> None:
    for flag in ("--version", "--help"):
        code = _IMPORTED.format(flag=flag)
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, check=True
        )
        modules = set(done.stderr.split())
        assert "paicli.cli.app" in modules
        assert not modules & {
            "argparse",
            "typing",
            "paicli.config.knobs",
            "paicli.config.providers",
            "openai",
        }
