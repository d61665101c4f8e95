from __future__ import annotations

from dataclasses import dataclass, field

from paicli.cancel import CancelToken
from paicli.config.compaction_values import CompactionValues
from paicli.config.env import EnvLookup
from paicli.context.clearing import CLEARED_PREFIX
from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.summary import SharedPrefix, SummaryOutcome
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message, Usage
from paicli.llm.protocol import LLMClient, LLMError
from paicli.testing.scripted_llm import ScriptedLLM
from tests.context.conftest import MakeEnv
from tests.context.helpers import assert_pairs_valid, climb_at, keeping_summary, tool_round

MODEL = "scripted-model"  # ScriptedLLM's model: the calibration key


@dataclass
class FakeFull:
    compacts: bool = True
    calls: list[tuple[int, bool, int, str | None]] = field(default_factory=list)
    cuts: list[int | None] = field(default_factory=list)
    prefixes: list[SharedPrefix | None] = field(default_factory=list)

    def compact(
        self,
        history: list[Message],
        trigger: int,
        force: bool,
        retain: int,
        focus: str | None = None,
        cancel: CancelToken | None = None,
        cut: int | None = None,
        prefix: SharedPrefix | None = None,
        *,
        llm: LLMClient | None,
    ) -> SummaryOutcome:
        self.calls.append((trigger, force, retain, focus))
        self.cuts.append(cut)
        self.prefixes.append(prefix)
        if not self.compacts:
            return SummaryOutcome(False, len(history), len(history), 100, 100, "失败原因")
        before = len(history)
        history[1:-1] = [Message.user("[已压缩的历史对话摘要]\n摘要")]
        return SummaryOutcome(True, before, len(history), 100, 10)


@dataclass
class FakeSessionMemory:
    ready: bool = False
    enabled: bool = True
    prepared: int = 0
    asked: int = 0
    cleared: int = 0

    def prepare_if_needed(self, history: list[Message], trigger: int, llm: LLMClient | None) -> bool:
        self.prepared += 1
        return False

    def compact_if_ready(self, history: list[Message], trigger: int) -> bool:
        self.asked += 1
        if self.ready:
            history[1:-1] = [Message.user("[会话记忆摘要]\n记忆")]
        return self.ready

    def clear(self, history: list[Message]) -> None:
        self.cleared += 1


def counter() -> TokenCounter:
    return TokenCounter("heuristic")


def chat_history(turns: int = 6) -> list[Message]:
    history = [Message.system("sys")]
    for i in range(turns):
        history += [Message.user(f"Q{i} " + "内容" * 300), Message.assistant(f"A{i} " + "回答" * 300)]
    return history


def tool_history(rounds: int = 10) -> list[Message]:
    history = [Message.system("sys")]
    for i in range(1, rounds + 1):
        history.append(Message.user(f"Q{i} 读取文件 {i}"))
        history += tool_round(i)
        history.append(Message.assistant(f"A{i} 读完了"))
    return history


def manager(**kwargs: object) -> AutoCompactionManager:
    return AutoCompactionManager(
        counter(),
        ContextProfile.from_window(128_000),
        **kwargs,  # type: ignore[arg-type]
    )


def test_prefers_ready_session_memory_over_full_summary() -> None:
    full, session = FakeFull(), FakeSessionMemory(ready=True)
    history = chat_history()
    result = climb_at(manager(full=full, session_memory=session), history, 10, llm=None)
    assert result.compacted and result.strategy == "session_memory"
    assert full.calls == [] and session.asked == 1
    assert [s.strategy for s in result.steps] == ["session_memory"]
    assert result.steps[0].before_messages == 13 and result.steps[0].after_messages == 3


def test_falls_back_to_full_summary_when_session_memory_is_unavailable() -> None:
    full, session = FakeFull(), FakeSessionMemory(ready=False)
    result = climb_at(manager(full=full, session_memory=session), chat_history(), 10, llm=None)
    assert result.compacted and result.strategy == "full_summary"
    assert len(full.calls) == 1 and full.cuts[0] is not None  # the kept tail is chosen by tokens
    assert session.cleared == 1


def test_manual_compact_always_uses_full_summary() -> None:
    full, session = FakeFull(), FakeSessionMemory(ready=True)
    result = manager(full=full, session_memory=session).compact_now(chat_history(), focus="重点", llm=None)
    assert result.compacted and result.strategy == "full_summary"
    assert session.asked == 0 and session.prepared == 0
    assert full.calls == [(0, True, 1, "重点")]


def test_clears_old_tool_results_before_summarizing_and_skips_summary_when_enough() -> None:
    llm = ScriptedLLM([keeping_summary])
    history = tool_history(10)
    mgr = manager()
    trigger = mgr.measure(history, MODEL) - 10
    result = climb_at(mgr, history, trigger, llm=llm)
    assert not result.compacted
    # one batch: at least the reference's "all but the newest 3", on to the low watermark
    cleared = result.cleared_tool_results
    assert result.strategy == "tool_result_clearing" and cleared >= 7
    assert llm.calls == 0
    assert mgr.measure(history, MODEL) <= mgr.clearer.watermark(trigger) or cleared == 10
    assert sum(1 for m in history if (m.content or "").startswith(CLEARED_PREFIX)) == cleared
    assert len(result.steps) == 1 and result.steps[0].cleared_tool_results == cleared
    assert result.steps[0].before_messages == result.steps[0].after_messages == len(history)
    assert result.before_tokens > result.after_tokens
    assert_pairs_valid(history)


def test_still_summarizes_when_clearing_is_not_enough() -> None:
    llm = ScriptedLLM([keeping_summary])
    history = tool_history(10)
    history[3:3] = chat_history(3)[1:]  # conversation that clearing cannot shrink
    result = climb_at(manager(), history, 1000, llm=llm)
    assert result.compacted and result.strategy == "full_summary" and result.cleared_tool_results == 10
    assert llm.calls == 1
    assert [s.strategy for s in result.steps] == ["tool_result_clearing", "full_summary"]
    assert result.steps[1].before_tokens == result.steps[0].after_tokens
    assert result.steps[1].after_messages == len(history) < result.steps[1].before_messages
    assert (history[1].content or "").startswith("[已压缩的历史对话摘要]\n")
    assert history[3].role == "user" and Message.user("Q10 读取文件 10") in history  # latest stays verbatim
    assert_pairs_valid(history)


def test_session_memory_flag_comes_from_env(make_env: MakeEnv) -> None:
    def enabled(**values: str) -> bool:
        return CompactionValues.parse(make_env(**values)).session_memory

    assert enabled(PAICLI_SESSION_MEMORY_COMPACTION_ENABLED="true")
    assert not enabled(PAICLI_SESSION_MEMORY_COMPACTION_ENABLED="false")
    assert not enabled()
    on = AutoCompactionManager(
        counter(),
        None,
        CompactionValues.parse(make_env(PAICLI_SESSION_MEMORY_COMPACTION_ENABLED="on")),
    )
    assert on.session_memory_enabled


def test_non_positive_trigger_does_nothing() -> None:
    full = FakeFull()
    result = climb_at(manager(full=full), chat_history(), 0, llm=None)
    assert not result.changed and result.strategy == "none" and full.calls == []


def test_before_call_uses_profile_trigger_and_never_raises() -> None:
    class Exploding(FakeFull):
        def compact(self, *args: object, **kwargs: object) -> SummaryOutcome:
            raise RuntimeError("bug")

    history = chat_history()
    snapshot = list(history)
    mgr = AutoCompactionManager(counter(), ContextProfile.from_window(8_000), full=Exploding())
    result = mgr.before_call(history, [], llm=None)
    assert not result.changed and history == snapshot
    small = chat_history(1)
    assert not manager().before_call(small, None, llm=None).changed


def test_failed_summary_reports_error_and_leaves_history_usable() -> None:
    for reply in ["没有结构的摘要", RuntimeError("network down")]:
        llm = ScriptedLLM([reply, "仍然没有结构"])
        history = chat_history()
        snapshot = list(history)
        mgr = manager()
        result = climb_at(mgr, history, 10, llm=llm)
        assert not result.compacted and result.error
        assert history == snapshot
        manual = mgr.compact_now(history, llm=llm)
        assert not manual.compacted and not manual.changed and manual.error
        assert history == snapshot


def test_compact_now_with_nothing_to_compact_has_no_error() -> None:
    llm = ScriptedLLM([keeping_summary])
    history = [Message.system("sys"), Message.user("只有一个问题"), Message.assistant("回答")]
    result = manager().compact_now(history, llm=llm)
    assert not result.changed and result.error is None and llm.calls == 0


def test_manual_compact_retains_one_turn_without_clearing() -> None:
    llm = ScriptedLLM([keeping_summary])
    history = tool_history(4)
    result = manager().compact_now(history, llm=llm)
    assert result.compacted and result.cleared_tool_results == 0
    assert [s.strategy for s in result.steps] == ["full_summary"]
    assert history[3].content == "Q4 读取文件 4"
    assert not any((m.content or "").startswith(CLEARED_PREFIX) for m in history)


def test_calibration_from_usage_moves_the_threshold_figure() -> None:
    history = chat_history()
    mgr = manager()
    local = mgr.measure(history, MODEL)
    response = Message.assistant("答复")
    history.append(response)
    tools = [{"type": "function", "function": {"name": "noop"}}]
    request_tokens = mgr.counter.count_request(history[:-1], tools)
    mgr.after_response(history, tools, Usage(prompt_tokens=request_tokens * 2), model=MODEL)
    assert mgr.counter.last_provider_prompt_tokens == request_tokens * 2
    assert mgr.measure(history[:-1], MODEL) == local  # measuring has no side effect: nothing folded in yet
    assert mgr.context_report(history[:-1], tools, model=MODEL).compared_tokens == local * 2
    assert mgr.measure(history[:-1], MODEL) == local * 2
    mgr.after_response(history, tools, None, model=MODEL)  # no usage: nothing changes
    assert mgr.counter.ratio("scripted-model") == 2.0


def test_reset_clears_session_state() -> None:
    session = FakeSessionMemory()
    mgr = manager(session_memory=session)
    mgr.reset([])
    assert session.cleared == 1


def test_context_report_figures() -> None:
    mgr = manager()
    history = chat_history(2)
    tools = [{"type": "function", "function": {"name": "read_file"}}]
    report = mgr.context_report(history, tools, provider="test", cache_hit_ratio=0.5, model=MODEL)
    assert report.system_messages == 1 and report.conversation_messages == 4
    assert report.local_tokens == mgr.counter.count_request(history, tools)
    assert report.trigger_tokens == 95_000 and report.clear_trigger_tokens == 57_000
    assert report.provider_prompt_tokens is None and report.calibration_ratio is None


def test_one_long_turn_is_summarised_inside_the_turn_and_fits_the_window() -> None:
    """Issue 17.6: many tool rounds of one task: clearing alone cannot fit, so the earlier rounds of the same
    turn are summarised; the user's request and the latest (unseen) result stay verbatim."""
    history = [Message.system("sys"), Message.user("一个很长的任务")]
    for i in range(1, 500):  # even cleared, the placeholders of this many rounds outgrow the window
        history += tool_round(i, body="x" * 1_500)
    llm = ScriptedLLM(default_reply=keeping_summary)  # small window: the input comes in chunks
    mgr = AutoCompactionManager(counter(), ContextProfile.from_window(8_000))
    latest = history[-1]
    result = mgr.before_call(history, None, llm=llm)
    assert result.compacted and llm.calls >= 1
    assert mgr.measure(history, MODEL) <= 8_000 - mgr.profile.buffer_reserve
    assert (history[1].content or "").startswith("[已压缩的历史对话摘要]")
    assert history[3] == Message.user("一个很长的任务")
    assert history[-1] is latest
    assert_pairs_valid(history)


def test_failed_automatic_summary_waits_for_growth_before_retrying() -> None:
    llm = ScriptedLLM(["无结构", "仍无结构", keeping_summary])
    history = chat_history()
    mgr = manager()
    assert climb_at(mgr, history, 10, llm=llm).error
    assert llm.calls == 2
    history += [Message.user("短问题"), Message.assistant("短回答")]
    again = climb_at(mgr, history, 10, llm=llm)
    assert not again.changed and again.error is None and llm.calls == 2  # no new attempt yet
    history += chat_history(4)[1:]
    assert climb_at(mgr, history, 10, llm=llm).compacted and llm.calls == 3


def test_cancelled_summary_leaves_history_untouched() -> None:
    token = CancelToken()
    token.cancel()
    llm = ScriptedLLM([keeping_summary])
    history = chat_history()
    snapshot = list(history)
    result = manager().compact_now(history, cancel=token, llm=llm)
    assert not result.compacted and result.error and "取消" in result.error
    assert history == snapshot
    assert climb_at(manager(), history, 10, token, llm=ScriptedLLM([keeping_summary])).error
    assert history == snapshot


def test_failure_after_clearing_still_reports_the_changed_view() -> None:
    """Clearing runs in place before the summary: when the summary then breaks unexpectedly, the result must
    still say the view changed, so the loop writes a checkpoint of what the model will see."""

    class Exploding(FakeFull):
        def compact(self, *args: object, **kwargs: object) -> SummaryOutcome:
            raise RuntimeError("bug")

    history = tool_history() + chat_history()[1:]  # still above the trigger after clearing
    snapshot = list(history)
    mgr = AutoCompactionManager(counter(), ContextProfile.from_window(8_000), full=Exploding())
    result = mgr.before_call(history, [], llm=None)
    changed = [i for i, (a, b) in enumerate(zip(snapshot, history, strict=True)) if a is not b]
    assert changed and all(history[i].content.startswith(CLEARED_PREFIX) for i in changed)  # type: ignore[union-attr]
    assert result.changed and not result.compacted and result.error
    assert result.strategy == "tool_result_clearing" and result.cleared_tool_results == len(changed)
    step = result.steps[-1]
    assert (step.before_messages, step.after_messages) == (len(history), len(history))
    assert step.after_tokens < step.before_tokens
    assert_pairs_valid(history)


def busy_turns(turns: int, rounds: int) -> list[Message]:
    """Turns with many tool rounds each: cleared placeholders alone outgrow a small window."""
    history = [Message.system("sys")]
    for t in range(turns):
        history.append(Message.user(f"第{t}轮任务"))
        for r in range(rounds):
            history += tool_round(t * 1000 + r, body="数据" * 1_500)
        history.append(Message.assistant(f"第{t}轮完成"))
    history.append(Message.user("最新的任务"))
    history += tool_round(999, body="最新结果")
    return history


def test_retained_turns_that_do_not_fit_even_cleared_are_summarised_down_to_the_latest_turn() -> None:
    llm = ScriptedLLM(default_reply=keeping_summary)  # small window: the input comes in chunks
    history = busy_turns(2, 240)
    mgr = AutoCompactionManager(counter(), ContextProfile.from_window(8_000))
    limit = 8_000 - mgr.profile.buffer_reserve
    result = mgr.before_call(history, None, llm=llm)
    assert mgr.measure(history, MODEL) <= limit
    assert result.compacted and result.strategy == "full_summary" and llm.calls >= 1
    assert result.steps[0].strategy == "tool_result_clearing"
    assert (history[1].content or "").startswith("[已压缩的历史对话摘要]\n")
    assert (
        history[3] == Message.user("最新的任务")
        and history[-1].content == tool_round(999, body="最新结果")[1].content
    )
    assert_pairs_valid(history)


def test_window_fallback_summary_that_fails_is_not_retried_on_every_call() -> None:
    llm = ScriptedLLM(default_reply="没有结构的摘要")
    history = busy_turns(2, 240)
    mgr = AutoCompactionManager(counter(), ContextProfile.from_window(8_000))
    mgr.before_call(history, None, llm=llm)
    calls = llm.calls
    assert calls > 0
    mgr.before_call(history, None, llm=llm)
    mgr.before_call(history, None, llm=llm)
    assert llm.calls == calls  # no growth since the failure: no new summary attempt
    assert_pairs_valid(history)


def test_a_summary_that_failed_in_this_call_is_not_paid_for_twice_the_fallback_fits_the_window() -> None:
    llm = ScriptedLLM([LLMError("summary model down", 500, True), keeping_summary])
    history = busy_turns(3, 240)
    mgr = AutoCompactionManager(counter(), ContextProfile.from_window(8_000))
    result = mgr.before_call(history, None, llm=llm)
    assert llm.calls == 1  # one failed attempt, no second one in the same call
    assert result.strategy == "dropped_rounds" and not result.compacted and result.notice
    assert "摘要" in result.notice and result.error
    assert mgr.measure(history, MODEL) <= 8_000 - mgr.profile.buffer_reserve
    assert (history[1].content or "").startswith("[已省略的早期对话]")
    assert history[3] == Message.user("最新的任务")
    assert_pairs_valid(history)


# -- cache-aware summaries (beyond the reference) ----------------------------------------------------------

TOOL_DEFS = [{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}]


def small_window_manager(env: EnvLookup | None = None) -> AutoCompactionManager:
    values = CompactionValues.parse(env) if env is not None else None
    return AutoCompactionManager(counter(), ContextProfile.from_window(16_000), values)


def test_summary_request_starts_with_what_was_sent_even_after_clearing_in_the_same_pass() -> None:
    llm = ScriptedLLM([keeping_summary])
    history = [Message.system("sys")]
    for i in range(1, 11):
        history.append(Message.user(f"Q{i} " + "内容" * 760))
        history += tool_round(i, body="x" * 1500)
        history.append(Message.assistant(f"A{i} 读完了"))
    history.append(Message.user("继续"))
    sent = list(history)
    result = small_window_manager().before_call(history, TOOL_DEFS, llm=llm)
    assert [s.strategy for s in result.steps] == ["tool_result_clearing", "full_summary"]
    request = llm.requests[0]
    assert request.tool_choice == "none" and request.tools == TOOL_DEFS
    shared = request.messages[:-1]
    assert shared == sent[: len(shared)]  # as the model last saw it, so the provider serves it from cache
    assert any(m.role == "tool" and "x" * 1500 in (m.content or "") for m in shared)  # cleared in this pass


def test_the_kept_tail_is_cleared_in_the_same_pass_as_the_summary() -> None:
    llm = ScriptedLLM([keeping_summary])
    history = [Message.system("sys")]
    for i in range(1, 10):
        history += [Message.user(f"Q{i} " + "内容" * 400), Message.assistant(f"A{i} " + "回答" * 400)]
    for i in range(1, 3):
        history.append(Message.user(f"T{i} 读文件"))
        history += tool_round(i, body="x" * 1000)  # too small a batch for clearing alone
        history.append(Message.assistant(f"B{i} 读完了"))
    history.append(Message.user("继续"))
    m = small_window_manager()
    result = m.before_call(history, TOOL_DEFS, llm=llm)
    assert [s.strategy for s in result.steps] == ["full_summary", "tool_result_clearing"]
    assert (
        result.compacted and result.strategy == "full_summary"
    )  # recorded (and checkpointed) as the summary
    assert result.cleared_tool_results == 2 and result.steps[-1].replaced_call_ids == ("call-1", "call-2")
    assert m.measure(history, MODEL) < m.clearer.trigger_tokens(m.profile.compression_trigger_tokens)
    assert history[-1] == Message.user("继续")
    # the next requests of the turn find nothing to clear: no second cache break right after the summary
    assert not m.before_call(history, TOOL_DEFS, llm=llm).steps


def test_transcript_setting_restores_the_reference_summary_request(make_env: MakeEnv) -> None:
    llm = ScriptedLLM([keeping_summary])
    history = chat_history(8)
    m = small_window_manager(make_env(PAICLI_COMPACTION_SUMMARY_INPUT="transcript"))
    assert m.compact_now(history, llm=llm).compacted
    assert llm.requests[0].tools is None and "=== 待压缩的对话 ===" in (
        llm.requests[0].messages[-1].content or ""
    )


def test_a_shared_prefix_that_would_not_leave_room_for_the_summary_uses_the_transcript() -> None:
    big_tools = [
        {"type": "function", "function": {"name": f"tool_{i}", "description": "说明" * 700}}
        for i in range(12)
    ]
    for tools, form in ((TOOL_DEFS, "none"), (big_tools, None)):
        llm = ScriptedLLM([keeping_summary])
        m = small_window_manager()
        m.before_call(
            [Message.system("sys"), Message.user("你好")], tools, llm=llm
        )  # the tools the session sends
        history = chat_history(5)
        room = m.profile.window - m.profile.buffer_reserve - m.measure(history, MODEL)
        assert (m.counter.count_tools(tools) > room) == (form is None)  # only the big tools leave no room
        assert m.compact_now(history, llm=llm).compacted
        assert llm.requests[-1].tool_choice == form
