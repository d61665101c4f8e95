"""Look-alike distractor memories: what a long-lived store holds beside the facts a query is about.

`distractors(facts, size, project)` returns `size` memories generated from the given (id, content) facts,
deterministic for a seed, in four kinds that all look like the facts they come from:

- `global`: another project's fact saved with `--global`: the same sentence with other values (numbers,
  versions and one name changed), visible in every project;
- `global-named`: the same, naming the other project in the text;
- `component`: a fact about another component of this project (`<component>的…`), other values, project scope;
- `elsewhere`: another project's project-scoped fact (same sentence, other values), never visible here: it
  costs the index, not the ranking.

The facts themselves are meant to be this project's (project scope); the distractors never repeat a fact's
exact text. Reused by `evals.memory_evolution` (issue 37) to measure recall at 10k and 50k.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from paicli.context.estimate import estimate_tokens
from paicli.memory.entry import MemoryEntry

KINDS = ("global", "component", "elsewhere", "global-named")
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
    "搜索服务",
    "用户中心",
    "结算模块",
    "风控服务",
    "消息中心",
    "运营后台",
    "数据平台",
    "notify-service",
    "pricing-engine",
    "catalog-api",
    "ledger-worker",
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


def _generate(kind: str, content: str, names: Sequence[str], rng: random.Random, project: str) -> Distractor:
    varied = vary(content, names, rng)
    if kind == "component":
        return Distractor("", f"{rng.choice(COMPONENTS)}的{varied}", kind, project)
    other = rng.choice(OTHER_PROJECTS)
    if kind == "global-named":
        return Distractor("", f"{other} 项目：{varied}", kind, "")
    if kind == "elsewhere":
        return Distractor("", varied, kind, f"/work/{other}")
    return Distractor("", varied, kind, "")


def generate(facts: Sequence[tuple[str, str]], size: int, project: str, seed: int = 37) -> list[Distractor]:
    """`size` distractors, cycling over the facts and the kinds; none repeats a fact's text."""
    if not facts or size <= 0:
        return []
    rng = random.Random(seed)
    names = sorted({name for _, content in facts for name in _NAME.findall(content)})
    originals = {content for _, content in facts}
    result: list[Distractor] = []
    i = 0
    while len(result) < size:
        fact_id, content = facts[i % len(facts)]
        kind = KINDS[(i // len(facts)) % len(KINDS)]
        item = _generate(kind, content, names, rng, project)
        i += 1
        if item.content in originals:
            continue
        result.append(Distractor(f"la-{kind}-{fact_id}-{i}", item.content, kind, item.project))
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
