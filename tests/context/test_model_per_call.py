"""The compaction seam: the executor holds no model; every call is given the client (or the model) it serves.

A /model switch, or a Plan/Team loop with a client of its own, can then never summarise or calibrate with a
stale client.
"""

from __future__ import annotations

from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.context import prompts
from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message, Usage
from paicli.llm.protocol import LLMClient
from paicli.testing.scripted_llm import ScriptedLLM
from tests.agent.fake_tools import FakeToolRunner, StaticPrompt
from tests.context.helpers import keeping_summary


def chat(turns: int) -> list[Message]:
    """About 1,600 tokens a turn: 7 turns pass the trigger of a 16K window (10K) and still fit the window."""
    history = [Message.system("sys")]
    for i in range(turns):
        history += [Message.user(f"Q{i} " + "内容" * 600), Message.assistant(f"A{i} " + "回答" * 600)]
    return history


def summarizer(name: str) -> ScriptedLLM:
    return ScriptedLLM(default_reply=keeping_summary, model_name=name)


def manager(**kwargs: object) -> AutoCompactionManager:
    """Built the way a session builds one, and without any model."""
    window = ContextProfile.from_window(16_000)
    return AutoCompactionManager(TokenCounter("heuristic"), window, **kwargs)  # type: ignore[arg-type]


def test_a_switch_of_model_between_two_calls_makes_the_second_summary_ask_the_new_model() -> None:
    first, second = summarizer("old"), summarizer("new")
    mgr = manager()
    assert mgr.compact_now(chat(4), llm=first).compacted
    asked = first.calls
    result = mgr.before_call(chat(7), None, llm=second)  # automatic: over the trigger
    assert result.strategy == "full_summary" and asked >= 1 and second.calls >= 1
    assert first.calls == asked  # the old client was not asked again


def test_a_manager_built_without_a_model_works_until_a_call_gives_one() -> None:
    mgr = manager()
    history = chat(7)
    snapshot = list(history)
    manual = mgr.compact_now(history, llm=None)  # no model: no summary, a clear reason, the history kept
    assert not manual.compacted and manual.error and history == snapshot
    automatic = mgr.before_call(history, None, llm=None)
    assert not automatic.compacted and history == snapshot  # it fits the window: nothing else to do
    given = summarizer("given")
    assert mgr.compact_now(history, llm=given).compacted and given.calls >= 1


def test_the_calibration_is_keyed_by_the_model_each_call_names() -> None:
    mgr = manager()
    history = chat(2)
    local = mgr.measure(history, "old")
    request = mgr.counter.count_request(history, None)
    mgr.after_response(
        [*history, Message.assistant("答")], None, Usage(prompt_tokens=request * 2), model="old"
    )
    assert mgr.measure(history, "old") == local  # folded in only when a threshold needs it
    mgr.due(history, None, model="old")  # a threshold was compared: the figure is folded in for "old"
    assert mgr.measure(history, "old") == 2 * local
    assert mgr.measure(history, "new") == local  # the new model starts from its own count


def test_summaries_are_metered_around_the_client_of_the_call() -> None:
    wrapped: list[str] = []

    def meter(llm: LLMClient) -> LLMClient:
        wrapped.append(llm.model)
        return llm

    mgr = manager(meter=meter)
    assert mgr.compact_now(chat(4), llm=summarizer("switched")).compacted
    assert wrapped == ["switched"]


def test_an_agent_compacts_with_its_own_client() -> None:
    """What a Plan task or Team member does: its loop's client is the one compaction is given."""
    mine = ScriptedLLM(["好的", "收到"], model_name="member-model", default_reply=keeping_summary)
    agent = ReactAgent(mine, FakeToolRunner({}), StaticPrompt(), context=manager())
    for text in ("第一件事", "第二件事"):
        agent.run(text + "内容" * 600, lambda _event: None, CancelToken())
    assert agent.compact_now().compacted
    assert mine.calls >= 3  # two answers, then the summary
    summary_request = mine.requests[2].messages[-1].content  # the same prefix, then the summary instruction
    assert summary_request == prompts.render("summary-inline.md", focus="")
