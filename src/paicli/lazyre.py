"""Regular expressions compiled at their first use, not at import (issue 49): a module whose patterns a plain
`paicli -p` never runs (most secret shapes, the Han-script ranges of retrieval) should not pay to compile them at
start-up. `functools.cache` keeps the one compiled pattern, so later calls cost a function call."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

Lazy = Callable[[], "re.Pattern[str]"]


def lazy_pattern(source: str, flags: int | re.RegexFlag = 0) -> Lazy:
    """A function returning `re.compile(source, flags)`, compiled at its first call and kept."""

    @functools.cache
    def compiled() -> re.Pattern[str]:
        return re.compile(source, flags)

    return compiled
