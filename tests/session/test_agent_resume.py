"""End to end with the real ReAct loop: the view rebuilt from the ledger is the history the model last saw."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.context.types import NO_COMPACTION, CompactionResult, CompactionStep, Strategy
from paicli.llm.messages import Message, Usage
from paicli.session.opener import LedgerOpener
from paicli.session.resume import load_view
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import ScriptedLLM, tool_call_reply
from tests.agent.fake_tools import FakeToolRunner, StaticPrompt

from .helpers import new_ledger

PLACEHOLDER = "[已清理的旧工具结果] read_file"


class PlannedContext:
    """A ContextPort that compacts on the calls it is told to, the way the real manager mutates in place."""

    def __init__(self) -> None:
        self.plan: list[Strategy | None] = []

    def before_call(
        self,
        history: list[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        cancel: object = None,
        announce: object = None,
        *,
        llm: object = None,
    ) -> CompactionResult:
        action = self.plan.pop(0) if self.plan else None
        before = len(history)
        if action == "tool_result_clearing":
            cleared = 0
            for index, message in enumerate(history):
                if message.role == "tool" and message.content != PLACEHOLDER:
                    history[index] = message.with_content(PLACEHOLDER)
                    cleared += 1
            step = CompactionStep(action, before, len(history), 900, 300, cleared)
            return CompactionResult(False, action, cleared, (step,))
        if action in ("full_summary", "session_memory"):
            last_user = max(i for i, m in enumerate(history) if m.role == "user")
            history[1:] = [
                Message.user(f"[已压缩的历史对话摘要]\n## 当前目标与成功条件\n（{action}）"),
                Message.assistant("好的，我已了解之前的进展。"),
                *history[last_user:],
            ]
            step = CompactionStep(action, before, len(history), 900, 200)
            return CompactionResult(True, action, 0, (step,))
        return NO_COMPACTION

    def after_response(
        self, history: Sequence[Message], tools: Any, usage: Usage | None, *, model: str = ""
    ) -> None:
        return None

    def compact_now(
        self, history: list[Message], focus: str | None = None, cancel: object = None, *, llm: object = None
    ) -> CompactionResult:
        self.plan.insert(0, "full_summary")
        return self.before_call(history, None, llm=None)

    def reset(self, history: list[Message]) -> None:
        return None


def run(agent: ReactAgent, text: str) -> None:
    agent.run(text, lambda event: None, CancelToken())


def test_rebuilt_view_matches_the_agent_history_through_every_compaction_level(
    tmp_path: Path, project: Path
) -> None:
    ledger = new_ledger(tmp_path, project)
    assert ledger.path is not None
    path = ledger.path
    llm = ScriptedLLM()
    tools = FakeToolRunner({"read_file": lambda call, cancel: "内容 " * 200})
    context = PlannedContext()
    agent = ReactAgent(llm, tools, StaticPrompt(), context=context, ledger=ledger)

    def turn(text: str, plan: list[Strategy | None]) -> None:
        context.plan = list(plan)
        llm.push(
            tool_call_reply(("read_file", '{"path":"a.md"}'), prefix=f"c{len(llm.requests)}"),
            Message.assistant(f"{text} 完成", reasoning_content="内部推理"),
        )
        run(agent, text)
        view = load_view(path).messages
        assert view == agent.history[1:]
        assert view[: len(llm.requests[-1].messages) - 1] == llm.requests[-1].messages[1:]
        assert_protocol_valid([agent.history[0], *view])

    turn("第一轮", [None, None])
    turn("第二轮", [None, "tool_result_clearing"])
    turn("第三轮", ["full_summary", None])
    turn("第四轮", ["session_memory", "tool_result_clearing"])
    agent.compact_now()
    assert load_view(path).messages == agent.history[1:]
    agent.clear()
    assert load_view(path).messages == [] == agent.history[1:]
    turn("清空之后", [None, None])

    resumed_ledger, resumed = LedgerOpener(()).resume(path)
    fresh = ScriptedLLM(["接着上次继续"])
    again = ReactAgent(
        fresh, tools, StaticPrompt("新的系统提示"), context=PlannedContext(), ledger=resumed_ledger
    )
    again.restore(resumed.messages)
    run(again, "继续")
    sent = fresh.requests[-1].messages
    assert sent[0].content == "新的系统提示" and sent[1:-1] == agent.history[1:]
    assert load_view(path).messages == again.history[1:]
