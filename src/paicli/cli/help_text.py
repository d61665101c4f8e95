"""Writes `paicli --help` as build_parser() renders it under this Python to cli/help-<major>.<minor>.txt, which
`paicli --help` prints without importing argparse or the settings (`python -m paicli.cli.help_text`)."""

from __future__ import annotations

from pathlib import Path

from paicli.cli.app import build_parser, kept_help_name


def write() -> Path:
    target = Path(__file__).with_name(kept_help_name())
    target.write_text(build_parser().format_help(), encoding="utf-8")
    return target


if __name__ == "__main__":
    write()
