"""Round 10 of the dev half (memstale4, issue 37): the shapes of the lead's fresh-wording trial, in my own words
around them. A bare `S V` with no verb (`连接池大小 50`), later named by its head only; a move that names the old
value after `off` and the new one after `to`; `B of the S replaced A`, the subject inside a prepositional phrase
after the new value; a denial of the stored value with the new value in the next clause. Written before the
product change; no test case seen. `HALF` is `half_dev_auto.HALF` with these added.
"""

from __future__ import annotations

from dataclasses import replace

from evals.memory_evolution.half_dev_auto import HALF as BASE
from evals.memory_evolution.spec import Family

FAMILIES = (
    Family("d10-zh-s1", "state", "zh", "{S} {V}"),
    Family("d10-mix-s1", "state", "mix", "{S} {V}"),
    Family("d10-en-o1", "update_old", "en", "We moved the {S} off {O} to {V}."),
    Family("d10-en-o2", "update_old", "en", "{V} of the {S} replaced {O}."),
    Family("d10-en-o3", "update_old", "en", "{V} for the {S} replaced {O} last week."),
    Family("d10-zh-o1", "update_old", "zh", "{S}不再是{O}了；{V}接手"),
    Family("d10-en-x1", "negate_replace", "en", "The {S} no longer {EBE} {O}; {V} from now on."),
)

HALF = replace(BASE, families=BASE.families + FAMILIES)
