"""Run the generated cases in-process through the code paths the CLI uses.

`/save` goes through the REPL's parser and handler (`parse_save_args` + `run_save`), `save_memory` through the
ToolRunner (the user asked to remember it, and approves), automatic extraction through
`MemoryManager.extract_facts_from_user_turn` with the real AutoFactExtractor talking to the loopback server.
The light model that answers extraction and judge requests is the loopback server's responder.
"""

from __future__ import annotations

import itertools
import json
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path

from evals.memory_evolution import wiring
from evals.memory_evolution.cases import Case, Meaning, Statement
from evals.memory_evolution.oracle import JudgeMode, Oracle, responder
from paicli.cancel import CancelToken
from paicli.config import knobs
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.config.tool_values import ToolValues
from paicli.llm.client import OpenAIChatClient
from paicli.llm.messages import ToolCall
from paicli.memory import evolve
from paicli.memory.commands import parse_save_args, run_save
from paicli.memory.entry import MemoryEntry
from paicli.memory.extractor import AutoFactExtractor
from paicli.memory.guard import ExternalContextTracker
from paicli.memory.manager import MemoryManager
from paicli.memory.recall_block import memory_context_tokens
from paicli.memory.retriever import MemoryRetriever
from paicli.memory.store import LongTermMemory
from paicli.testing.openai_server import FakeOpenAIServer
from paicli.tools.approval import ApprovalState, AutoApprover
from paicli.tools.runner import ToolRunner

BUDGET = memory_context_tokens(128_000)
START = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


class SteppingClock:
    """Every reading is one second after the previous one: writes are ordered, runs reproducible."""

    def __init__(self) -> None:
        self._ticks = itertools.count()
        self._lock = threading.Lock()

    def __call__(self) -> datetime:
        with self._lock:
            return START + timedelta(seconds=next(self._ticks))


@dataclass
class Outcome:
    case: Case
    steps_ok: list[bool] = field(default_factory=list)  # after each correction step: only its value is true
    chain_ok: bool = False
    stale_injected: bool = False
    latest_injected: bool = False
    collateral: int = 0  # setup facts (bystanders, neighbours) no longer served as truths
    auto_stored: int = 0
    auto_total: int = 0
    trace: list[str] = field(default_factory=list)  # shown only for the dev half


class World:
    """One store, one loopback server, one retriever shared by every case's manager (each case a project)."""

    def __init__(self, cases: Sequence[Case], mode: JudgeMode, home: Path) -> None:
        self.oracle = Oracle(cases)
        self.mode = mode
        self.home = home
        self.clock = SteppingClock()
        self.env = EnvLookup(environ={"PAICLI_HOME": str(home)}, cwd=home)
        self.server = FakeOpenAIServer(responder=responder(self.oracle, mode, wiring.parse_judge_request))
        self.store = LongTermMemory(home / "memory", MemoryValues.parse(self.env), clock=self.clock)
        self.retriever = MemoryRetriever(self.store, MemoryValues.parse(self.env), self.clock)
        self.root = home / "workspace"
        self.root.mkdir(parents=True, exist_ok=True)

    def __enter__(self) -> World:
        self.server.start()
        self.llm = OpenAIChatClient(self.server.base_url, None, "fake-model", max_retries=0)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.stop()

    def manager(self, case: Case) -> MemoryManager:
        tracker = ExternalContextTracker(
            guard_enabled=knobs.MEMORY_DISABLE_ON_EXTERNAL_CONTEXT.read(self.env)
        )
        extractor = AutoFactExtractor(self.llm)
        manager = MemoryManager(
            self.store,
            case.project,
            MemoryValues.parse(self.env),
            self.clock,
            tracker,
            self.retriever,
            extractor,
            auto_extract=True,
        )
        wiring.attach_judge(manager, self.llm)
        return manager

    def write(self, manager: MemoryManager, statement: Statement) -> str:
        if statement.path == "save":
            reply = run_save(manager, parse_save_args("/save " + statement.text)).text
        elif statement.path == "tool":
            runner = ToolRunner(
                self.root,
                AutoApprover(),
                None,
                manager.tracker,
                manager.save_memory_tool,
                ApprovalState(),
                values=ToolValues.parse(self.env),
            )
            call = ToolCall("call-1", "save_memory", json.dumps({"fact": statement.text}, ensure_ascii=False))
            reply = runner.for_turn(statement.turn).run_call(call, CancelToken()).content
        else:
            saved = manager.extract_facts_from_user_turn(statement.turn)
            reply = f"auto: {[e.content for e in saved]}"
        wiring.settle(manager)
        return reply

    def truths(self, case: Case) -> list[tuple[MemoryEntry, Meaning | None]]:
        return [
            (e, self.oracle.meaning(e.content))
            for e in self.store.get_all(case.project)
            if e.scope == "project" and evolve.is_truth(e)
        ]


def _chain_truths(world: World, case: Case) -> list[Meaning]:
    return [m for _, m in world.truths(case) if m is not None and m.topic == case.final.topic]


def _holds(found: list[Meaning], expected: Meaning) -> bool:
    return bool(found) and all((m.value, m.negated) == (expected.value, expected.negated) for m in found)


def run_case(world: World, case: Case) -> Outcome:
    outcome = Outcome(case)
    manager = world.manager(case)
    for statement in case.setup:
        world.write(manager, statement)
    for step, statement in enumerate(case.chain):
        reply = world.write(manager, statement)
        truths = _chain_truths(world, case)
        ok = _holds(truths, statement.expected)
        if step > 0:
            outcome.steps_ok.append(ok)
        if statement.path == "auto":
            outcome.auto_total += 1
            outcome.auto_stored += any(
                e.content == statement.text.strip().rstrip(".。") for e in world.store.get_all(case.project)
            )
        flat = reply.replace("\n", " ⏎ ")
        outcome.trace.append(
            f"  {step} {statement.path:<4} {statement.family:<10} {'ok ' if ok else 'BAD'} "
            f"{statement.text!r}\n        -> {flat[:220]}"
        )
    outcome.chain_ok = _holds(_chain_truths(world, case), case.final)
    manager.context_for_query(case.question, BUDGET)
    injected = [world.oracle.meaning(c) for c in world.retriever.last_injected]
    topical = [m for m in injected if m is not None and m.topic == case.final.topic]
    final = (case.final.value, case.final.negated)
    outcome.stale_injected = any((m.value, m.negated) != final for m in topical)
    outcome.latest_injected = any((m.value, m.negated) == final for m in topical)
    setup_texts = {s.text.strip() for s in case.setup}
    live = {e.content for e, _ in world.truths(case)}
    outcome.collateral = sum(1 for text in setup_texts if text not in live)
    outcome.trace.append(f"  question {case.question!r} -> injected {world.retriever.last_injected!r}")
    return outcome


def run_cases(cases: Sequence[Case], mode: JudgeMode) -> list[Outcome]:
    # a background judge or extraction write may still be closing its lock file when the world ends
    with (
        tempfile.TemporaryDirectory(prefix="memevolve-", ignore_cleanup_errors=True) as tmp,
        World(cases, mode, Path(tmp)) as world,
    ):
        return [run_case(world, case) for case in cases]
