"""The loop at a model's limits (issue 40), with a scripted model: a reply cut by the output limit (continued,
flagged, its tool calls never run) and a request refused as longer than the server's context (its figures taken,
the view compacted, one retry; else a clear end and a view no longer than before the turn)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from paicli.agent.events import AgentEvent, Notice, RunFinished
from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.context.types import NO_COMPACTION, CompactionResult, CompactionStep
from paicli.llm.messages import ChatResponse, Message, ToolCall
from paicli.llm.protocol import ContextLimit, LLMError
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import ScriptedLLM, tool_call_reply
from tests.agent.fake_tools import FakeToolRunner, StaticPrompt
from tests.agent.test_react import ListLedger


def cut(text: str, *calls: ToolCall) -> ChatResponse:
    return ChatResponse(Message.assistant(text or None if calls else text, calls), None, "length", "m")


def run(agent: ReactAgent, text: str) -> tuple[RunFinished, list[AgentEvent]]:
    events: list[AgentEvent] = []
    return agent.run(text, events.append, CancelToken()), events


def notices(events: list[AgentEvent]) -> list[str]:
    return [event.text for event in events if isinstance(event, Notice)]


def test_a_cut_text_answer_is_continued_and_joined_into_one_reply() -> None:
    llm = ScriptedLLM([cut("第一部分，"), cut("第二部分，"), "第三部分。"])
    agent = ReactAgent(llm, FakeToolRunner(), StaticPrompt())
    finished, events = run(agent, "写一段长文")
    assert finished == RunFinished("done", "第一部分，第二部分，第三部分。")
    assert [m.role for m in agent.history] == ["system", "user", "assistant"]  # one reply, no instructions
    assert agent.history[-1].content == "第一部分，第二部分，第三部分。"
    second = llm.requests[1].messages
    assert second[-2] == Message.assistant("第一部分，") and "接着写" in (second[-1].content or "")
    assert llm.requests[2].messages[-2] == Message.assistant("第一部分，第二部分，")
    assert [n for n in notices(events) if "续写" in n] == [
        "✂️ 回答因长度上限被截断，正在自动续写（第 1/2 次）",
        "✂️ 回答因长度上限被截断，正在自动续写（第 2/2 次）",
    ]


def test_continuations_are_bounded_and_the_answer_is_flagged_truncated() -> None:
    llm = ScriptedLLM(default_reply=cut("还没写完"))
    agent = ReactAgent(llm, FakeToolRunner(), StaticPrompt())
    finished, events = run(agent, "写一段长文")
    assert finished.status == "done" and finished.truncated
    assert finished.answer == "还没写完" * 3 and llm.calls == 3
    assert "⚠️ 回答因长度上限被截断，内容不完整（已自动续写 2 次）" in notices(events)


def test_a_cut_tool_call_is_never_run_and_the_model_is_told() -> None:
    runner = FakeToolRunner({"write_file": lambda call, cancel: "已写入"})
    half = ToolCall("c1", "write_file", '{"path": "a.py", "content": "def f(')
    llm = ScriptedLLM(
        [cut("", half), tool_call_reply(("write_file", '{"path": "a.py", "content": "x"}')), "好了"]
    )
    agent = ReactAgent(llm, runner, StaticPrompt())
    finished, events = run(agent, "写 a.py")
    assert finished.status == "done" and not finished.truncated
    assert [call.arguments for call in runner.executed] == [
        '{"path": "a.py", "content": "x"}'
    ]  # only the whole one
    told = llm.requests[1].messages
    assert told[-1].role == "tool" and told[-1].tool_call_id == "c1" and "未执行" in (told[-1].content or "")
    assert_protocol_valid(told)
    assert_protocol_valid(agent.history)
    assert any("1 个工具调用没有执行" in n for n in notices(events))


class RefusingContext:
    """A compaction manager that learns from a refusal (`fits`: whether compacting can then help)."""

    def __init__(self, fits: bool) -> None:
        self.fits = fits
        self.limits: list[ContextLimit] = []
        self.calls = 0

    def before_call(
        self,
        history: list[Message],
        tools: Any,
        cancel: Any = None,
        announce: Any = None,
        *,
        llm: object = None,
    ) -> CompactionResult:
        self.calls += 1
        if not self.limits or len(history) <= 2:
            return NO_COMPACTION
        before = len(history)
        history[1:-1] = [Message.user("[摘要] 之前的对话"), Message.assistant("好的")]
        step = CompactionStep("full_summary", before, len(history), 9000, 3000)
        return CompactionResult(True, "full_summary", 0, (step,))

    def after_response(self, history: Sequence[Message], tools: Any, usage: Any, *, model: str = "") -> None:
        return None

    def compact_now(
        self, history: list[Message], focus: str | None = None, cancel: Any = None, *, llm: object = None
    ) -> CompactionResult:
        return NO_COMPACTION

    def server_limit(
        self,
        history: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        limit: ContextLimit,
        *,
        model: str = "",
    ) -> bool:
        self.limits.append(limit)
        return self.fits

    def reset(self, history: list[Message]) -> None:
        return None


def refusal() -> LLMError:
    return LLMError("模型服务拒绝了请求（HTTP 400）", 400, context_limit=ContextLimit(8192, 9325))


def earlier_turns(agent: ReactAgent) -> None:
    for n in range(3):
        assert run(agent, f"第 {n} 轮")[0].status == "done"


def test_a_refused_request_is_compacted_with_the_servers_figures_and_sent_once_more() -> None:
    context = RefusingContext(fits=True)
    llm = ScriptedLLM(["一", "二", "三", refusal(), "压缩后回答了"])
    agent = ReactAgent(llm, FakeToolRunner(), StaticPrompt(), context=context)
    earlier_turns(agent)
    finished, events = run(agent, "第四轮")
    assert finished == RunFinished("done", "压缩后回答了")
    assert context.limits == [ContextLimit(8192, 9325)]
    assert len(llm.requests[4].messages) < len(llm.requests[3].messages)  # the retry went out compacted
    assert any("服务端窗口 8,192 tokens，本次请求 9,325 tokens" in n for n in notices(events))


def test_a_second_refusal_ends_the_turn_clearly_and_drops_it_from_the_view() -> None:
    context, ledger = RefusingContext(fits=True), ListLedger()
    llm = ScriptedLLM(["一", "二", "三", refusal(), refusal(), "下一轮照常"])
    agent = ReactAgent(llm, FakeToolRunner(), StaticPrompt(), context=context, ledger=ledger)
    earlier_turns(agent)
    before = agent.history
    finished, _ = run(agent, "第四轮的很长的输入")
    assert finished.status == "error" and finished.overflow
    assert "PAICLI_CONTEXT_WINDOW" in (finished.error or "") and "/compact" in (finished.error or "")
    assert "压缩后重试仍未成功" in (finished.error or "") and "例如 8192" in (finished.error or "")
    assert "第四轮的很长的输入" not in "".join(m.text for m in agent.history)
    assert len(agent.history) <= len(before)  # never further over than before the turn
    assert ledger.events("view_checkpoint")[-1][1] == "context_overflow"
    assert run(agent, "第五轮")[0].status == "done"
    assert "第四轮的很长的输入" not in "".join(m.text for m in llm.requests[-1].messages)


def test_figures_that_cannot_help_end_the_turn_without_a_retry() -> None:
    context = RefusingContext(fits=False)
    llm = ScriptedLLM([refusal()])
    agent = ReactAgent(llm, FakeToolRunner(), StaticPrompt(), context=context)
    finished, _ = run(agent, "一个服务端装不下的输入")
    assert finished.overflow and llm.calls == 1 and "重试" not in (finished.error or "")
    assert [m.role for m in agent.history] == ["system"]
