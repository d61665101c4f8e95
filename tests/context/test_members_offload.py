"""Issue 27: a Plan task and a Team member get managers with every collaborator given at construction, the
offloader too, so results of their latest response that cannot fit the window are offloaded by the window fit
(never cleared, never sent over the window), as the ReAct agent's are."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from paicli.agent.budget import AgentBudget
from paicli.agent.loop import LoopStats
from paicli.agent.plan.agent import PlanExecuteAgent, PlanSettings
from paicli.agent.plan.task import TaskEnv
from paicli.agent.ports import ContextPort, NoMemory
from paicli.agent.team.agent import TeamAgent, TeamEnv
from paicli.cancel import CancelToken
from paicli.config.compaction_values import CompactionValues, OffloadValues
from paicli.context.manager import AutoCompactionManager
from paicli.context.offload import ToolResultOffloader
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.context.unseen import OFFLOAD_NOTICE_MARK
from paicli.llm.messages import Message
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import Request, ScriptedLLM, tool_call_reply
from tests.agent.test_plan_agent import FakePrompts, Ledger, plan_reply
from tests.agent.test_team_agent import APPROVE, FakeTeamPrompts, role, steps_reply
from tests.tools.helpers import env, make_runner

WINDOW = 8_000
FILES = ("a.txt", "b.txt", "c.txt")
# Each result passes level 1 (the runner has no offloader), together they are far over the window.
READ_ALL = tool_call_reply(*[("read_file", json.dumps({"path": name})) for name in FILES])


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    for n, name in enumerate(FILES):
        (root / name).write_text("".join(f"line {i} of file {n}: value = {i * 7}\n" for i in range(450)))
    return root


def managers(root: Path, counter: TokenCounter) -> Callable[[], ContextPort]:
    profile = ContextProfile.from_window(WINDOW)

    def make() -> ContextPort:
        offloader = ToolResultOffloader(
            root, OffloadValues.parse(env()), context_trigger_tokens=profile.compression_trigger_tokens
        )
        return AutoCompactionManager(
            counter,
            profile,
            CompactionValues.parse(env()),
            offloader=offloader,
        )

    return make


def member_requests_after_reads(requests: list[Request]) -> list[list[Message]]:
    return [r.messages for r in requests if r.messages[-1].role == "tool"]


def assert_offloaded_within_the_window(requests: list[Request], counter: TokenCounter, root: Path) -> None:
    after = member_requests_after_reads(requests)
    assert after, "no member request carried the read results"
    for messages in after:
        assert_protocol_valid(messages)
        results = [m for m in messages if m.role == "tool"]
        assert any((m.content or "").startswith(OFFLOAD_NOTICE_MARK) for m in results)
        assert counter.count_messages(messages) <= WINDOW
    assert list((root / ".paicli" / "tool-outputs").rglob("*.txt"))


def read_then_answer(request: Request, done: str) -> Any:
    return done if request.messages[-1].role == "tool" else READ_ALL


def test_a_plan_task_offloads_unseen_results_that_cannot_fit(tmp_path: Path) -> None:
    root, counter = project(tmp_path), TokenCounter("heuristic")

    def route(request: Request) -> Any:
        if request.messages[0].content == "PLANNER":
            return plan_reply(("a", []))
        return read_then_answer(request, "任务a 完成")

    llm = ScriptedLLM(default_reply=route)
    task_env = TaskEnv(
        llm,
        make_runner(root),
        FakePrompts(),
        Ledger(),
        NoMemory(),
        100,
        managers(root, counter),
        AgentBudget,
        LoopStats(),
        "目标",
    )
    finished = PlanExecuteAgent(task_env, PlanSettings(max_parallel=1, max_replans=0)).run(
        "目标", lambda _e: None, CancelToken()
    )
    assert finished.status == "done", finished
    assert_offloaded_within_the_window(llm.requests, counter, root)


def test_a_team_worker_offloads_unseen_results_that_cannot_fit(tmp_path: Path) -> None:
    root, counter = project(tmp_path), TokenCounter("heuristic")

    def route(request: Request) -> Any:
        who = role(request)
        if who == "planner":
            return steps_reply(("s1", []))
        if who == "reviewer":
            return APPROVE
        return read_then_answer(request, "步骤完成")

    llm = ScriptedLLM(default_reply=route)
    team_env = TeamEnv(
        llm,
        make_runner(root),
        FakeTeamPrompts(),
        Ledger(),
        managers(root, counter),
        AgentBudget,
        LoopStats(),
        "团队目标",
    )
    finished = TeamAgent(team_env).run("团队目标", lambda _e: None, CancelToken())
    assert finished.status == "done", finished
    assert_offloaded_within_the_window(
        [r for r in llm.requests if role(r) not in ("planner", "reviewer")], counter, root
    )
