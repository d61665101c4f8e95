"""Recall ids: how placeholders, offload notices and summaries name the original text (issue 38)."""

from __future__ import annotations

from paicli.context.clearing import CLEARED_PREFIX, ClearingConfig, ToolResultClearer, placeholder
from paicli.context.recall_ids import (
    format_ref,
    offload_id,
    parse_ref,
    span,
    split_session,
    tag,
)
from paicli.context.rounds import rebuild
from paicli.context.summary import ACKNOWLEDGEMENT, SUMMARY_PREFIX, ConversationHistoryCompactor
from paicli.llm.messages import Message, ToolCall
from paicli.testing.scripted_llm import ScriptedLLM
from tests.context.helpers import STRUCTURED, tool_result_text


def test_ids_format_and_parse_both_ways() -> None:
    assert format_ref((57, 57)) == "r57" and format_ref((12, 340)) == "r12-340"
    for text, ref in (
        ("r57", (57, 57)),
        ("recall:r57", (57, 57)),
        ("#57", (57, 57)),
        (" `r12-340` ", (12, 340)),
        ("r12-r340", (12, 340)),
        ("r340-12", (12, 340)),
    ):
        assert parse_ref(text) == ref, text
    for junk in ("", "r", "abc", "r1-2-3", "57x", "session-1:r5"):
        assert parse_ref(junk) is None, junk
    assert split_session("session-1700-ab-cd:r5") == ("session-1700-ab-cd", "r5")
    assert split_session("recall:r5") == (None, "r5")
    assert offload_id(".paicli/tool-outputs/session-20261106-101500-a1b2c3/001-grep_code.txt") == (
        "session-20261106-101500-a1b2c3/001-grep_code"
    )


def test_tag_goes_right_after_the_marker_and_keeps_it_byte_for_byte() -> None:
    assert tag(f"{CLEARED_PREFIX} 工具 x", (5, 5)) == f"{CLEARED_PREFIX} recall:r5 工具 x"
    assert tag(f"{SUMMARY_PREFIX}\n## a", (3, 9)) == f"{SUMMARY_PREFIX} recall:r3-9\n## a"
    once = tag(CLEARED_PREFIX, (5, 5))
    assert tag(once, (5, 5)) == once  # never twice
    assert tag("no marker", (5, 5)) == "no marker"
    assert tag(CLEARED_PREFIX, None) == CLEARED_PREFIX


def test_a_cleared_placeholder_names_its_original_and_without_a_ledger_stays_as_it_was() -> None:
    original = tool_result_text("read_file", "y" * 900)
    assert placeholder("read_file", original, True, (41, 41)) == f"{CLEARED_PREFIX} recall:r41"
    assert placeholder("read_file", original, True) == CLEARED_PREFIX
    offloaded = "[工具输出过大，完整内容已卸载到会话文件] recall:d/001-grep\n文件: .paicli/tool-outputs/d/001-grep.txt\n"
    assert placeholder("grep", offloaded, True) == f"{CLEARED_PREFIX} .paicli/tool-outputs/d/001-grep.txt"
    assert (
        placeholder("grep", offloaded, True, (7, 7)) == f"{CLEARED_PREFIX} recall:r7"
    )  # recall names the file
    long = placeholder("read_file", original, False, (41, 41))
    assert long == CLEARED_PREFIX + " recall:r41" + placeholder("read_file", original)[len(CLEARED_PREFIX) :]


def test_the_clearer_keeps_each_results_reference_on_its_placeholder() -> None:
    history = [Message.system("s"), Message.user("q").with_ref((1, 1))]
    for n in range(2, 7):
        call = ToolCall(f"c{n}", "read_file", "{}")
        history.append(Message.assistant(None, (call,)).with_ref((n * 10, n * 10)))
        history.append(
            Message.tool(call.id, tool_result_text("read_file", "z" * 900)).with_ref((n * 10 + 1,) * 2)
        )
    history.append(Message.assistant("done"))
    clearer = ToolResultClearer(ClearingConfig(keep_recent=2, short_placeholder=True))
    result = clearer.clear_now(history)
    assert result.cleared_count == 3
    cleared = [m for m in history if m.role == "tool" and (m.content or "").startswith(CLEARED_PREFIX)]
    assert [m.content for m in cleared] == [f"{CLEARED_PREFIX} recall:r{n * 10 + 1}" for n in (2, 3, 4)]
    assert [m.ref for m in cleared] == [(n * 10 + 1, n * 10 + 1) for n in (2, 3, 4)]


def test_a_rebuild_head_stands_for_the_span_it_replaced() -> None:
    history = [
        Message.system("s"),
        Message.user("old question").with_ref((3, 3)),
        Message.assistant("old answer").with_ref((4, 4)),
        Message.user("middle").with_ref((8, 8)),
        Message.assistant("middle answer").with_ref((9, 9)),
        Message.user("latest").with_ref((12, 12)),
    ]
    rebuilt = rebuild(
        history, 5, [Message.user(f"{SUMMARY_PREFIX}\nbody"), Message.assistant(ACKNOWLEDGEMENT)]
    )
    assert rebuilt[1].content == f"{SUMMARY_PREFIX} recall:r3-9\nbody"
    assert rebuilt[1].ref == rebuilt[2].ref == (3, 9)
    assert rebuilt[2].content == ACKNOWLEDGEMENT
    again = rebuild(
        [*rebuilt, Message.assistant("a").with_ref((13, 13)), Message.user("next").with_ref((14, 14))],
        5,
        [Message.user(f"{SUMMARY_PREFIX}\nnew")],
    )
    assert again[1].content == f"{SUMMARY_PREFIX} recall:r3-13\nnew"  # an earlier summary's span folds in
    plain = [Message.system("s"), Message.user("a"), Message.assistant("b"), Message.user("c")]
    assert rebuild(plain, 3, [Message.user(f"{SUMMARY_PREFIX}\nx")])[1].content == f"{SUMMARY_PREFIX}\nx"
    assert span([Message.user("a")]) is None


def test_a_summary_carries_the_recall_id_of_what_it_replaced() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = [Message.system("s")]
    for n in range(1, 5):
        history.append(Message.user(f"第{n}个问题 " + "内容" * 300).with_ref((n * 2, n * 2)))
        history.append(Message.assistant("回答 " + "内容" * 300).with_ref((n * 2 + 1, n * 2 + 1)))
    compactor = ConversationHistoryCompactor()
    assert compactor.compact(history, 0, True, 1, llm=llm).compacted
    assert history[1].content == f"{SUMMARY_PREFIX} recall:r2-7\n{STRUCTURED}"
    assert history[1].ref == (2, 7)
