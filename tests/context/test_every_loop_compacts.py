"""Every model call of every loop goes through a real compaction manager (ReAct, the planner and replanner,
each Plan task, the Team planner, workers and reviewers), and a skill loaded inside a Plan task or by a Team
worker reaches that member's very next request.

The model fake gives each answer its own prompt_tokens figure; a real manager takes it in (after_response
sets the shared counter's last provider figure), a NullContext drops it. So the next call (and the end of
the run) finds out whether the loop that made the previous call had a real manager."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paicli.agent.budget import AgentBudget
from paicli.agent.loop import LoopStats
from paicli.agent.plan.agent import PlanExecuteAgent, PlanSettings
from paicli.agent.plan.task import TaskEnv
from paicli.agent.ports import ContextPort, NoMemory, NullContext
from paicli.agent.react import ReactAgent
from paicli.agent.team.agent import TeamAgent, TeamEnv
from paicli.cancel import CancelToken
from paicli.config.compaction_values import CompactionValues
from paicli.config.parsed import ParsedConfig
from paicli.config.values import PromptValues
from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import ChatResponse, Message, Usage
from paicli.llm.protocol import LLMError
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import Request, ScriptedLLM, tool_call_reply
from paicli.tools.skill_load import LoadSkillTool
from tests.agent.test_plan_agent import FakePrompts, Ledger, plan_reply
from tests.agent.test_team_agent import APPROVE, FakeTeamPrompts, role, steps_reply
from tests.tools.helpers import env, make_runner
from tests.tools.skill_helpers import catalog, dirs, write_skill

SKILL_BODY = "# Web Access\n先用 web_fetch 读取页面。"
LOAD = tool_call_reply(("load_skill", '{"name":"web-access"}'))


@dataclass
class StampingLLM:
    """Answers through `route`; every answer carries a new prompt_tokens figure that must reach a manager."""

    route: Callable[[Request], Any]
    counter: TokenCounter
    requests: list[Request] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # system prompts of calls whose figure went nowhere
    _stamp: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def model(self) -> str:
        return "stamping-model"

    def with_model(self, model: str) -> StampingLLM:
        return self

    def chat(self, messages: Any, tools: Any = None, **_: Any) -> ChatResponse:
        with self._lock:
            self.check()
            request = Request(list(messages), [dict(t) for t in tools] if tools else None, self.model)
            self.requests.append(request)
            reply = self.route(request)
            if isinstance(reply, Exception):  # no answer, no figure to hand on
                raise reply
            self._stamp = 10_000 + len(self.requests)
            self._system = request.messages[0].content or ""
        message = Message.assistant(reply) if isinstance(reply, str) else reply
        return ChatResponse(message, Usage(self._stamp, 1), "stop", self.model)

    def check(self) -> None:
        if self._stamp and self.counter.last_provider_prompt_tokens != self._stamp:
            self.dropped.append(self._system[:40])
        self._stamp = 0


def real_managers(counter: TokenCounter) -> Callable[[], ContextPort]:
    def make() -> ContextPort:
        return AutoCompactionManager(
            counter,
            ContextProfile.from_window(128_000),
            CompactionValues(session_memory=False),
        )

    return make


def skill_runner(tmp_path: Path) -> Any:
    write_skill(dirs(tmp_path).builtin, "web-access", "访问网页的决策手册", body=SKILL_BODY)
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    runner = make_runner(root)
    runner.register(LoadSkillTool.tool(catalog(tmp_path)))
    return runner


def skill_reached_the_next_request(requests: list[Request]) -> None:
    """The member's request right after its load_skill call ends with the tool result, then the body."""
    injected = [
        i
        for i, r in enumerate(requests)
        if r.messages[-1].role == "user" and SKILL_BODY in (r.messages[-1].content or "")
    ]
    assert injected, "no request carried the loaded skill"
    after = requests[injected[0]].messages
    before = requests[injected[0] - 1].messages  # the request answered with the load_skill call
    assert after[: len(before)] == before and len(after) == len(before) + 3
    assert after[-3].tool_calls[0].name == "load_skill" and after[-2].role == "tool"
    assert "## 已加载 Skill：web-access" in (after[-1].content or "")
    assert_protocol_valid(after)


def test_react_calls_go_through_a_real_manager(tmp_path: Path) -> None:
    counter = TokenCounter("heuristic")
    llm = StampingLLM(
        lambda r: "完成" if r.messages[-1].role != "user" or len(r.messages) > 2 else LOAD, counter
    )
    context = real_managers(counter)()
    agent = ReactAgent(llm, skill_runner(tmp_path), session_prompt(tmp_path), context=context)  # type: ignore[arg-type]
    finished = agent.run("帮我看看这个网页", lambda _e: None, CancelToken())
    llm.check()
    assert finished.status == "done" and len(llm.requests) >= 2
    assert llm.dropped == []


def session_prompt(tmp_path: Path) -> Any:
    from paicli.prompt.assembler import AgentPromptBuilder, PromptAssembler, PromptMode
    from paicli.prompt.repository import PromptRepository

    lookup = env({"PAICLI_PROMPT_RUNTIME_DATE": "2026-09-23", "PAICLI_PROMPT_RUNTIME_ZONE": "UTC"})
    assembler = PromptAssembler(PromptRepository(tmp_path, tmp_path / "home"), PromptValues.parse(lookup))
    return AgentPromptBuilder(assembler, PromptMode.AGENT)


def plan_route() -> Callable[[Request], Any]:
    """First plan: a fails at once (0/2 done: a replan); the new plan's task loads the skill, then answers."""
    plans = iter([plan_reply(("a", []), ("b", ["a"])), plan_reply(("c", []))])

    def route(request: Request) -> Any:
        if request.messages[0].content == "PLANNER":
            return next(plans)
        text = request.messages[1].content or ""
        if "任务a" in text:
            return LLMError("a 出错了")
        if request.messages[-1].role == "tool" or SKILL_BODY in (request.messages[-1].content or ""):
            return "任务c 完成"
        return LOAD

    return route


def test_planner_replanner_and_every_task_call_go_through_a_real_manager(tmp_path: Path) -> None:
    counter = TokenCounter("heuristic")
    llm = StampingLLM(plan_route(), counter)
    task_env = TaskEnv(
        llm,  # type: ignore[arg-type]
        skill_runner(tmp_path),
        FakePrompts(),
        Ledger(),
        NoMemory(),
        100,
        real_managers(counter),
        AgentBudget,
        LoopStats(),
        "目标",
    )
    agent = PlanExecuteAgent(task_env, PlanSettings(max_parallel=1, max_replans=1))
    finished = agent.run("目标", lambda _e: None, CancelToken())
    llm.check()
    planners = [r for r in llm.requests if r.messages[0].content == "PLANNER"]
    assert len(planners) == 2  # the planner and the replanner both ran
    assert finished.status in ("done", "partial")
    assert llm.dropped == []
    skill_reached_the_next_request([r for r in llm.requests if r.messages[0].content != "PLANNER"])


def test_the_same_check_catches_a_loop_without_a_manager(tmp_path: Path) -> None:
    counter = TokenCounter("heuristic")
    llm = StampingLLM(plan_route(), counter)
    task_env = TaskEnv(
        llm,  # type: ignore[arg-type]
        skill_runner(tmp_path),
        FakePrompts(),
        Ledger(),
        NoMemory(),
        100,
        NullContext,
        AgentBudget,
        LoopStats(),
        "目标",
    )
    PlanExecuteAgent(task_env, PlanSettings(max_parallel=1, max_replans=1)).run(
        "目标", lambda _e: None, CancelToken()
    )
    llm.check()
    assert llm.dropped and "PLANNER" in llm.dropped


def team_route(request: Request) -> Any:
    who = role(request)
    if who == "planner":
        return steps_reply(("s1", []), ("s2", ["s1"]))
    if who == "reviewer":
        return APPROVE
    if request.messages[-1].role == "tool" or SKILL_BODY in (request.messages[-1].content or ""):
        return "步骤完成"
    return LOAD


def test_team_planner_workers_and_reviewers_go_through_a_real_manager(tmp_path: Path) -> None:
    counter = TokenCounter("heuristic")
    llm = StampingLLM(team_route, counter)
    team_env = TeamEnv(
        llm,  # type: ignore[arg-type]
        skill_runner(tmp_path),
        FakeTeamPrompts(),
        Ledger(),
        real_managers(counter),
        AgentBudget,
        LoopStats(),
        "团队目标",
    )
    finished = TeamAgent(team_env).run("团队目标", lambda _e: None, CancelToken())
    llm.check()
    roles = {role(r) for r in llm.requests}
    assert {"planner", "reviewer"} <= roles and len(roles) >= 3, roles
    assert finished.status == "done", finished
    assert llm.dropped == []
    workers = [r for r in llm.requests if role(r) not in ("planner", "reviewer")]
    skill_reached_the_next_request(workers)


def test_plan_and_team_sessions_build_real_managers_with_the_offloader(tmp_path: Path) -> None:
    from paicli.cli.app_backend import AppBackend
    from paicli.cli.compose import build_components
    from paicli.config.env import EnvLookup
    from paicli.config.settings import load_settings
    from paicli.tools.approval import AutoApprover

    project = tmp_path / "project"
    project.mkdir()
    lookup = EnvLookup(
        environ={
            "HOME": str(tmp_path),
            "PAICLI_HOME": str(tmp_path / ".paicli"),
            "PAICLI_BASE_URL": "http://127.0.0.1:9/v1",
            "PAICLI_MODEL": "m",
            "PAICLI_MEMORY_AUTO_EXTRACT_ENABLED": "false",
        },
        cwd=project,
    )
    parts = build_components(
        load_settings(lookup, cwd=project), ParsedConfig.read(lookup), AutoApprover(), llm=ScriptedLLM()
    )
    core = AppBackend(parts).core
    made = core.runs.member_context()
    assert isinstance(made, AutoCompactionManager)
    assert made.offloader is parts.offloader and made.offloader is not None
    # the ReAct manager too, built with the offloader and (memory placement `turn`) the loop's memory wrapper
    assert core.compaction.offloader is parts.offloader
    assert core.compaction.turn_memory is not None
