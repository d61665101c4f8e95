"""Property: Plan and Team runs recorded as turns of the main conversation (ReactAgent.record_run) fold back to
exactly the live view, whatever the scripted session does around them (compaction, /clear, resume)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from paicli.agent.events import RunFinished
from paicli.agent.plan.model import NodeState, Plan, PlanProgress, PlanTask, TaskType
from paicli.agent.plan.turn import RunStart, run_turn
from paicli.session.resume import load_view
from paicli.testing.protocol import assert_protocol_valid

from .fold_driver import WINDOW, new_session, step


def a_run(rng: random.Random, number: int) -> tuple[str, PlanProgress, RunFinished]:
    mode = rng.choice(("plan", "team"))
    tasks = tuple(PlanTask(f"t{n}", f"第 {n} 步" * rng.randint(1, 20), TaskType.FILE_WRITE) for n in range(4))
    states = {
        task.id: NodeState(
            rng.choice(("done", "failed", "skipped")),
            "结果" * rng.randint(0, 3000),
            files=tuple(f"src/f{number}_{k}.py" for k in range(rng.randint(0, 3))),
        )
        for task in tasks
    }
    status = rng.choice(("done", "partial", "error", "cancelled"))
    return mode, PlanProgress(Plan(f"目标 {number}", tasks), states), RunFinished(status, "答复", "原因")


@pytest.mark.parametrize("seed", range(4))
def test_orchestrated_turns_fold_back_to_the_live_view(tmp_path: Path, seed: int) -> None:
    session = new_session(tmp_path, seed)
    rng = random.Random(seed * 7919)  # its own stream: the session's draws stay those of its seed
    recorded = 0
    for turn in range(1, 21):
        step(session, turn)
        if rng.random() < 0.5:
            mode, progress, finished = a_run(rng, turn)
            start = RunStart(f"run{turn}", progress.plan.goal, progress.plan.goal)
            session.agent.record_run(run_turn(mode, start, progress, finished))
            recorded += 1
        assert session.ledger.path is not None
        folded = load_view(session.ledger.path)
        assert folded.messages == session.agent.history[1:], (seed, turn)
        assert folded.repaired == 0
    assert recorded > 0
    for request in session.script.requests:
        assert_protocol_valid(request)
        assert session.manager.measure(request, session.llm.model) <= WINDOW
