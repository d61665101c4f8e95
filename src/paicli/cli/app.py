"""Composition root (placeholder until the CLI lands)."""

from __future__ import annotations

import sys

from paicli import __version__


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "--version":
        print(f"paicli {__version__}")
        return 0
    return 0
