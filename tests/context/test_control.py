"""Issue 38 control: PAICLI_COMPACTION_TRIGGER says when summaries start; PAICLI_AUTO_COMPACT=off means no
automatic clearing or summary, and a request that would not fit is never sent; a notice comes before an
automatic summary."""

from __future__ import annotations

import pytest

from paicli.agent.events import AgentEvent, Notice
from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.config.compaction_values import CompactionValues
from paicli.config.env import ConfigError
from paicli.config.knob_types import trigger_parser
from paicli.context.clearing import CLEARED_PREFIX
from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.summariser import SUMMARY_ANNOUNCEMENT
from paicli.context.tokens import TokenCounter
from paicli.context.unseen import OFFLOAD_NOTICE_MARK
from paicli.llm.messages import Message
from paicli.testing.scripted_llm import ScriptedLLM
from tests.agent.fake_tools import FakeToolRunner, StaticPrompt
from tests.context.conftest import MakeEnv
from tests.context.helpers import assert_pairs_valid, keeping_summary, tool_round

MODEL = "scripted-model"  # ScriptedLLM's model: the calibration key

COUNTER = TokenCounter("heuristic")


@pytest.mark.parametrize(
    ("raw", "value"), [("0.6", 0.6), ("60%", 0.6), ("12000", 12_000.0), ("12,000", 12_000.0)]
)
def test_the_trigger_is_a_share_of_the_window_or_a_token_count(raw: str, value: float) -> None:
    assert trigger_parser("PAICLI_COMPACTION_TRIGGER", raw) == pytest.approx(value)


@pytest.mark.parametrize("raw", ["0", "1", "1.5", "999", "120%", "-0.3", "abc", "12000.5"])
def test_a_trigger_that_is_neither_is_a_clear_error(raw: str) -> None:
    with pytest.raises(ConfigError, match="PAICLI_COMPACTION_TRIGGER"):
        trigger_parser("PAICLI_COMPACTION_TRIGGER", raw)


def test_the_profile_places_the_trigger_inside_what_a_request_may_take() -> None:
    assert ContextProfile.from_window(16_000).compression_trigger_tokens == 10_000
    assert ContextProfile.from_window(16_000, trigger=0.4).compression_trigger_tokens == 6_400
    assert ContextProfile.from_window(16_000, trigger=9_000).compression_trigger_tokens == 9_000
    assert ContextProfile.from_window(16_000, trigger=0.4).compression_trigger_ratio == pytest.approx(0.4)
    assert (
        ContextProfile.from_window(16_000, trigger=0.99).compression_trigger_tokens == 14_000
    )  # window - reserve
    assert "压缩阈值: 40.0% (6400 tokens)" in ContextProfile.from_window(16_000, trigger=0.4).summary()


def chat(turns: int, size: int = 600) -> list[Message]:
    history = [Message.system("sys")]
    for i in range(turns):
        history += [Message.user(f"第{i}个问题 " + "问" * size), Message.assistant(f"回答{i} " + "答" * size)]
    return [*history, Message.user("最新的问题")]


def test_summaries_start_at_the_configured_trigger(make_env: MakeEnv) -> None:
    history = chat(6)  # about 4,900 heuristic tokens: under the 16K default trigger, over 0.25 of the window
    llm = ScriptedLLM(default_reply=keeping_summary)
    default = AutoCompactionManager(
        COUNTER, ContextProfile.from_window(16_000), CompactionValues.parse(make_env())
    )
    assert not default.before_call(list(history), None, llm=llm).changed and llm.calls == 0
    early = AutoCompactionManager(
        COUNTER,
        ContextProfile.from_window(16_000),
        CompactionValues.parse(make_env(PAICLI_COMPACTION_TRIGGER="0.25")),
    )
    assert early.profile.compression_trigger_tokens == 4_000
    result = early.before_call(history, None, llm=llm)
    assert result.compacted and llm.calls >= 1
    assert (history[1].content or "").startswith("[已压缩的历史对话摘要]")
    assert early.context_report(history, None, model=MODEL).trigger_tokens == 4_000


def test_a_notice_comes_before_an_automatic_summary_and_names_compact_show(make_env: MakeEnv) -> None:
    lines: list[tuple[str, int]] = []
    llm = ScriptedLLM(default_reply=keeping_summary)
    env = make_env(PAICLI_COMPACTION_TRIGGER="0.25")
    mgr = AutoCompactionManager(COUNTER, ContextProfile.from_window(16_000), CompactionValues.parse(env))
    mgr.before_call(chat(6), None, announce=lambda text: lines.append((text, llm.calls)), llm=llm)
    assert lines == [(SUMMARY_ANNOUNCEMENT, 0)]  # before the summary request went out
    assert "/compact show" in SUMMARY_ANNOUNCEMENT and "\n" not in SUMMARY_ANNOUNCEMENT
    lines.clear()
    mgr.compact_now(chat(6), llm=llm)  # the user asked: no notice needed
    mgr.before_call(
        chat(1), None, announce=lambda text: lines.append((text, llm.calls)), llm=llm
    )  # nothing to do
    assert lines == []


def off_manager(make_env: MakeEnv, window: int = 8_000) -> AutoCompactionManager:
    env = make_env(PAICLI_AUTO_COMPACT="off")
    return AutoCompactionManager(COUNTER, ContextProfile.from_window(window), CompactionValues.parse(env))


def with_results(turns: int, size: int = 1_500) -> list[Message]:
    history = [Message.system("sys")]
    for i in range(turns):
        history.append(Message.user(f"第{i}轮：读文件"))
        history += tool_round(i, body="数据 " * size)
        history.append(Message.assistant(f"第{i}轮完成"))
    return [*history, Message.user("最新的任务")]


def test_auto_compaction_off_clears_and_summarises_nothing_below_the_window(make_env: MakeEnv) -> None:
    llm = ScriptedLLM(default_reply=keeping_summary)
    mgr = off_manager(make_env)
    history = with_results(3, 1_300)  # over the trigger and the clearing trigger, under the window
    assert mgr.measure(history, MODEL) > mgr.profile.compression_trigger_tokens
    before = list(history)
    result = mgr.before_call(history, None, llm=llm)
    assert not result.changed and result.stop is None and history == before and llm.calls == 0


def test_auto_compaction_off_stops_a_request_that_would_not_fit(make_env: MakeEnv) -> None:
    llm = ScriptedLLM(default_reply=keeping_summary)
    mgr = off_manager(make_env)
    history = with_results(8)
    before = list(history)
    result = mgr.before_call(history, None, llm=llm)
    assert result.stop is not None and "/compact" in result.stop and "PAICLI_AUTO_COMPACT=off" in result.stop
    assert history == before and llm.calls == 0
    assert not any((m.content or "").startswith(CLEARED_PREFIX) for m in history)
    assert mgr.compact_now(history, llm=llm).compacted  # /compact still works
    assert mgr.before_call(history, None, llm=llm).stop is None


class Offloads:
    enabled = True

    def __init__(self) -> None:
        self.files: list[str] = []

    def offload(self, tool: str, content: str, head_chars: int) -> str:
        self.files.append(content)
        return f"{OFFLOAD_NOTICE_MARK}\n文件: .paicli/tool-outputs/s/{len(self.files):03d}-{tool}.txt\n{content[:100]}"


def test_auto_compaction_off_still_offloads_unseen_oversized_results(make_env: MakeEnv) -> None:
    llm = ScriptedLLM()
    offloads = Offloads()
    env = make_env(PAICLI_AUTO_COMPACT="off")
    mgr = AutoCompactionManager(
        COUNTER, ContextProfile.from_window(8_000), CompactionValues.parse(env), offloader=offloads
    )
    history = [Message.system("sys"), Message.user("读一个大文件"), *tool_round(1, body="大" * 12_000)]
    result = mgr.before_call(history, None, llm=llm)
    assert result.stop is None and [s.strategy for s in result.steps] == ["tool_result_offload"]
    assert offloads.files and (history[-1].content or "").startswith(OFFLOAD_NOTICE_MARK)
    assert_pairs_valid(history)


def test_a_turn_that_would_not_fit_ends_with_the_message_and_sends_nothing(make_env: MakeEnv) -> None:
    llm = ScriptedLLM(["不应该被调用"])
    mgr = off_manager(make_env)
    agent = ReactAgent(llm, FakeToolRunner(), StaticPrompt(), context=mgr)
    for message in with_results(8)[1:-1]:
        agent.conversation.append(message, "test")
    events: list[AgentEvent] = []
    finished = agent.run("继续", events.append, CancelToken())
    assert finished.status == "error" and finished.error is not None and "/compact" in finished.error
    assert llm.calls == 0
    assert not [e for e in events if isinstance(e, Notice) and e.text == SUMMARY_ANNOUNCEMENT]
