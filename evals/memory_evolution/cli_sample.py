"""A sample of the cases through the real CLI, so the wiring is proven end to end.

Every statement is its own process on one PAICLI_HOME (different days): `/save` through a piped REPL, save_memory
through `paicli -p "<remember …>" --yes` (the loopback model calls the tool with the statement), automatic
extraction through `paicli -p "<turn>"` with extraction on. The question is asked with `paicli -p`; the memories
injected into its first agent request are read from the request's `## 相关长期记忆` block.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evals.memory_evolution import wiring
from evals.memory_evolution.cases import Case, Statement
from evals.memory_evolution.oracle import EXTRACT_MARK, JudgeMode, Oracle, responder
from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory import evolve
from paicli.memory.store import LongTermMemory
from paicli.testing.openai_server import FakeOpenAIServer, Reply
from paicli.testing.proc import paicli_env, run_paicli

HEADER = "## 相关长期记忆"
_LINE = re.compile(r"^- \[[A-Z_]+\](?:\[[^\]]*\])* (.*)（写入 ")


@dataclass(frozen=True)
class CliOutcome:
    case: Case
    chain_ok: bool
    stale_injected: bool
    latest_injected: bool
    failures: int  # processes that exited non-zero


def pick(cases: Sequence[Case], per_path: int = 1) -> list[Case]:
    """The first cases whose chain uses a single path, `per_path` of each, spread over languages."""
    chosen: list[Case] = []
    for path in ("save", "tool", "auto"):
        found = [c for c in cases if c.paths == {path}]
        step = max(1, len(found) // max(1, per_path))
        chosen.extend(found[::step][:per_path])
    return chosen


def _agent_responder(
    oracle: Oracle, mode: JudgeMode, remembered: dict[str, str]
) -> Callable[[dict[str, Any]], Reply | str]:
    side = responder(oracle, mode, wiring.parse_judge_request)

    def answer(body: dict[str, Any]) -> Reply | str:
        messages = body["messages"]
        user = next((str(m.get("content") or "") for m in reversed(messages) if m["role"] == "user"), "")
        if body.get("tools") and messages[-1]["role"] == "user" and EXTRACT_MARK not in user:
            fact = next((f for turn, f in remembered.items() if turn in user), None)
            if fact is not None:
                return Reply.tool_calls(("save_memory", json.dumps({"fact": fact}, ensure_ascii=False)))
        return side(body)

    return answer


def injected(body: dict[str, Any]) -> list[str]:
    text = "\n".join(str(m.get("content") or "") for m in body["messages"])
    if HEADER not in text:
        return []
    lines = text.split(HEADER, 1)[1].splitlines()
    return [m.group(1) for m in (_LINE.match(line) for line in lines) if m]


def _step(statement: Statement, env: dict[str, str], project: Path) -> int:
    if statement.path == "save":
        done = run_paicli([], env, project, stdin=f"/save {statement.text}\n", timeout=180)
    elif statement.path == "tool":
        done = run_paicli(["-p", statement.turn, "--yes"], env, project, timeout=180)
    else:
        done = run_paicli(["-p", statement.turn], env, project, timeout=180)
    return done.returncode


def run_sample(cases: Sequence[Case], mode: JudgeMode) -> list[CliOutcome]:
    oracle = Oracle(cases)
    remembered = {s.turn: s.text for c in cases for s in c.chain if s.path == "tool"}
    outcomes: list[CliOutcome] = []
    with FakeOpenAIServer(responder=_agent_responder(oracle, mode, remembered)) as server:
        for case in cases:
            with tempfile.TemporaryDirectory(prefix="memevolve-cli-") as tmp:
                outcomes.append(_run_case(case, oracle, server, Path(tmp)))
    return outcomes


def _run_case(case: Case, oracle: Oracle, server: FakeOpenAIServer, root: Path) -> CliOutcome:
    home, project = root / "home", root / "project"
    project.mkdir(parents=True)
    env = paicli_env(
        home, server.base_url, PAICLI_MEMORY_AUTO_EXTRACT_ENABLED="true", PAICLI_MEMORY_JUDGE="true"
    )
    failures = 0
    for statement in (*case.setup, *case.chain):
        failures += _step(statement, env, project) != 0
    before = len(server.requests)
    failures += run_paicli(["-p", case.question], env, project, timeout=180).returncode != 0
    agent = [b for b in server.requests[before:] if b.get("tools")]
    shown = [oracle.meaning(c) for c in (injected(agent[0]) if agent else [])]
    store = LongTermMemory(home / ".paicli" / "memory", MemoryValues.parse(EnvLookup(environ={})))
    truths = [oracle.meaning(e.content) for e in store.get_all() if evolve.is_truth(e)]
    final = (case.final.value, case.final.negated)
    chain = [m for m in truths if m is not None and m.topic == case.final.topic]
    topical = [m for m in shown if m is not None and m.topic == case.final.topic]
    return CliOutcome(
        case,
        bool(chain) and all((m.value, m.negated) == final for m in chain),
        any((m.value, m.negated) != final for m in topical),
        any((m.value, m.negated) == final for m in topical),
        failures,
    )
