"""Look-alike distractor memories: what a long-lived store holds beside the facts a query is about.

`distractors(facts, size, project)` returns `size` memories generated from the given (id, content) facts,
deterministic for a seed, in four kinds that all look like the facts they come from:

- `global`: another project's fact saved with `--global`: the same sentence with other values (numbers,
  versions and one name changed), visible in every project;
- `global-named`: the same, naming the other project in the text;
- `component`: the same fact said of one component of this project (`<component>的…`, other values), project
  scope: more specific than the fact, so a query that names no component is about the fact itself;
- `elsewhere`: another project's project-scoped fact (same sentence, other values), never visible here: it
  costs the index, not the ranking.

They come in rounds over the facts, eight rounds repeating: one of components, two of other projects' global
facts, one of named global facts, four of other projects' own facts. A project has a bounded number of
components (`COMPONENTS`: nine), so each fact gets at most nine component look-alikes, one per component;
later component rounds become other projects' facts. The volume of a big store comes from other projects.
At 50k distractors over 208 facts, each fact has about 100 visible look-alikes (60 global, 30 named, 9
component). No distractor repeats a fact's text or another distractor's text in the same scope.
Reused by `evals.memory_evolution` (issue 37) to measure recall at 10k and 50k.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from paicli.context.estimate import estimate_tokens
from paicli.memory.entry import MemoryEntry

ROUNDS = ("component", "global", "elsewhere", "global-named", "elsewhere", "global", "elsewhere", "elsewhere")
OTHER_PROJECTS = (
    "atlas",
    "beacon",
    "cobalt",
    "delta-ops",
    "ember",
    "falcon",
    "granite",
    "harbor",
    "iris",
    "juniper",
    "北极星",
    "天枢",
    "青鸟",
    "长河",
)
COMPONENTS = (
    "库存服务",
    "网关",
    "报表模块",
    "用户中心",
    "结算模块",
    "风控服务",
    "消息中心",
    "运营后台",
    "数据平台",
)
_NUMBER = re.compile(r"\d+")
_NAME = re.compile(r"(?<![\w.-])[A-Za-z][A-Za-z0-9]{2,}(?![\w])")


@dataclass(frozen=True)
class Distractor:
    id: str
    content: str
    kind: str
    project: str  # "" for a global fact


def _other_number(match: re.Match[str], rng: random.Random) -> str:
    digits = match.group(0)
    if len(digits) == 1:
        return str(rng.choice([d for d in range(10) if str(d) != digits]))
    low, high = 10 ** (len(digits) - 1), 10 ** len(digits) - 1
    while True:
        value = str(rng.randint(low, high))
        if value != digits:
            return value


def vary(content: str, names: Sequence[str], rng: random.Random) -> str:
    """The same sentence with other values: every number changed, and one name swapped for another."""
    varied = _NUMBER.sub(lambda m: _other_number(m, rng), content)
    found = _NAME.findall(varied)
    if found and names and (varied == content or rng.random() < 0.5):
        old = rng.choice(found)
        choices = [n for n in names if n.lower() != old.lower()]
        if choices:
            varied = varied.replace(old, rng.choice(choices), 1)
    return varied


def _generate(
    kind: str, content: str, names: Sequence[str], rng: random.Random, project: str, which: int
) -> Distractor:
    varied = vary(content, names, rng)
    if kind == "component":
        return Distractor("", f"{COMPONENTS[which]}的{varied}", kind, project)
    other = rng.choice(OTHER_PROJECTS)
    if kind == "global-named":
        return Distractor("", f"{other} 项目：{varied}", kind, "")
    if kind == "elsewhere":
        return Distractor("", varied, kind, f"/work/{other}")
    return Distractor("", varied, kind, "")


def generate(facts: Sequence[tuple[str, str]], size: int, project: str, seed: int = 37) -> list[Distractor]:
    """`size` distractors in rounds over the facts (see the module doc); no text repeats within a scope."""
    if not facts or size <= 0:
        return []
    rng = random.Random(seed)
    names = sorted({name for _, content in facts for name in _NAME.findall(content)})
    seen = {(project, content) for _, content in facts}
    result: list[Distractor] = []
    i = 0
    while len(result) < size:
        fact_id, content = facts[i % len(facts)]
        round_no = i // len(facts)
        i += 1
        kind = ROUNDS[round_no % len(ROUNDS)]
        which = sum(1 for r in range(round_no) if ROUNDS[r % len(ROUNDS)] == "component")
        if kind == "component" and which >= len(COMPONENTS):
            kind = "elsewhere"
        item = _generate(kind, content, names, rng, project, which % len(COMPONENTS))
        if (item.project, item.content) in seen or (kind != "elsewhere" and ("", item.content) in seen):
            continue
        seen.add((item.project, item.content))
        result.append(Distractor(f"la-{kind}-{fact_id}-{i}", item.content, kind, item.project))
        if i > 100 * (size + len(facts)):
            raise ValueError("the facts give too few distinct look-alikes for this size")
    return result


def distractors(
    facts: Sequence[tuple[str, str]],
    size: int,
    project: str,
    seed: int = 37,
    now: datetime | None = None,
) -> list[MemoryEntry]:
    """The distractors as stored memories, written between one day and one hundred days before `now`."""
    moment = now if now is not None else datetime.now(timezone.utc)
    rng = random.Random(seed + 1)
    entries = []
    for item in generate(facts, size, project, seed):
        stamp = moment - timedelta(hours=rng.randint(24, 2400))
        metadata = (
            {"source": "fact", "scope": "project", "project": item.project}
            if item.project
            else {
                "source": "fact",
                "scope": "global",
            }
        )
        entries.append(
            MemoryEntry(
                id=item.id,
                content=item.content,
                type="FACT",
                timestamp=stamp,
                last_verified_at=stamp,
                metadata=metadata,
                token_count=estimate_tokens(item.content),
            )
        )
    return entries
