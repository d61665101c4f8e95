"""Golden-set cases, one case run through the real memory path, and the spec 11.1 scores."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.llm.protocol import LLMClient


@dataclass(frozen=True)
class Case:
    id: str
    category: str
    input: str
    expected_quotes: tuple[str, ...]
    # facts the user saved (`/save`) before this turn: a quote may give one of their subjects a new value
    stored: tuple[str, ...] = ()

    @property
    def negative(self) -> bool:
        return not self.expected_quotes


def load_cases(path: str | Path) -> list[Case]:
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    cases = []
    for raw in data["cases"]:
        case = Case(
            str(raw["id"]),
            str(raw.get("category", "")),
            str(raw["input"]),
            tuple(raw["expected_quotes"]),
            tuple(str(fact) for fact in raw.get("stored", ())),
        )
        missing = [q for q in case.expected_quotes if q not in case.input]
        if missing:
            raise ValueError(f"case {case.id}: expected quote is not verbatim in the input: {missing[0]!r}")
        cases.append(case)
    return cases


def match_counts(saved: Sequence[str], gold: Sequence[str]) -> tuple[int, int]:
    """(tp, fp): a saved fact is correct if it contains a gold quote not matched yet (gold in order, first wins)."""
    used = [False] * len(gold)
    tp = 0
    for fact in saved:
        for i, quote in enumerate(gold):
            if not used[i] and quote in fact:
                used[i] = True
                tp += 1
                break
    return tp, len(saved) - tp


@dataclass(frozen=True)
class CaseResult:
    case: Case
    saved: tuple[str, ...]
    tp: int
    fp: int
    model_calls: int

    @property
    def exact(self) -> bool:
        return self.tp == len(self.case.expected_quotes) and self.fp == 0

    @property
    def forbidden(self) -> int:
        return len(self.saved) if self.case.negative else 0


@dataclass(frozen=True)
class Summary:
    cases: int
    exact_cases: int
    precision: float
    recall: float
    f1: float
    forbidden_writes: int
    model_calls: int
    tokens_in: int = 0
    tokens_out: int = 0

    def contract_json(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "exact_cases": self.exact_cases,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "forbidden_writes": self.forbidden_writes,
            "model_calls": self.model_calls,
        }


def summarize(results: Sequence[CaseResult], tokens: tuple[int, int] = (0, 0)) -> Summary:
    tp = sum(r.tp for r in results)
    saved = sum(len(r.saved) for r in results)
    gold = sum(len(r.case.expected_quotes) for r in results)
    precision = tp / saved if saved else 0.0
    recall = tp / gold if gold else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Summary(
        cases=len(results),
        exact_cases=sum(1 for r in results if r.exact),
        precision=precision,
        recall=recall,
        f1=f1,
        forbidden_writes=sum(r.forbidden for r in results),
        model_calls=sum(r.model_calls for r in results),
        tokens_in=tokens[0],
        tokens_out=tokens[1],
    )


CallCounter = Callable[[], int]


def run_case(case: Case, client: LLMClient, calls: CallCounter, hardened: bool = True) -> CaseResult:
    """Fresh store in a temp dir holding the case's stored facts; the case's input goes through
    MemoryManager.extract_facts_from_user_turn."""
    from paicli.memory.extractor import AutoFactExtractor
    from paicli.memory.manager import MemoryManager
    from paicli.memory.store import LongTermMemory

    with tempfile.TemporaryDirectory(prefix="paicli-autofact-") as tmp:
        env = EnvLookup(environ={"HOME": tmp, "PAICLI_HOME": tmp}, cwd=Path(tmp))
        store = LongTermMemory(Path(tmp) / "memory", values=MemoryValues.parse(env))
        manager = MemoryManager(
            store, tmp, MemoryValues.parse(env), extractor=AutoFactExtractor(client, hardened=hardened)
        )
        manager.auto_extract_enabled = True
        for fact in case.stored:
            if not manager.store_fact(fact).written:
                raise ValueError(f"case {case.id}: stored fact was not written: {fact!r}")
        before = calls()
        saved = tuple(entry.content for entry in manager.extract_facts_from_user_turn(case.input))
        used = calls() - before
    tp, fp = match_counts(saved, case.expected_quotes)
    return CaseResult(case, saved, tp, fp, used)
