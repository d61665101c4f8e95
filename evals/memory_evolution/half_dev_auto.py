"""Round 8 of the dev half (memextract, issue 37): how a durable statement sits in a user's turn on the automatic
path, with no we/our/project: the user's own lead-ins (顺便说下, 说一声, BTW, for the record), a statement after a
question in the same turn, a second fact after it, and a few plain declaratives without cue words. Written before
the product change, in my own words; no test case seen. `HALF` is `half_dev.HALF` with these added, so the dev
half the runner loads includes them.
"""

from __future__ import annotations

from dataclasses import replace

from evals.memory_evolution.half_dev import HALF as BASE
from evals.memory_evolution.spec import Family, Lang

FAMILIES = (
    Family("d8-en-s1", "state", "en", "{Scap} {EBE} {V} across every environment."),
    Family("d8-en-u1", "update", "en", "{Scap} was bumped to {V}."),
    Family("d8-zh-s1", "state", "zh", "{S}定成了{V}"),
    Family("d8-zh-u1", "update", "zh", "{S}后来定成了{V}"),
    Family("d8-mix-s1", "state", "mix", "{S} 定成了 {V}"),
)

WRAPPERS: dict[Lang, tuple[str, ...]] = {
    "zh": (
        "顺便说下，{X}。",
        "说一声，{X}。",
        "这个报错是怎么回事？{X}。",
        "{X}。备份保留一年。",
    ),
    "en": (
        "BTW, {X}",
        "For the record, {X}",
        "For the record: {X}",
        "Why is the build so slow? {X}",
        "{X} Backups are kept for a year.",
    ),
    "mix": (
        "顺便说下，{X}。",
        "btw，{X}。",
        "部署为什么这么慢？{X}。",
    ),
}

HALF = replace(
    BASE,
    families=BASE.families + FAMILIES,
    wrappers={lang: BASE.wrappers[lang] + WRAPPERS.get(lang, ()) for lang in BASE.wrappers},
)
