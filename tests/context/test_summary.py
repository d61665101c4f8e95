from __future__ import annotations

from paicli.context.summary import ACKNOWLEDGEMENT, ConversationHistoryCompactor, SharedPrefix
from paicli.context.summary_text import MAX_SUMMARY_INPUT_CHARS, has_required_structure, render_summary_chunks
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient, LLMError
from paicli.testing.scripted_llm import Request, ScriptedLLM, tool_call_reply
from tests.context.helpers import STRUCTURED, assert_pairs_valid, tool_round

COUNTER = TokenCounter("heuristic")
SUMMARY_HEADING = "[已压缩的历史对话摘要]"


def rounds(count: int, size: int = 200) -> list[Message]:
    history = [Message.system("你是编程助手")]
    for i in range(count):
        history.append(Message.user(f"Q{i} " + "请解释" * size))
        history.append(Message.assistant(f"A{i} " + "解释如下" * size))
    return history


def compactor(retain: int = 3) -> ConversationHistoryCompactor:
    return ConversationHistoryCompactor(COUNTER, retain)


def summarised(
    compactor: ConversationHistoryCompactor, history: list[Message], trigger: int, *, llm: LLMClient | None
) -> bool:
    """An automatic summary at `trigger`: the compactor's own retained rounds kept verbatim."""
    return compactor.compact(history, trigger, False, compactor.retain, llm=llm).compacted


def prompt_of(request: Request) -> str:
    return request.messages[-1].content or ""


def test_does_nothing_when_below_trigger() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(6)
    snapshot = list(history)
    assert not summarised(compactor(), history, COUNTER.count_messages(history) + 1, llm=llm)
    assert history == snapshot and llm.calls == 0


def test_does_nothing_when_user_turns_too_few() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(2)
    assert not summarised(compactor(), history, 1, llm=llm)
    assert len(history) == 5 and llm.calls == 0


def test_compact_now_ignores_trigger_and_keeps_recent_turns() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(3)
    identity = id(history)
    assert compactor().compact_now(history, llm=llm)
    assert id(history) == identity and len(history) == 5
    assert (history[1].content or "").startswith(SUMMARY_HEADING + "\n## 当前目标与成功条件")
    assert history[2] == Message.assistant(ACKNOWLEDGEMENT)
    assert (history[3].content or "").startswith("Q2")
    request = llm.requests[0]
    assert request.tools is None
    assert request.messages[0].role == "system"
    assert "Q0" in prompt_of(request) and "Q1" in prompt_of(request) and "Q2" not in prompt_of(request)


def test_compacts_old_rounds_and_keeps_recent_turns() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(6)
    assert summarised(compactor(retain=2), history, 100, llm=llm)
    assert [m.role for m in history] == [
        "system",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert "已压缩的历史对话摘要" in (history[1].content or "")
    assert [(m.content or "")[:2] for m in history[3:]] == ["Q4", "A4", "Q5", "A5"]


def test_summary_prompt_is_the_reference_text() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(3, size=1)
    compactor().compact_now(history, llm=llm)
    prompt = prompt_of(llm.requests[0])
    assert prompt.startswith(
        "请把下面的对话历史整理成可供 Agent 继续工作的简明记录，按以下标题输出：\n## 当前目标与成功条件\n"
    )
    assert (
        "内容应明显短于原始对话。\n\n=== 待压缩的对话 ===\nSYSTEM" not in prompt
    )  # the system prompt is kept, not summarised
    assert (
        "内容应明显短于原始对话。\n\n=== 待压缩的对话 ===\nUSER: Q0 请解释\n\nASSISTANT: A0 解释如下\n\n"
        in prompt
    )
    assert prompt.endswith("\n=== 待压缩的对话（结束）===\n")


def test_focus_is_added_to_the_summary_request() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(3)
    compactor().compact_now(history, focus="数据库迁移的决定", llm=llm)
    assert "数据库迁移的决定" in prompt_of(llm.requests[0])


def test_preserves_tool_call_pair_at_split_boundary() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(3)
    history.append(Message.user("RecentQ1 请读取文件"))
    history += tool_round(1, body="内容" * 800)
    history.append(Message.assistant("读完了"))
    history += [Message.user("RecentQ2"), Message.assistant("RecentA2"), Message.user("RecentQ3")]
    assert summarised(compactor(), history, 10, llm=llm)
    assert history[3].content == "RecentQ1 请读取文件"
    assert history[4].tool_calls and history[5].role == "tool"
    assert history[5].tool_call_id == history[4].tool_calls[0].id
    assert_pairs_valid(history)


def test_empty_summary_aborts_compaction() -> None:
    llm = ScriptedLLM(["   "])
    history = rounds(6)
    snapshot = list(history)
    outcome = compactor().compact(history, 10, False, 3, llm=llm)
    assert not outcome.compacted and outcome.error
    assert history == snapshot


def test_summary_that_is_longer_than_original_keeps_history_intact() -> None:
    llm = ScriptedLLM([STRUCTURED + "\n" + "很长的废话" * 20_000])
    history = rounds(6, size=5)
    snapshot = list(history)
    outcome = compactor().compact(history, 10, False, 3, llm=llm)
    assert not outcome.compacted and outcome.error and "没有让上下文变小" in outcome.error
    assert history == snapshot


def test_llm_failure_does_not_corrupt_history() -> None:
    llm = ScriptedLLM([LLMError("boom", status=500)])
    history = rounds(6)
    snapshot = list(history)
    outcome = compactor().compact(history, 10, False, 3, llm=llm)
    assert not outcome.compacted and outcome.error and "boom" in outcome.error
    assert history == snapshot


def test_rejects_unstructured_summary_without_changing_history() -> None:
    llm = ScriptedLLM(["只是一段没有标题的摘要", "修复后依然没有标题"])
    history = rounds(6)
    snapshot = list(history)
    assert not summarised(compactor(), history, 10, llm=llm)
    assert llm.calls == 2
    assert "只是一段没有标题的摘要" in prompt_of(llm.requests[1])
    assert history == snapshot


def test_repair_call_can_rescue_the_summary() -> None:
    llm = ScriptedLLM(["没有标题", "前言\n" + STRUCTURED])
    history = rounds(6)
    assert summarised(compactor(), history, 10, llm=llm)
    assert llm.calls == 2 and "## 未解决问题与下一步" in (history[1].content or "")


def test_structure_check_requires_whole_lines_in_order() -> None:
    assert has_required_structure(STRUCTURED)
    assert has_required_structure(
        "  ## 当前目标与成功条件  \n## 用户要求与已确认决定\n## 已完成工作及证据\n## 未解决问题与下一步"
    )
    shuffled = "## 用户要求与已确认决定\n## 当前目标与成功条件\n## 已完成工作及证据\n## 未解决问题与下一步"
    assert not has_required_structure(shuffled)
    inline = "## 当前目标与成功条件 ## 用户要求与已确认决定\n## 已完成工作及证据\n## 未解决问题与下一步"
    assert not has_required_structure(inline)


def long_history(markers: int) -> list[Message]:
    history = [Message.system("sys")]
    for i in range(markers):
        history.append(Message.user(f"MARKER_{i:02d} " + "q" * 20_000))
        history.append(Message.assistant(f"ANSWER_{i:02d} " + "a" * 5_000))
    history += [Message.user("最近的问题"), Message.assistant("最近的回答")]
    return history


def partial_or_merged(request: Request) -> str:
    prompt = prompt_of(request)
    if "=== 本部分对话 ===" in prompt:
        index = prompt.split("第 ", 1)[1].split("/", 1)[0]
        return f"PARTIAL_SUMMARY_{index}"
    return STRUCTURED


def test_long_summary_input_covers_early_middle_and_recent_messages() -> None:
    llm = ScriptedLLM(default_reply=partial_or_merged)
    history = long_history(10)
    assert summarised(ConversationHistoryCompactor(COUNTER, 1), history, 10, llm=llm)
    chunk_prompts = [prompt_of(r) for r in llm.requests if "=== 本部分对话 ===" in prompt_of(r)]
    assert len(chunk_prompts) >= 3
    bodies = [
        p.split("=== 本部分对话 ===\n", 1)[1].rsplit("\n=== 本部分对话结束 ===", 1)[0] for p in chunk_prompts
    ]
    assert all(len(b) <= MAX_SUMMARY_INPUT_CHARS for b in bodies)
    joined = "".join(bodies)
    assert all(f"MARKER_{i:02d}" in joined and f"ANSWER_{i:02d}" in joined for i in range(10))
    assert "中间历史过长" not in joined


def test_exact_summary_input_limit_keeps_all_characters() -> None:
    chunks = render_summary_chunks([Message.user("u" * 59_992)])
    assert len(chunks) == 1 and len(chunks[0]) == 60_000
    chunks = render_summary_chunks([Message.user("u" * 59_993)])
    assert [len(c) for c in chunks] == [60_000, 1]


def test_long_history_summarizes_every_chunk_before_merging() -> None:
    llm = ScriptedLLM(default_reply=partial_or_merged)
    history = long_history(10)
    old = history[1:-2]
    expected_chunks = len(render_summary_chunks(old))
    assert summarised(ConversationHistoryCompactor(COUNTER, 1), history, 10, llm=llm)
    assert llm.calls == expected_chunks + 1
    last = prompt_of(llm.requests[-1])
    assert "PARTIAL_SUMMARY_1" in last and f"PARTIAL_SUMMARY_{expected_chunks}" in last
    assert last.index("--- 片段 1 ---") < last.index(f"--- 片段 {expected_chunks} ---")
    assert history[1].content == SUMMARY_HEADING + "\n" + STRUCTURED.strip()


def test_oversized_partial_summary_aborts() -> None:
    llm = ScriptedLLM(default_reply=lambda request: "p" * 8_001)
    history = long_history(5)
    snapshot = list(history)
    outcome = ConversationHistoryCompactor(COUNTER, 1).compact(history, 10, False, 1, llm=llm)
    assert not outcome.compacted and outcome.error and "8000" in outcome.error
    assert history == snapshot


def test_many_partials_are_merged_in_groups_then_again() -> None:
    def reply(request: Request) -> str:
        prompt = prompt_of(request)
        return "m" * 7_900 if "=== 本部分对话 ===" in prompt or "--- 片段" in prompt else STRUCTURED

    merges: list[str] = []

    def tracking(request: Request) -> str:
        if "--- 片段" in prompt_of(request):
            merges.append(prompt_of(request))
            if len(merges) > 2:
                return STRUCTURED
        return reply(request)

    llm = ScriptedLLM(default_reply=tracking)
    history = [Message.system("s")]
    for i in range(20):
        history += [Message.user(f"Q{i} " + "z" * 59_000), Message.assistant(f"A{i}")]
    history += [Message.user("last")]
    assert summarised(ConversationHistoryCompactor(COUNTER, 1), history, 10, llm=llm)
    assert len(merges) == 4  # 20 partials of ~7,900 chars: 3 groups, then one final merge
    assert "--- 片段 1 ---" in merges[-1] and "--- 片段 3 ---" in merges[-1]


def test_internal_user_messages_are_neither_turns_nor_summarised() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(2)
    history.append(Message.user("[PAICLI_SKILL_INJECTION]\n## 已加载 Skill：web-access\n技能正文" * 3))
    history.append(Message.user("[PAICLI_SKILL_INJECTION]\n## 已加载 Skill：pdf\n正文"))
    history.append(Message.user("[runaway guard] 你在重复同一个调用"))
    history += [Message.user("Q2 真正的问题"), Message.assistant("A2")]
    comp = compactor(retain=1)
    assert summarised(comp, history, 10, llm=llm)
    prompt = prompt_of(llm.requests[0])
    assert "技能正文" not in prompt and "runaway guard" not in prompt and "Q1" in prompt
    summary = history[1].content or ""
    assert summary.endswith(
        "\n\n[Skill 正文已随压缩移出上下文：web-access、pdf。还需要按这些 Skill 操作时，重新调用 load_skill 加载。]"
    )
    assert [m.content for m in history[3:]] == ["Q2 真正的问题", "A2"]


def test_internal_messages_do_not_count_as_recent_turns() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(2)
    history += [Message.user("[runaway guard] 提醒"), Message.user("[runaway guard] 再提醒")]
    assert not summarised(compactor(retain=2), history, 10, llm=llm)  # only 2 real user turns
    assert llm.calls == 0


def test_summary_model_is_used_when_configured() -> None:
    seen: list[str] = []

    class Switching(ScriptedLLM):
        def with_model(self, model: str) -> ScriptedLLM:
            seen.append(model)
            return self

    llm = Switching([STRUCTURED])
    ConversationHistoryCompactor(COUNTER, 3, summary_model="cheap-model").compact_now(rounds(3), llm=llm)
    assert seen == ["cheap-model"]


# -- the shared-prefix form (beyond the reference) ------------------------------------------------------

TOOLS = ({"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}},)


def shared(history: list[Message]) -> SharedPrefix:
    return SharedPrefix(tuple(history), TOOLS)


def test_summary_request_starts_with_the_last_request_and_may_not_call_tools() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(6)
    sent = shared(history)
    outcome = compactor().compact(history, 0, True, 2, prefix=sent, llm=llm)
    assert outcome.compacted
    request = llm.requests[0]
    split = len(request.messages) - 1
    assert request.messages[:split] == list(sent.messages[:split])  # byte-identical prefix: a cache hit
    assert split == 9 and (request.messages[split - 1].content or "").startswith("A3")  # up to the kept turns
    assert request.tools == [dict(t) for t in TOOLS] and request.tool_choice == "none"
    instruction = request.messages[-1]
    assert instruction.role == "user" and instruction.content is not None
    assert "【上下文整理请求" in instruction.content and "## 未解决问题与下一步" in instruction.content
    assert (history[1].content or "").startswith(SUMMARY_HEADING + "\n## 当前目标与成功条件")
    assert (history[3].content or "").startswith("Q4")


def test_focus_reaches_the_shared_prefix_instruction() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(4)
    assert compactor().compact(history, 0, True, 1, "数据库迁移", prefix=shared(history), llm=llm).compacted
    assert "数据库迁移" in (llm.requests[0].messages[-1].content or "")


def test_a_prefix_of_another_conversation_falls_back_to_the_transcript() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = rounds(6)
    other = rounds(6)
    other[3] = Message.tool("x", "结果")  # different roles at the same index
    assert compactor().compact(history, 0, True, 2, prefix=shared(other), llm=llm).compacted
    assert llm.requests[0].tools is None and "=== 待压缩的对话 ===" in prompt_of(llm.requests[0])


def test_a_separate_summary_model_or_the_setting_uses_the_transcript() -> None:
    for build in (
        lambda: ConversationHistoryCompactor(COUNTER, 3, summary_model="small-model"),
        lambda: ConversationHistoryCompactor(COUNTER, 3, inline=False),
    ):
        llm = ScriptedLLM([STRUCTURED])
        history = rounds(6)
        assert build().compact(history, 0, True, 2, prefix=shared(history), llm=llm).compacted
        assert llm.requests[0].tools is None and llm.requests[0].tool_choice is None


def test_a_provider_refusing_the_form_gets_the_transcript_from_then_on() -> None:
    llm = ScriptedLLM([LLMError("tool_choice is not supported", 400), STRUCTURED, STRUCTURED])
    c = compactor()
    history = rounds(6)
    assert c.compact(history, 0, True, 2, prefix=shared(history), llm=llm).compacted
    assert [r.tool_choice for r in llm.requests] == ["none", None]
    assert "=== 待压缩的对话 ===" in prompt_of(llm.requests[1])
    again = rounds(6)
    assert c.compact(again, 0, True, 2, prefix=shared(again), llm=llm).compacted
    assert llm.requests[2].tools is None  # no second refused attempt


def test_a_server_error_leaves_the_history_alone_without_a_transcript_retry() -> None:
    llm = ScriptedLLM([LLMError("boom", 500, True)])
    history = rounds(6)
    snapshot = list(history)
    outcome = compactor().compact(history, 0, True, 2, prefix=shared(history), llm=llm)
    assert not outcome.compacted and outcome.error and "boom" in outcome.error
    assert history == snapshot and llm.calls == 1


def test_a_provider_ignoring_tool_choice_gets_the_transcript_at_once_and_from_then_on() -> None:
    llm = ScriptedLLM([tool_call_reply(("read_file", '{"path":"a"}')), STRUCTURED, STRUCTURED])
    c = compactor()
    history = rounds(6)
    assert c.compact(history, 0, True, 2, prefix=shared(history), llm=llm).compacted
    assert [r.tool_choice for r in llm.requests] == ["none", None]
    assert llm.requests[1].tools is None and "=== 待压缩的对话 ===" in prompt_of(llm.requests[1])
    again = rounds(6)
    assert c.compact(again, 0, True, 2, prefix=shared(again), llm=llm).compacted
    assert llm.requests[2].tools is None
