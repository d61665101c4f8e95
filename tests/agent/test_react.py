from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from typing import Any

from paicli.agent.budget import AgentBudget
from paicli.agent.events import (
    AgentEvent,
    Compacted,
    Notice,
    RunFinished,
    TextDelta,
    ToolFinished,
    ToolStarted,
)
from paicli.agent.react import AgentOptions, ReactAgent
from paicli.cancel import CancelToken
from paicli.context.types import NO_COMPACTION, CompactionResult, CompactionStep
from paicli.llm.messages import Message, ToolCall, Usage
from paicli.llm.protocol import LLMError
from paicli.testing.protocol import assert_protocol_valid
from paicli.testing.scripted_llm import ScriptedLLM, tool_call_reply
from tests.agent.fake_tools import FakeToolRunner, StaticPrompt


class ListLedger:
    def __init__(self) -> None:
        self.entries: list[tuple[str, str, dict[str, Any] | None, Message | None]] = []

    def append_message(
        self, mode: str, actor: str, source: str, message: Message, metadata: Mapping[str, Any] | None = None
    ) -> None:
        self.entries.append(("message", source, dict(metadata) if metadata else None, message))

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None:
        self.entries.append((event, source, dict(metadata), None))

    def events(self, name: str) -> list[tuple[str, str, dict[str, Any] | None, Message | None]]:
        return [e for e in self.entries if e[0] == name]


class FakeMemory:
    def __init__(self, block: str) -> None:
        self.block = block
        self.queries: list[tuple[str, str]] = []

    def context_for_query(self, query: str, max_tokens: int, exclude_text: str = "") -> str:
        self.queries.append((query, exclude_text))
        return self.block


def collect() -> tuple[list[AgentEvent], Any]:
    events: list[AgentEvent] = []
    return events, events.append


def make_agent(llm: ScriptedLLM, tools: FakeToolRunner | None = None, **kwargs: Any) -> ReactAgent:
    return ReactAgent(llm, tools or FakeToolRunner(), StaticPrompt(), **kwargs)


def test_direct_answer_streams_text_and_appends_one_assistant_message() -> None:
    llm = ScriptedLLM(["你好，我是 paicli。"], usage=Usage(100, 10, 40))
    agent = make_agent(llm)
    events, emit = collect()
    finished = agent.run("你好", emit, CancelToken())
    assert finished == RunFinished("done", "你好，我是 paicli。")
    assert [m.role for m in agent.history] == ["system", "user", "assistant"]
    assert any(isinstance(e, TextDelta) and "paicli" in e.text for e in events)
    assert agent.usage_total == Usage(100, 10, 40)
    assert agent.llm_calls == 1


def test_tool_round_trip_keeps_pairs_and_feeds_results_back() -> None:
    tools = FakeToolRunner({"read_file": lambda call, cancel: "1 | hello"})
    llm = ScriptedLLM(
        [tool_call_reply(("read_file", '{"path":"a.txt"}'), content="先读文件"), "文件内容是 hello"]
    )
    agent = make_agent(llm, tools)
    events, emit = collect()
    finished = agent.run("读 a.txt", emit, CancelToken())
    assert finished.status == "done"
    assert_protocol_valid(agent.history)
    second_request = llm.requests[1].messages
    assert second_request[-1].role == "tool" and "hello" in (second_request[-1].content or "")
    assert [type(e) for e in events if isinstance(e, (ToolStarted, ToolFinished))] == [
        ToolStarted,
        ToolFinished,
    ]
    assert llm.requests[0].tools is not None and llm.requests[0].tools[0]["function"]["name"] == "read_file"


def test_provider_error_ends_the_run_and_leaves_a_usable_history() -> None:
    llm = ScriptedLLM([LLMError("HTTP 500: boom", 500), "恢复了"])
    agent = make_agent(llm)
    _events, emit = collect()
    finished = agent.run("第一次", emit, CancelToken())
    assert finished.status == "error" and "boom" in (finished.error or "")
    assert [m.role for m in agent.history] == ["system", "user"]
    assert agent.run("第二次", emit, CancelToken()).status == "done"
    assert_protocol_valid(llm.requests[-1].messages)


def test_cancel_during_a_tool_answers_every_call_and_next_request_is_valid() -> None:
    started = threading.Event()

    def slow(call: ToolCall, cancel: CancelToken) -> str:
        started.set()
        cancel.wait(60)
        return "用户取消了该工具调用（进程已终止）"

    tools = FakeToolRunner({"execute_command": slow, "read_file": lambda c, t: "x"})
    llm = ScriptedLLM(
        [
            tool_call_reply(("execute_command", '{"command":"sleep 30"}'), ("read_file", '{"path":"b"}')),
            "好的",
        ]
    )
    agent = make_agent(llm, tools)
    cancel = CancelToken()
    threading.Thread(target=lambda: (started.wait(60), cancel.cancel()), daemon=True).start()
    finished = agent.run("跑一下", lambda e: None, cancel)
    assert finished.status == "cancelled"
    assert_protocol_valid(agent.history)
    assert [m.role for m in agent.history[-2:]] == ["tool", "tool"]
    assert agent.run("继续", lambda e: None, CancelToken()).status == "done"
    assert_protocol_valid(llm.requests[-1].messages)


def test_repeated_identical_calls_get_exactly_one_runaway_reminder() -> None:
    tools = FakeToolRunner({"list_dir": lambda c, t: "a\nb"})
    call = ("list_dir", '{"path":"."}')
    llm = ScriptedLLM([tool_call_reply(call), tool_call_reply(call), tool_call_reply(call), "完成"])
    agent = make_agent(llm, tools)
    finished = agent.run("看看目录", lambda e: None, CancelToken())
    assert finished.status == "done" and not finished.answer.startswith("⚠️")
    fourth = llm.requests[3].messages
    reminders = [m for m in fourth if m.role == "user" and (m.content or "").startswith("[runaway guard]")]
    assert len(reminders) == 1
    assert fourth[-1] is reminders[0] and fourth[-2].role == "tool"


def test_budget_stop_finalises_without_tools() -> None:
    tools = FakeToolRunner({"read_file": lambda c, t: "x"})
    llm = ScriptedLLM(
        [
            tool_call_reply(("read_file", '{"path":"1"}')),
            tool_call_reply(("read_file", '{"path":"2"}')),
            "已完成读取 1 和 2，尚未完成其余部分",
        ]
    )
    options = AgentOptions(budget_factory=lambda: AgentBudget(hard_max_iterations=2))
    agent = make_agent(llm, tools, options=options)
    finished = agent.run("读很多文件", lambda e: None, CancelToken())
    assert finished.status == "partial"
    assert finished.answer.startswith("⚠️ 部分完成")
    assert llm.requests[-1].tools is None
    assert llm.requests[-1].messages[-1].role == "user"
    assert_protocol_valid(agent.history)


def test_turn_placement_keeps_the_system_prompt_byte_identical() -> None:
    memory = FakeMemory("## 相关长期记忆\n\n- [FACT] 项目使用 JDK 17\n\n")
    llm = ScriptedLLM(["一", "二"])
    agent = make_agent(llm, memory=memory, options=AgentOptions(memory_placement="turn"))
    agent.run("用什么 JDK？", lambda e: None, CancelToken())
    agent.run("再问一次", lambda e: None, CancelToken())
    first, second = llm.requests[0].messages, llm.requests[1].messages
    assert first[0].content == second[0].content
    assert "相关长期记忆" not in (first[0].content or "")
    assert (first[-1].content or "").startswith("## 相关长期记忆")
    assert (first[-1].content or "").endswith("用什么 JDK？")
    assert "项目使用 JDK 17" in memory.queries[1][1]  # the visible history is passed for exclusion


def test_system_placement_rebuilds_the_system_prompt_with_memories() -> None:
    memory = FakeMemory("## 相关长期记忆\n\n- [FACT] 项目使用 JDK 17\n\n")
    llm = ScriptedLLM(["一"])
    agent = make_agent(llm, memory=memory, options=AgentOptions(memory_placement="system"))
    agent.run("用什么 JDK？", lambda e: None, CancelToken())
    assert "项目使用 JDK 17" in (llm.requests[0].messages[0].content or "")
    assert llm.requests[0].messages[-1].content == "用什么 JDK？"


def test_clear_rebuilds_system_prompt_and_records_ledger_events() -> None:
    memory = FakeMemory("## 相关长期记忆\n\n- [FACT] x\n\n")
    ledger = ListLedger()
    agent = make_agent(
        ScriptedLLM(["a"]), memory=memory, ledger=ledger, options=AgentOptions(memory_placement="system")
    )
    agent.run("q", lambda e: None, CancelToken())
    discarded = agent.clear()
    assert discarded == 3
    assert len(agent.history) == 1 and "相关长期记忆" not in (agent.history[0].content or "")
    assert ledger.events("history_clear")[0][2] == {"discardedViewMessages": 3}
    checkpoint = ledger.events("view_checkpoint")[-1]
    assert checkpoint[1] == "slash_clear" and checkpoint[2] == {"messages": []}


class StepContext:
    def __init__(self) -> None:
        self.calls = 0

    def before_call(
        self,
        history: list[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        cancel: object = None,
        announce: object = None,
        *,
        llm: object = None,
    ) -> CompactionResult:
        self.calls += 1
        if self.calls != 2:
            return NO_COMPACTION
        before = len(history)
        history[1:-1] = [
            Message.user("[已压缩的历史对话摘要]\n## 当前目标与成功条件"),
            Message.assistant("好的，我已了解之前的上下文，请继续。"),
        ]
        return CompactionResult(
            True, "full_summary", 0, (CompactionStep("full_summary", before, len(history), 900, 100),)
        )

    def after_response(
        self,
        history: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        usage: Usage | None,
        *,
        model: str = "",
    ) -> None:
        return None

    def compact_now(
        self, history: list[Message], focus: str | None = None, cancel: object = None, *, llm: object = None
    ) -> CompactionResult:
        return NO_COMPACTION

    def reset(self, history: list[Message]) -> None:
        return None


def test_compaction_before_a_call_is_emitted_and_checkpointed() -> None:
    ledger = ListLedger()
    llm = ScriptedLLM(["a1", "a2"])
    agent = make_agent(llm, context=StepContext(), ledger=ledger)
    events, emit = collect()
    agent.run("q1", emit, CancelToken())
    agent.run("q2", emit, CancelToken())
    assert any(isinstance(e, Compacted) and e.result.strategy == "full_summary" for e in events)
    compaction = ledger.events("compaction")[0]
    assert compaction[1] == "automatic:full_summary"
    assert compaction[2] == {"beforeMessages": 4, "afterMessages": 4, "beforeTokens": 900, "afterTokens": 100}
    view = ledger.events("view_checkpoint")[-1][2]
    assert view is not None and len(view["messages"]) == len(agent.history) - 2  # before the q2 answer landed
    assert "[已压缩的历史对话摘要]" in (llm.requests[1].messages[1].content or "")


def test_completion_hook_runs_only_after_a_final_answer() -> None:
    seen: list[str] = []
    llm = ScriptedLLM(["ok", LLMError("down")])
    agent = make_agent(llm, on_completed=seen.append)
    agent.run("展开后的文本", lambda e: None, CancelToken(), submitted="用户原文")
    agent.run("失败的一轮", lambda e: None, CancelToken())
    assert seen == ["用户原文"]


def test_a_runner_that_raises_still_answers_every_call_and_the_run_goes_on() -> None:
    def explode(call: ToolCall, cancel: CancelToken) -> str:
        raise RuntimeError("disk on fire")

    tools = FakeToolRunner({"read_file": explode})
    llm = ScriptedLLM(
        [
            tool_call_reply(("read_file", '{"path":"a.txt"}'), ("read_file", '{"path":"b.txt"}')),
            "读取失败了，换个办法",
        ]
    )
    agent = make_agent(llm, tools)
    _events, emit = collect()
    finished = agent.run("读两个文件", emit, CancelToken())
    assert finished == RunFinished("done", "读取失败了，换个办法")
    assert_protocol_valid(agent.history)
    answered = [m for m in llm.requests[1].messages if m.role == "tool"]
    assert len(answered) == 2
    assert all(
        "disk on fire" in (m.content or "") and not (m.content or "").startswith("用户取消") for m in answered
    )


def test_unexecuted_tool_call_text_is_recognised() -> None:
    from paicli.agent.react import looks_like_unexecuted_tool_call as looks

    names = ["read_file", "execute_command"]
    assert looks('<tool_call>{"name": "read_file"}</tool_call>', names)
    assert looks("<toolcall>x</toolcall>", [])
    assert looks('好的：{"name": "execute_command", "arguments": {"command": "ls"}}', names)
    assert not looks('示例 JSON：{"name": "张三", "arguments": []}', names)
    assert not looks("read_file 可以读取文件，execute_command 可以运行命令。", names)


def test_a_final_answer_that_spells_out_a_tool_call_gets_a_notice() -> None:
    tools = FakeToolRunner({"read_file": lambda call, cancel: "x"})
    llm = ScriptedLLM(
        ['我来读取：<tool_call>{"name": "read_file", "arguments": {"path": "a"}}</tool_call>', "你好"]
    )
    agent = make_agent(llm, tools)
    events, emit = collect()
    assert agent.run("读 a", emit, CancelToken()).status == "done"
    warnings = [e for e in events if isinstance(e, Notice) and e.level == "warn"]
    assert len(warnings) == 1 and "没有被执行" in warnings[0].text
    events.clear()
    agent.run("打个招呼", emit, CancelToken())
    assert not [e for e in events if isinstance(e, Notice)]


def test_call_ids_repeated_across_responses_are_made_unique() -> None:
    tools = FakeToolRunner({"read_file": lambda call, cancel: f"read {call.id}"})
    same_id = ToolCall("call_0", "read_file", '{"path":"a"}')
    llm = ScriptedLLM(
        [
            Message.assistant(None, (same_id,)),
            Message.assistant(None, (ToolCall("call_0", "read_file", '{"path":"b"}'),)),
            "读完了",
        ]
    )
    agent = make_agent(llm, tools)
    assert agent.run("读两次", lambda _e: None, CancelToken()).status == "done"
    assert_protocol_valid(agent.history)
    ids = [call.id for m in agent.history for call in m.tool_calls]
    assert ids[0] == "call_0" and ids[1].startswith("call_0_") and len(set(ids)) == 2
    answered = [m.tool_call_id for m in llm.requests[2].messages if m.role == "tool"]
    assert answered == ids


class CancelRecordingContext(StepContext):
    def __init__(self) -> None:
        super().__init__()
        self.tokens: list[object] = []
        self.tools_seen: list[object] = []

    def before_call(
        self,
        history: list[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        cancel: object = None,
        announce: object = None,
        *,
        llm: object = None,
    ) -> CompactionResult:
        self.tokens.append(cancel)
        self.tools_seen.append(tools)
        return NO_COMPACTION


def test_compaction_gets_the_runs_cancel_token_and_this_turns_tools() -> None:
    context = CancelRecordingContext()
    tools = FakeToolRunner({"read_file": lambda c, t: "x"})
    agent = make_agent(ScriptedLLM(["好"]), tools, context=context)
    cancel = CancelToken()
    agent.run("你好", lambda e: None, cancel)
    assert context.tokens == [cancel]  # Esc can stop a summary call
    seen = context.tools_seen[0]
    assert isinstance(seen, list) and seen[0]["function"]["name"] == "read_file"


def test_malformed_arguments_are_reported_raw_but_kept_as_valid_json_in_the_view() -> None:
    seen: list[str] = []

    def read(call: ToolCall, cancel: CancelToken) -> str:
        seen.append(call.arguments)
        return "❌ 参数不是合法的 JSON"

    llm = ScriptedLLM([tool_call_reply(("read_file", '{"path": "a.txt"')), "好"])
    agent = make_agent(llm, FakeToolRunner({"read_file": read}))
    agent.run("读文件", lambda e: None, CancelToken())
    assert seen == ['{"path": "a.txt"']  # the runner judged what the model really sent
    stored = llm.requests[1].messages[2].tool_calls[0].arguments
    assert json.loads(stored) == {"_raw_arguments": '{"path": "a.txt"'}
