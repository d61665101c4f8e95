"""The product's own modules, for tests that scan the source: the shipped test fakes (paicli.testing) are test
code and follow the test suite's rules, not the product's."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path


def product_sources(src: Path) -> Iterator[Path]:
    for path in src.rglob("*.py"):
        if path.relative_to(src).parts[0] != "testing":
            yield path
