"""Issue 49: the owner rule reads each memory once. The index keeps every document's owner reading and saves it;
`demote_elsewhere` parses only the memories whose owner can change the order, and orders exactly as the rule
says when every memory before this project's last match is read."""

from __future__ import annotations

import json
import random
from collections.abc import Collection, Sequence
from datetime import timezone
from pathlib import Path

import numpy as np
import pytest
from evals.retrieval.lookalike import distractors

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory import ranking, readings
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.stopwords import content_terms
from paicli.memory.tokenize import tokenize
from paicli.memory.vector import build_index
from paicli.memory.vector_file import load, snapshot, write
from tests.retrieval.fakes import NOW, ListStore, entry

DATASET = Path(__file__).resolve().parents[2] / "evals" / "retrieval" / "dataset.json"
PROJECT = "/repo"


def _reference(
    contents: Sequence[str], ordered: list[int], own: list[bool], query: str, terms: Collection[str]
) -> list[int]:
    """The owner rule read off its definition: every memory up to this project's last match is parsed."""
    wanted = ranking.normalized_query(query)
    reach = max(
        (p for p, row in enumerate(ordered) if own[p] and any(t in contents[row].lower() for t in terms)),
        default=-1,
    )
    last: dict[str, int] = {}
    elsewhere: list[tuple[int, list[str]]] = []
    for position in range(reach + 1):
        text = contents[ordered[position]]
        owner, subject = ranking.qualifier(text)
        if not ranking.named(owner, wanted):
            held = [term for term in terms if ranking.subject_holds(subject, term)]
            if held:
                elsewhere.append((position, held))
        elif own[position]:
            last.update((term, position) for term in terms if term in text.lower())
    places = [float(p) for p in range(len(ordered))]
    for position, held in elsewhere:
        behind = max(last.get(term, -1) for term in held)
        if behind > position:
            places[position] = behind + 0.5
    return [ordered[i] for i in sorted(range(len(ordered)), key=lambda i: places[i])]


def _demoted(contents: Sequence[str], ordered: list[int], own: list[bool], query: str) -> list[int]:
    terms = content_terms(tokenize(query.lower()))
    rows = np.asarray(ordered, dtype=np.int64)
    holding = {t: np.asarray([t in contents[r].lower() for r in ordered], dtype=bool) for t in terms}
    order = ranking.demote_elsewhere(contents, rows, np.asarray(own, dtype=bool), query, holding)
    assert sorted(order.tolist()) == list(range(len(ordered)))  # a permutation
    return [ordered[i] for i in order.tolist()]


def test_the_rule_orders_like_its_definition_on_the_look_alike_store() -> None:
    data = json.loads(DATASET.read_text(encoding="utf-8"))
    facts = [(m["id"], m["content"]) for m in data["memories"]]
    others = distractors(facts, 1500, PROJECT, now=NOW)
    contents = [c for _, c in facts] + [d.content for d in others]
    mine = [True] * len(facts) + [d.metadata.get("project") == PROJECT for d in others]
    rng = random.Random(49)
    moved = 0
    for query in [q["query"] for q in data["queries"]]:
        terms = content_terms(tokenize(query.lower()))
        sharing = [r for r, text in enumerate(contents) if any(t in text.lower() for t in terms)]
        for _ in range(3):
            rng.shuffle(sharing)
            own = [mine[r] for r in sharing]
            expected = _reference(contents, sharing, own, query, terms)
            assert _demoted(contents, sharing, own, query) == expected, query
            moved += expected != sharing
    assert moved > 20  # the rule did move memories: the comparison is not between two unchanged lists


@pytest.mark.parametrize(
    "texts",
    [
        ["ＡＰＩ 网关的端口号是 8080", "API 端口是 80", "订单服务的端口号是 9090"],  # full width, a synonym
        ["the payment service's timeout isn't 30 s", "the timeout is 10 s", "timeout of the gateway is 5 s"],
        ["支付服务的发布 的审批人是李娜", "发布审批人是王强", "网关那边的发布审批人是周敏"],
        [
            "Vega’s release approver is Li Na",
            "release approver: Wang Qiang",
            "For Apollo, the approver is Zhou",
        ],
    ],
)
@pytest.mark.parametrize(
    "query", ["端口号是多少", "What is the timeout?", "发布审批人是谁", "release approver"]
)
def test_the_rule_orders_like_its_definition_on_unusual_texts(texts: list[str], query: str) -> None:
    terms = content_terms(tokenize(query.lower()))
    for own in ([False, True, False], [True, True, True], [False, True, True], [True, False, True]):
        for ordered in ([0, 1, 2], [2, 0, 1]):
            mine = [own[r] for r in ordered]
            assert _demoted(texts, ordered, mine, query) == _reference(texts, ordered, mine, query, terms)


def _retriever(entries: list[object], path: Path) -> MemoryRetriever:
    values = MemoryValues.parse(EnvLookup(environ={}))
    return MemoryRetriever(ListStore(entries), values, clock=lambda: NOW, zone=timezone.utc, index_path=path)  # type: ignore[arg-type]


OWNED = [
    entry("ours", "审批人是王强", metadata={"scope": "project", "project": PROJECT}),
    entry("component", "支付服务的发布审批人是李娜", metadata={"scope": "project", "project": PROJECT}),
    entry(
        "apollo", "For the Apollo project, the release approver is Zhou Min.", metadata={"scope": "global"}
    ),
]


def test_a_loaded_index_ranks_with_its_saved_readings(tmp_path: Path) -> None:
    path = tmp_path / "long_term_memory.vectors.npz"
    first = _retriever(list(OWNED), path)
    expected = [r.entry.id for r in first.top("发布审批人是谁", PROJECT)]
    assert expected[0] == "ours" and first.readings_parsed == len(OWNED)  # each parsed once, when indexed
    assert first.flush_index()
    second = _retriever(list(OWNED), path)
    assert [r.entry.id for r in second.top("发布审批人是谁", PROJECT)] == expected
    assert second.readings_parsed == 0 and second.index_builds == 0


def test_readings_round_trip_and_stay_tied_to_their_parser(tmp_path: Path) -> None:
    texts = [e.content for e in OWNED]
    index = build_index(texts)
    path = tmp_path / "long_term_memory.vectors.npz"
    write(snapshot(index), path)
    loaded = load(path)
    assert loaded is not None
    # a saved reading is used as saved: the text handed in is not parsed again
    assert [loaded.readings.get(p, "") for p in range(len(texts))] == [ranking.qualifier(t) for t in texts]
    assert loaded.readings.parsed == 0
    arrays = snapshot(index)
    arrays["meta"] = np.array(json.dumps({**json.loads(str(arrays["meta"])), "readings": "another parser"}))
    write(arrays, path)
    other = load(path)
    assert other is not None  # the index itself is still good
    assert other.readings.get(1, texts[1]) == ranking.qualifier(texts[1]) and other.readings.parsed == 1


def test_an_index_saved_before_readings_parses_on_demand_and_saves_them(tmp_path: Path) -> None:
    texts = [e.content for e in OWNED]
    arrays = snapshot(build_index(texts))
    for name in ("readings", "reading_offsets", "reading_known"):
        del arrays[name]
    path = tmp_path / "long_term_memory.vectors.npz"
    write(arrays, path)
    old = load(path)
    assert old is not None
    assert old.readings.get(1, texts[1]) == ("支付服务", "发布审批人") and old.readings.parsed == 1
    write(snapshot(old), path)
    again = load(path)
    assert again is not None and again.readings.get(1, "") == ("支付服务", "发布审批人")
    assert again.readings.get(0, texts[0]) == ranking.qualifier(texts[0]) and again.readings.parsed == 1


def test_the_encoding_keeps_owner_and_subject() -> None:
    for reading in [("", ""), ("支付服务", "发布审批人"), ("", "release approver"), ("vega-3", "build tool")]:
        assert readings.decode(readings.encode(reading)) == reading
