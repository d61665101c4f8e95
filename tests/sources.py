"""The product's own modules, for tests that scan the source: the shipped test fakes (paicli.testing) are test
code and follow the test suite's rules, not the product's. Parsed once per test process: several tests walk
every module, and parsing all of src/ costs about a second each time."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path


def product_sources(src: Path) -> Iterator[Path]:
    for path in src.rglob("*.py"):
        if path.relative_to(src).parts[0] != "testing":
            yield path


def parsed(path: Path) -> ast.Module:
    """The module's syntax tree, shared by every test of this process (read it, never change it)."""
    return _parsed(path.resolve())


@functools.cache
def _parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))
