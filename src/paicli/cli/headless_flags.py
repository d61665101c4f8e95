"""`-p --input-format stream-json` and `-p --json-schema FILE`: checked before the session is built, then run."""

from __future__ import annotations

import argparse
import sys

from paicli.cli.backend import SessionPort
from paicli.config.env import ConfigError
from paicli.config.modes import RunMode


def prepare(args: argparse.Namespace) -> str:
    """What makes the flags unusable ("" when nothing): the schema file is read and checked now."""
    if args.json_schema is None:
        return ""
    from paicli.cli.structured import load_schema

    try:
        args.schema = load_schema(args.json_schema)
    except ConfigError as exc:
        return str(exc)
    return ""


def run_headless(backend: SessionPort, args: argparse.Namespace, mode: RunMode) -> int:
    if args.input_format == "stream-json":
        from paicli.cli.stream_input import run_stream_input

        return run_stream_input(
            backend, args.prompt, mode, args.output_format, sys.stdin, sys.stdout, sys.stderr
        )
    from paicli.cli.structured import run_structured

    return run_structured(backend, args.prompt, mode, args.output_format, args.schema, sys.stdout, sys.stderr)
