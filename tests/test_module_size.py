"""Small modules (design/architecture.md): every product module stays under 400 lines. A module that grows
past it is split by responsibility (what it is for), not cut at the limit. The shipped test fakes
(paicli.testing) are test code and follow the test suite's rules."""

from __future__ import annotations

from pathlib import Path

import paicli
from tests.sources import product_sources

MAX_LINES = 400


def test_every_product_module_is_under_400_lines() -> None:
    src = Path(paicli.__file__).parent
    sizes = {
        path.relative_to(src).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in product_sources(src)
    }
    assert len(sizes) > 100  # the scan found the product, not an empty folder
    too_long = {name: lines for name, lines in sorted(sizes.items()) if lines >= MAX_LINES}
    assert too_long == {}, f"split these by responsibility: {too_long}"
