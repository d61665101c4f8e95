"""Recall among look-alikes: each case's facts as they should end up, plus N generated look-alike memories.

The look-alikes are about the same subjects, owned by someone else: other projects' global facts ("Orion-37
项目的代码审查人是刘洋", 60%) and other components of a case's own project (40%). Every entry gets an age drawn
from the last 60 days with a fixed seed, so recency favours no side. recall@5: the case's latest statement is
among the top 5 that `MemoryRetriever.top` returns for the case's question in the case's project.
"""

from __future__ import annotations

import random
import tempfile
import time
from collections.abc import Sequence
from datetime import datetime, timedelta, timezone
from pathlib import Path

from evals.memory_evolution.cases import Case, Statement
from evals.memory_evolution.spec import LANGS, Half
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.context.estimate import estimate_tokens
from paicli.memory.entry import MemoryEntry
from paicli.memory.locked_file import render_json
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.store import FILE_NAME, LongTermMemory

NOW = datetime(2026, 6, 1, tzinfo=timezone.utc)
SEED = 37
CODENAMES = (
    "Orion", "Vega", "Lyra", "Atlas", "Nova", "Rigel", "Altair", "Deneb", "Sirius", "Polaris", "Cygnus",
    "Draco", "Hydra", "Lynx", "Pavo", "Ara", "Carina", "Mensa", "Volans", "Pictor",
)  # fmt: skip
COMPONENTS = (
    ("支付服务", "the payment service"), ("报表服务", "the reporting service"), ("网关", "the gateway"),
    ("管理后台", "the admin console"), ("移动端", "the mobile app"), ("数据平台", "the data platform"),
    ("搜索服务", "the search service"), ("风控服务", "the risk service"), ("消息服务", "the messaging service"),
)  # fmt: skip


def _entry(text: str, project: str | None, rng: random.Random, ident: str, **extra: str) -> MemoryEntry:
    when = NOW - timedelta(hours=rng.uniform(1, 24 * 60))
    metadata = {"source": "fact", "scope": "project" if project else "global", **extra}
    if project:
        metadata["project"] = project
    return MemoryEntry.model_construct(
        id=ident,
        content=text,
        type="FACT",
        timestamp=when,
        last_verified_at=when,
        metadata=metadata,
        token_count=estimate_tokens(text),
    )


def ideal_entries(cases: Sequence[Case], rng: random.Random) -> list[MemoryEntry]:
    """Every case's setup as truths and its chain with all but the last statement superseded."""
    entries: list[MemoryEntry] = []
    for n, case in enumerate(cases):
        for k, statement in enumerate(case.setup):
            entries.append(_entry(statement.text, case.project, rng, f"fact-s{n}x{k}"))
        last = f"fact-c{n}x{len(case.chain) - 1}"
        for k, statement in enumerate(case.chain):
            ident = f"fact-c{n}x{k}"
            extra = {} if ident == last else {"supersededBy": last, "supersededAt": "2026-06-01T00:00:00Z"}
            entries.append(_entry(statement.text, case.project, rng, ident, **extra))
    return entries


def lookalikes(half: Half, cases: Sequence[Case], count: int, rng: random.Random) -> list[MemoryEntry]:
    entries: list[MemoryEntry] = []
    for n in range(count):
        subject = half.subjects[n % len(half.subjects)]
        lang = LANGS[(n // len(half.subjects)) % len(LANGS)]
        zh, en = subject.values[rng.randrange(len(subject.values))]
        if rng.random() < 0.6:
            name = f"{CODENAMES[rng.randrange(len(CODENAMES))]}-{rng.randrange(1, 1000)}"
            owner, project = (f"the {name} project" if lang == "en" else f"{name} 项目"), None
        else:
            zh_owner, en_owner = COMPONENTS[rng.randrange(len(COMPONENTS))]
            owner = en_owner if lang == "en" else zh_owner
            project = cases[rng.randrange(len(cases))].project
        term = subject.en if lang != "zh" else subject.zh
        text = half.neighbour[lang].format(
            Q=owner, S=term, BE=subject.zh_be, EBE=subject.en_be, V=en if lang == "en" else zh
        )
        entries.append(_entry(text, project, rng, f"fact-d{n}"))
    return entries


def recall_at(
    half: Half, cases: Sequence[Case], sizes: Sequence[int], sample: int = 4
) -> list[dict[str, float]]:
    """recall@5 for every `sample`-th case's question, at each distractor count."""
    rng = random.Random(SEED)
    base = ideal_entries(cases, rng)
    largest = lookalikes(half, cases, max(sizes, default=0), rng)
    questions = list(cases)[::sample]
    figures: list[dict[str, float]] = []
    for size in sizes:
        figures.append(_measure([*base, *largest[:size]], questions, size))
    return figures


def _finals(case: Case) -> set[str]:
    last: Statement = next(s for s in reversed(case.chain) if s.meaning == case.final)  # not an aside
    return {last.text.strip()}


def _measure(entries: list[MemoryEntry], questions: Sequence[Case], size: int) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="memevolve-recall-") as tmp:
        (Path(tmp) / FILE_NAME).write_text(render_json(entries), encoding="utf-8")
        env = EnvLookup(environ={})
        retriever = MemoryRetriever(
            LongTermMemory(Path(tmp), MemoryValues.parse(env)), MemoryValues.parse(env), lambda: NOW
        )
        started = time.perf_counter()
        retriever.top(questions[0].question, questions[0].project)  # index build, not counted per query
        build = time.perf_counter() - started
        hits = 0
        started = time.perf_counter()
        for case in questions:
            top = [item.entry.content for item in retriever.top(case.question, case.project)[:5]]
            hits += bool(_finals(case) & set(top))
        per_query = (time.perf_counter() - started) / len(questions)
    return {
        "distractors": size,
        "recall_at_5": hits / len(questions),
        "questions": len(questions),
        "first_query_s": build,
        "query_ms": per_query * 1000,
    }
