from __future__ import annotations

from paicli.config.compaction_values import ClearingValues
from paicli.context.clearing import CLEARED_PREFIX, ClearingConfig, ToolResultClearer, placeholder
from paicli.context.compaction_profile import clearing_config
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message, ToolCall
from tests.context.conftest import MakeEnv
from tests.context.helpers import assert_pairs_valid, tool_round

COUNTER = TokenCounter("heuristic")


def history_with_tool_rounds(count: int, tool: str = "read_file") -> list[Message]:
    history = [Message.system("sys"), Message.user("请读取这些文件")]
    for i in range(1, count + 1):
        history += tool_round(i, tool)
    history.append(Message.assistant("读完了"))
    return history


def tool_messages(history: list[Message]) -> list[Message]:
    return [m for m in history if m.role == "tool"]


def test_clears_older_tool_results_and_keeps_most_recent_ones() -> None:
    history = history_with_tool_rounds(5)
    ids_before = [m.tool_call_id for m in history]
    size_before = len(history)
    before = COUNTER.count_messages(history)
    result = ToolResultClearer(ClearingConfig(keep_recent=3)).clear_now(history)
    assert result.cleared_count == 2 and result.cleared
    tools = tool_messages(history)
    for cleared in tools[:2]:
        assert cleared.content is not None and cleared.content.startswith(CLEARED_PREFIX)
        assert "工具 read_file 的这次输出" in cleared.content
    assert all(not (m.content or "").startswith(CLEARED_PREFIX) for m in tools[2:])
    assert len(history) == size_before
    assert [m.tool_call_id for m in history] == ids_before
    assert_pairs_valid(history)
    assert result.before_tokens == before
    assert result.after_tokens == COUNTER.count_messages(history) < before


def test_placeholder_text_is_exact() -> None:
    history = history_with_tool_rounds(4)
    original_length = len(history[3].content or "")
    ToolResultClearer(ClearingConfig(keep_recent=3)).clear_now(history)
    assert history[3].content == (
        f"[已清理的旧工具结果] 工具 read_file 的这次输出（约 {original_length} 字符）已从上下文清理以节省空间。"
        "需要时重新调用该工具获取最新结果。"
    )


def test_placeholder_points_to_offload_file_when_output_was_offloaded() -> None:
    notice = (
        "[工具输出过大，完整内容已卸载到会话文件]\ntool: execute_command\n原始大小: 90000 字符 / 9000 行\n"
        "文件: .paicli/tool-outputs/session-1/001-execute_command.txt\n" + "z" * 3000
    )
    history = [Message.user("跑一下测试")]
    history += tool_round(1, "execute_command", notice)
    for i in range(2, 5):
        history += tool_round(i)
    history.append(Message.assistant("看完了"))  # every result has been seen
    ToolResultClearer(ClearingConfig(keep_recent=3)).clear_now(history)
    text = history[2].content or ""
    assert "execute_command" in text
    assert ".paicli/tool-outputs/session-1/001-execute_command.txt" in text
    assert "重新调用" in text
    assert text.endswith(
        "；完整输出仍保存在 .paicli/tool-outputs/session-1/001-execute_command.txt，可用 read_file 按 offset/limit 读回。"
    )


def test_skips_excluded_short_and_already_cleared_results(make_env: MakeEnv) -> None:
    history = [Message.user("go")]
    history += tool_round(1, "load_skill")
    history += tool_round(2, "read_file", "short")
    history += tool_round(
        3, "read_file", CLEARED_PREFIX + " 工具 read_file 的这次输出" + "。" * 500, wrap=False
    )
    history += tool_round(4, "read_file")
    for i in range(5, 8):
        history += tool_round(i)
    history.append(Message.assistant("看完了"))
    config = clearing_config(
        ClearingValues.parse(make_env(PAICLI_TOOL_RESULT_CLEARING_EXCLUDE_TOOLS="LOAD_SKILL"))
    )
    clearer = ToolResultClearer(config)
    snapshot = list(history)
    result = clearer.clear_now(history)
    assert result.cleared_count == 1
    assert history[2] is snapshot[2] and history[4] is snapshot[4] and history[6] is snapshot[6]
    assert (history[8].content or "").startswith(CLEARED_PREFIX)
    assert clearer.clear_now(history).cleared_count == 0


def test_tool_name_falls_back_to_boundary_tag_then_unknown() -> None:
    history = [
        Message.tool("orphan-1", '<tool_result tool="web_fetch" trust="untrusted-data">' + "w" * 900),
        Message.tool("orphan-2", "v" * 900),
        Message.tool("orphan-3", "k" * 900),
    ]
    ToolResultClearer(ClearingConfig(keep_recent=1)).clear_now(history)
    assert "工具 web_fetch 的" in (history[0].content or "")
    assert "工具 unknown 的" in (history[1].content or "")


def test_does_nothing_below_trigger_or_when_disabled(make_env: MakeEnv) -> None:
    history = history_with_tool_rounds(6)
    tokens = COUNTER.count_messages(history)
    above = ToolResultClearer(
        clearing_config(
            ClearingValues.parse(make_env(PAICLI_TOOL_RESULT_CLEARING_TRIGGER_TOKENS=str(tokens + 1)))
        )
    )
    snapshot = list(history)
    assert above.apply(history, above.plan(history, 1_000_000, "watermark")).cleared_count == 0
    disabled = ToolResultClearer(
        clearing_config(ClearingValues.parse(make_env(PAICLI_TOOL_RESULT_CLEARING_ENABLED="false")))
    )
    assert disabled.apply(history, disabled.plan(history, 10, "watermark")).cleared_count == 0
    assert history == snapshot
    eager = ToolResultClearer(
        clearing_config(ClearingValues.parse(make_env(PAICLI_TOOL_RESULT_CLEARING_TRIGGER_TOKENS="1")))
    )
    # past the trigger, one batch goes down to the low watermark: here every seen result
    assert eager.apply(history, eager.plan(history, 1_000_000, "watermark")).cleared_count == 6


def measure(history: list[Message]) -> int:
    return COUNTER.count_messages(history)


def test_one_batch_goes_down_to_the_low_watermark_past_the_kept_results() -> None:
    history = history_with_tool_rounds(8)
    before = measure(history)
    clearer = ToolResultClearer(ClearingConfig(keep_recent=6, trigger_tokens_override=before - 100), measure)
    result = clearer.apply(history, clearer.plan(history, 1_000_000, "watermark"))
    assert result.after_tokens <= clearer.watermark(1_000_000) < before
    assert result.cleared_count > 2  # more than the reference's "all but the newest 6"
    assert list(result.call_ids) == [
        m.tool_call_id for m in history if (m.content or "").startswith(CLEARED_PREFIX)
    ]
    # below the trigger again: the next call does nothing, so the next cache break is far away
    assert clearer.apply(history, clearer.plan(history, 1_000_000, "watermark")).cleared_count == 0


def test_a_batch_too_small_to_pay_for_a_cache_break_waits() -> None:
    history = history_with_tool_rounds(4)
    history.append(Message.user("再看一个"))
    history += tool_round(9, tool="web_fetch", body="y" * 200_000)  # excluded from clearing
    history.append(Message.assistant("看过了"))
    before = measure(history)
    config = ClearingConfig(
        keep_recent=0, trigger_tokens_override=before - 10, exclude_tools=frozenset({"web_fetch"})
    )
    clearer = ToolResultClearer(config, measure)
    snapshot = list(history)
    assert clearer.apply(history, clearer.plan(history, 1_000_000, "watermark")).cleared_count == 0
    assert history == snapshot
    assert clearer.clear_down_to(history, 0).cleared_count == 4  # the four small ones could have gone


def test_clearing_waits_one_request_when_only_unseen_results_cross_the_trigger() -> None:
    history = history_with_tool_rounds(6)
    history.append(Message.user("并行读取五个文件"))
    calls = tuple(ToolCall(f"p{i}", "read_file", f'{{"path":"g{i}"}}') for i in range(5))
    history.append(Message.assistant(None, calls))
    history += [Message.tool(f"p{i}", "z" * 3000) for i in range(5)]
    seen_part = measure(history[:-5])
    clearer = ToolResultClearer(
        ClearingConfig(keep_recent=3, trigger_tokens_override=seen_part + 10), measure
    )
    assert measure(history) > clearer.trigger_tokens(1_000_000)
    snapshot = list(history)
    assert (
        clearer.apply(history, clearer.plan(history, 1_000_000, "watermark")).cleared_count == 0
    )  # no break for the old results alone
    assert history == snapshot
    history.append(Message.assistant("五个文件都看过了"))  # the model has seen them now
    result = clearer.apply(history, clearer.plan(history, 1_000_000, "watermark"))
    assert result.after_tokens <= clearer.watermark(1_000_000)
    assert {"p0", "p1"} <= set(result.call_ids)  # one batch takes the old results and the parallel ones
    assert clearer.apply(history, clearer.plan(history, 1_000_000, "watermark")).cleared_count == 0
    assert_pairs_valid(history)


def test_results_of_the_latest_response_are_never_cleared() -> None:
    history = [Message.system("sys"), Message.user("并行读取")]
    calls = tuple(ToolCall(f"p{i}", "read_file", f'{{"path":"f{i}"}}') for i in range(5))
    history.append(Message.assistant(None, calls))
    history += [Message.tool(f"p{i}", "z" * 3000) for i in range(5)]
    clearer = ToolResultClearer(ClearingConfig(keep_recent=0))
    assert clearer.clear_now(history).cleared_count == 0
    assert clearer.clear_all_seen(history).cleared_count == 0
    assert clearer.clear_down_to(history, 0).cleared_count == 0
    history.append(Message.assistant("看过了"))
    assert clearer.clear_all_seen(history).cleared_count == 5


def test_trigger_follows_anthropic_default_and_stays_below_summary_threshold() -> None:
    clearer = ToolResultClearer()
    assert clearer.trigger_tokens(ContextProfile.from_window(200_000).compression_trigger_tokens) == 100_000
    assert clearer.trigger_tokens(ContextProfile.from_window(1_000_000).compression_trigger_tokens) == 100_000
    assert clearer.trigger_tokens(ContextProfile.from_window(32_000).compression_trigger_tokens) == int(
        0.6 * 20_000
    )
    assert clearer.trigger_tokens(ContextProfile.from_window(128_000).compression_trigger_tokens) == 57_000
    assert clearer.trigger_tokens(0) == 0
    override = ToolResultClearer(ClearingConfig(trigger_tokens_override=500_000))
    assert override.trigger_tokens(167_000) == 166_999


def test_configuration_is_read_from_env(make_env: MakeEnv) -> None:
    config = clearing_config(
        ClearingValues.parse(
            make_env(
                PAICLI_TOOL_RESULT_CLEARING_ENABLED="false",
                PAICLI_TOOL_RESULT_CLEARING_TRIGGER_TOKENS="50000",
                PAICLI_TOOL_RESULT_CLEARING_KEEP="5",
                PAICLI_TOOL_RESULT_CLEARING_EXCLUDE_TOOLS="read_file, web_fetch,read_file",
            )
        )
    )
    assert config == ClearingConfig(
        False, 50_000, 5, frozenset({"read_file", "web_fetch"}), short_placeholder=True
    )
    assert clearing_config(ClearingValues.parse(make_env())) == ClearingConfig(
        True, 0, 3, frozenset(), short_placeholder=True
    )


def test_the_paicli_profile_clears_to_a_short_placeholder_with_the_exact_marker() -> None:
    history = history_with_tool_rounds(5)
    history[3] = history[3].with_content(
        (history[3].content or "") + "\n文件: .paicli/tool-outputs/session-1/001-read_file.txt"
    )
    short = ToolResultClearer(ClearingConfig(keep_recent=3, short_placeholder=True))
    original = history[3].content or ""
    short.clear_now(history)
    text = history[3].content or ""
    assert text == f"{CLEARED_PREFIX} .paicli/tool-outputs/session-1/001-read_file.txt"
    assert (history[5].content or "") == CLEARED_PREFIX  # the tool is named by its paired call
    assert COUNTER.count_text(text) < COUNTER.count_text(placeholder("read_file", original)) / 2


def test_once_the_view_holds_cleared_results_clearing_fires_again_from_the_rearm_share() -> None:
    from paicli.context.clearing import REARM_RATIO

    def grown() -> list[Message]:
        history = history_with_tool_rounds(2)
        history.append(Message.user("再读一个"))
        history += tool_round(7)
        history.append(Message.assistant("读完了"))  # the model has seen round 7
        return history

    fresh, rearmed = grown(), grown()
    rearmed[3] = rearmed[3].with_content(CLEARED_PREFIX)  # an earlier clearing took round 1
    size = measure(rearmed)
    trigger = int(size / REARM_RATIO) - 50  # over the rearm share of the trigger, under the trigger itself
    assert size < trigger and measure(fresh) < trigger
    clearer = ToolResultClearer(ClearingConfig(keep_recent=3, trigger_tokens_override=trigger), measure)
    snapshot = list(fresh)
    assert (
        clearer.apply(fresh, clearer.plan(fresh, 1_000_000, "watermark")).cleared_count == 0
    )  # the first clearing waits
    assert fresh == snapshot
    result = clearer.apply(rearmed, clearer.plan(rearmed, 1_000_000, "watermark"))
    assert result.cleared and result.call_ids[-1] == "call-7"  # the round just seen goes in the same batch
    assert result.after_tokens <= clearer.watermark(1_000_000) or result.cleared_count == 2
    assert_pairs_valid(rearmed)
