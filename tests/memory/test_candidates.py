"""The candidate lookup decides what a full scan decides (issue 49): on generated stores of look-alike facts
(same subjects with other values, inserted particles, punctuation, correction cues, negations, other scopes
and projects, superseded and pending entries), `evolve.decide` over the candidates equals `evolve.decide` over
every stored entry, and the plain store's duplicate check finds the same duplicates."""

from __future__ import annotations

import random

import pytest

from paicli.memory import evolve
from paicli.memory.dedup import ConflictDetector, is_duplicate
from paicli.memory.entry import MemoryEntry
from paicli.memory.state import StoreState
from paicli.memory.store_io import Txn
from tests.memory.helpers import entry

SUBJECTS = [
    "项目",
    "后端项目",
    "数据库",
    "缓存",
    "构建工具",
    "默认分支",
    "the backend",
    "our CI",
    "发布审批人",
    "连接池大小",
]
COPULAS = ["是", "用", "使用", "改成", "换成", " is ", " uses ", " is now "]
VALUES = [
    "Java 17",
    "Java 21",
    "Gradle",
    "Maven",
    "main",
    "develop",
    "PostgreSQL 15",
    "MySQL 8",
    "20",
    "32",
    "40",
]
TAILS = ["", "。", "了", "，之前说的 8080 是旧环境的", "，17 已经不用了", " again", "，那条作废", "!"]
PROJECTS = ["/a", "/b", " /a", ""]


def _fact(rng: random.Random) -> str:
    text = f"{rng.choice(SUBJECTS)}{rng.choice(COPULAS)}{rng.choice(VALUES)}{rng.choice(TAILS)}"
    if rng.random() < 0.2:
        text = "不" + text if rng.random() < 0.5 else text.replace("是", "不是", 1)
    return text


def _variant(text: str, rng: random.Random) -> str:
    """A look-alike of a stored text: a particle inserted, punctuation or width changed, a number changed."""
    choice = rng.randrange(5)
    if choice == 0 and len(text) > 2:
        at = rng.randrange(1, len(text))
        return text[:at] + rng.choice("的地得是") + text[at:]
    if choice == 1:
        return "  " + text.replace(" ", "，") + "。\n"
    if choice == 2:
        return text.translate(str.maketrans("0123456789", "１２３４５６７８９０"))
    if choice == 3:
        return "".join(str((int(ch) + 1) % 10) if ch.isdigit() else ch for ch in text)
    return rng.choice(["现在", "其实是", "更正："]) + text


def _metadata(rng: random.Random) -> tuple[str, str | None]:
    scope = rng.choice(["global", "project", "project"])
    return scope, (rng.choice(PROJECTS) if scope == "project" else None)


def _store(rng: random.Random, size: int) -> list[MemoryEntry]:
    entries: list[MemoryEntry] = []
    for i in range(size):
        text = _variant(rng.choice(entries).content, rng) if entries and rng.random() < 0.5 else _fact(rng)
        scope, project = _metadata(rng)
        extra: dict[str, str] = {}
        if rng.random() < 0.1:
            extra["supersededBy"] = "fact-someone"
        if rng.random() < 0.05:
            extra["conflictPending"] = "true"
        kind = "SUMMARY" if rng.random() < 0.05 else "FACT"
        entries.append(entry(text, scope, project, entry_id=f"fact-{i:08x}", kind=kind, **extra))
    return entries


def _ids(entries: tuple[MemoryEntry, ...] | list[MemoryEntry]) -> list[str]:
    return [e.id for e in entries]


@pytest.mark.parametrize("seed", range(12))
def test_decisions_over_the_candidates_equal_decisions_over_the_whole_store(seed: int) -> None:
    rng = random.Random(seed)
    stored = _store(rng, rng.randrange(20, 120))
    state = StoreState()
    state.load_entries(stored)
    for _ in range(25):
        text = _variant(rng.choice(stored).content, rng) if rng.random() < 0.7 else _fact(rng)
        scope, project = _metadata(rng)
        incoming = entry(text, scope, project, entry_id="fact-incoming")
        detector = ConflictDetector(rng.choice([0.8, 0.8, 0.5, 0.95, 1.0]))
        for allow in (False, True):
            full = evolve.decide(stored, incoming, detector, allow)
            found = Txn(state).candidates(incoming, detector.threshold, relations=not allow)
            assert len(found) <= len(stored)
            narrow = evolve.decide(found, incoming, detector, allow)
            assert (narrow.kind, _ids(narrow.targets)) == (full.kind, _ids(full.targets)), text
        duplicates = [e for e in stored if is_duplicate(e, incoming)]
        nearby = Txn(state).candidates(incoming, 0.8, relations=False)
        assert [e for e in nearby if is_duplicate(e, incoming)] == duplicates


def test_candidates_follow_writes_and_deletes() -> None:
    rng = random.Random(99)
    stored = _store(rng, 60)
    state = StoreState()
    state.load_entries(stored)
    detector = ConflictDetector(0.8)
    probe = entry("数据库是 PostgreSQL 15", "global", entry_id="fact-probe")
    Txn(state).candidates(probe, 0.8)  # builds the domain index
    added = entry("数据库是 PostgreSQL 16", "global", entry_id="fact-added")
    state.put(added)
    assert "fact-added" in _ids(Txn(state).candidates(probe, 0.8))
    state.delete("fact-added")
    assert "fact-added" not in _ids(Txn(state).candidates(probe, 0.8))
    everything = list(state.values())
    assert evolve.decide(Txn(state).candidates(probe, 0.8), probe, detector, False) == evolve.decide(
        everything, probe, detector, False
    )


def test_a_lookup_in_a_big_store_returns_few_candidates() -> None:
    stored = [
        entry(f"模块 m{i} 的负责人是 u{i}，代码在 repo-{i}", "global", entry_id=f"fact-{i:08x}")
        for i in range(3000)
    ]
    stored.append(entry("默认分支是 main", "global", entry_id="fact-branch"))
    state = StoreState()
    state.load_entries(stored)
    found = Txn(state).candidates(entry("默认分支是 develop", "global", entry_id="fact-new"), 0.8)
    assert _ids(found) == ["fact-branch"]


def test_a_small_domain_finds_its_neighbours_in_its_own_text_as_it_grows() -> None:
    # the project's facts are a small part of the store, so its own joined text is searched; rows written
    # after the first lookup extend it, and a text whose lower case is longer (`İ`) shifts no later row
    others = [
        entry(f"项目 p{i} 的部署工具是 Tool{i}", "project", f"/other{i % 7}", entry_id=f"fact-o{i:04x}")
        for i in range(200)
    ]
    state = StoreState()
    state.load_entries(
        [*others, entry("İİ 预发环境的告警阈值是 80%", "project", "/mine", entry_id="fact-m1")]
    )
    probe = entry("预发环境的告警阈值调到 90%", "project", "/mine", entry_id="fact-probe")
    assert _ids(Txn(state).candidates(probe, 0.8)) == ["fact-m1"]
    state.put(entry("Argo 是 İİİİ 部署工具", "project", "/mine", entry_id="fact-m2"))
    state.put(entry("预发环境的告警阈值是 85%", "project", "/mine", entry_id="fact-m3"))
    state.put(entry("预发环境的告警阈值是 70%", "project", "/other1", entry_id="fact-o-x"))
    assert _ids(Txn(state).candidates(probe, 0.8)) == ["fact-m1", "fact-m3"]
    state.delete("fact-m1")
    assert _ids(Txn(state).candidates(probe, 0.8)) == ["fact-m3"]
    deploy = entry("部署工具换成 Flux", "project", "/mine", entry_id="fact-probe2")
    assert _ids(Txn(state).candidates(deploy, 0.8)) == ["fact-m2"]
    everything = list(state.values())
    detector = ConflictDetector(0.8)
    for incoming in (probe, deploy):
        assert evolve.decide(
            Txn(state).candidates(incoming, 0.8), incoming, detector, False
        ) == evolve.decide(everything, incoming, detector, False)
