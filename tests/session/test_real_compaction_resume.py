"""The real AutoCompactionManager in the real ReAct loop with a real ledger: at every model request the view
rebuilt from the ledger is exactly the request's messages after the system prompt, through tool-result
clearing, session memory, full summaries, /compact, /clear and a resume in a new agent."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from paicli.agent.events import AgentEvent, Compacted
from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.config.compaction_values import CompactionValues
from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message
from paicli.session.ledger import ConversationLedger
from paicli.session.opener import LedgerOpener
from paicli.session.resume import load_view
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import Request, ScriptedLLM, tool_call_reply
from tests.agent.fake_tools import FakeToolRunner, StaticPrompt
from tests.context.helpers import keeping_summary

from .helpers import new_ledger

WINDOW = 16_000
SIDE_SYSTEMS = ("压缩对话记录", "会话记忆")


def is_side_call(request: Request) -> bool:
    first = request.messages[0].content or ""
    return request.tool_choice == "none" or any(marker in first for marker in SIDE_SYSTEMS)


class Responder:
    """Answers summaries with a structured text, otherwise one tool call per turn then a long answer; at every
    main request it checks the ledger against what is being sent."""

    def __init__(self, path: Path, window: int = WINDOW, answer_repeat: int = 120) -> None:
        self.path = path
        self.window = window
        self.answer_repeat = answer_repeat
        self.main_requests = 0
        self.calls = 0

    def __call__(self, request: Request) -> Message | str:
        if is_side_call(request):
            return keeping_summary(request)
        self.main_requests += 1
        assert load_view(self.path).messages == request.messages[1:]
        assert_protocol_valid(request.messages)
        assert TokenCounter("heuristic").count_messages(request.messages) < self.window
        if request.messages[-1].role == "user":
            self.calls += 1
            return tool_call_reply(("read_file", f'{{"path":"f{self.calls}.txt"}}'), prefix=f"c{self.calls}")
        return "这一轮的结论已经整理好了。" * self.answer_repeat


def build(
    ledger: ConversationLedger, responder: Responder, prompt: str = "## Identity\n你是 paicli。"
) -> tuple[ReactAgent, AutoCompactionManager]:
    window = responder.window
    llm = ScriptedLLM(default_reply=responder)
    tools = FakeToolRunner({"read_file": lambda call, cancel: f"{call.arguments} " + "x" * 6_000})
    counter = TokenCounter("heuristic")
    # session memory on, with its background job run inline so the test is deterministic
    manager = AutoCompactionManager(
        counter,
        ContextProfile.from_window(window),
        CompactionValues(session_memory=True),
        submit=lambda job: job(),
    )
    return ReactAgent(llm, tools, StaticPrompt(prompt), context=manager, ledger=ledger), manager


def test_ledger_view_equals_every_request_through_all_levels_clear_and_resume(
    tmp_path: Path, project: Path
) -> None:
    ledger = new_ledger(tmp_path, project)
    assert ledger.path is not None
    responder = Responder(ledger.path)
    agent, _ = build(ledger, responder)
    events: list[AgentEvent] = []
    run: Callable[[str], None] = lambda text: agent.run(text, events.append, CancelToken())  # noqa: E731

    for i in range(1, 13):
        run(f"第{i}轮：读取 f{i}.txt 并总结")
    strategies = {s.strategy for e in events if isinstance(e, Compacted) for s in e.result.steps}
    assert {"tool_result_clearing", "full_summary"} <= strategies or {
        "tool_result_clearing",
        "session_memory",
    } <= strategies, strategies
    assert load_view(ledger.path).messages == agent.history[1:]

    assert agent.compact_now("保留文件名").compacted
    assert load_view(ledger.path).messages == agent.history[1:]
    run("压缩之后再读一个文件")

    agent.clear()
    assert load_view(ledger.path).messages == [] == agent.history[1:]
    run("清空之后的新问题")
    last_view = agent.history[1:]

    resumed_ledger, resumed = LedgerOpener(()).resume(ledger.path)
    assert resumed.messages == last_view
    again, _ = build(resumed_ledger, responder, "新的系统提示")
    again.restore(resumed.messages)
    before = responder.main_requests
    again.run("恢复之后继续", events.append, CancelToken())
    assert responder.main_requests > before  # the responder compared the ledger with each of these requests
    assert again.history[1 : len(last_view) + 1] == last_view


def test_session_memory_and_full_summary_checkpoints_are_both_exercised(
    tmp_path: Path, project: Path
) -> None:
    """Two separate managers: one whose session memory is ready, one where it is off, so each level writes its
    own checkpoint and the responder's check covers both."""
    for session_memory in (True, False):
        ledger = new_ledger(tmp_path / str(session_memory), project)
        assert ledger.path is not None
        # session memory needs room for a 10k..40k verbatim tail below the trigger: a 64K window
        responder = Responder(ledger.path, 64_000, 400)
        agent, manager = build(ledger, responder)
        manager.session_memory.enabled = session_memory
        events: list[AgentEvent] = []
        for i in range(1, 25):
            agent.run(f"第{i}轮：读取 f{i}.txt 并总结", events.append, CancelToken())
        strategies = {s.strategy for e in events if isinstance(e, Compacted) for s in e.result.steps}
        expected = "session_memory" if session_memory else "full_summary"
        assert expected in strategies, strategies
        checkpoints = [e for e in ledger.read_all() if e.event == "view_checkpoint"]
        assert any(e.source == f"automatic:{expected}" for e in checkpoints)
        assert load_view(ledger.path).messages == agent.history[1:]
