"""Compaction receipts: what a compaction kept, summarised and cleared, and its predicted cost (issue 38)."""

from __future__ import annotations

from paicli.context.clearing import ClearingConfig, ToolResultClearer
from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.receipts import Receipt, build_receipt, receipt_from
from paicli.context.summary import SUMMARY_PREFIX
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message, ToolCall
from paicli.testing.scripted_llm import ScriptedLLM
from tests.context.helpers import STRUCTURED, tool_result_text

MODEL = "scripted-model"  # ScriptedLLM's model: the calibration key

COUNTER = TokenCounter("heuristic")


def recorded_history(rounds: int) -> list[Message]:
    """A view whose messages know their ledger entries (as Conversation.append makes them)."""
    history = [Message.system("sys")]
    seq = 1
    for n in range(1, rounds + 1):
        call = ToolCall(f"c{n}", "read_file", f'{{"path":"f{n}"}}')
        for message in (
            Message.user(f"第{n}轮 " + "问题" * 80),
            Message.assistant(None, (call,)),
            Message.tool(call.id, tool_result_text("read_file", f"内容{n} " * 300)),
            Message.assistant(f"第{n}轮完成"),
        ):
            seq += 1
            history.append(message.with_ref((seq, seq)))
    return history


def test_a_clearing_receipt_lists_each_cleared_result_by_recall_id() -> None:
    history = recorded_history(5)
    before = list(history)
    ToolResultClearer(ClearingConfig(keep_recent=2)).clear_now(history)
    receipt = build_receipt(
        before,
        history,
        strategy="tool_result_clearing",
        manual=False,
        before_tokens=9,
        after_tokens=5,
        measure=COUNTER.count_messages,
    )
    assert [(i.id, i.tool, i.kind) for i in receipt.replaced] == [
        (f"r{4 * n}", "read_file", "cleared") for n in (1, 2, 3)
    ]
    assert all(
        i.chars == len(before[4 * n - 1].content or "")
        for n, i in zip((1, 2, 3), receipt.replaced, strict=True)
    )
    assert receipt.summarised_messages == 0 and receipt.summary == ""
    assert receipt.kept_messages == len(history) - 1 - 3 and receipt.kept_id == "r2-21"
    first_change = 3  # the first cleared result: everything from it on is sent uncached
    assert receipt.predicted_uncached == COUNTER.count_messages(history[first_change:])


def test_a_summary_receipt_names_the_span_it_replaced_and_round_trips_through_the_ledger() -> None:
    history = recorded_history(4)
    before = list(history)
    manager = AutoCompactionManager(COUNTER, ContextProfile.from_window(128_000))
    result = manager.compact_now(history, llm=ScriptedLLM([STRUCTURED]))
    receipt = result.receipt
    assert receipt is not None and receipt.manual and receipt.strategy == "full_summary"
    assert receipt.summary == history[1].content and receipt.summary.startswith(
        f"{SUMMARY_PREFIX} recall:r2-13\n"
    )
    assert receipt.summarised_id == "r2-13" and receipt.summarised_messages == 12
    assert receipt.summarised_user_turns == 3
    assert receipt.kept_messages == 4 and receipt.kept_id == "r14-17"  # the latest turn, verbatim
    assert receipt.predicted_uncached == manager.measure(history[1:], MODEL)
    assert history[3] is before[-4]  # kept by identity
    stored = receipt_from(receipt.to_metadata())
    assert stored == receipt and receipt_from({"nonsense": 1}) is None
    seen = receipt.observed(1_000, 700)
    assert seen.observed_uncached == 300 and receipt.observed_uncached is None
    assert receipt_from(seen.to_metadata()) == seen


def test_preview_shows_a_summary_and_leaves_the_history_and_the_backoff_alone() -> None:
    llm = ScriptedLLM([STRUCTURED])
    history = recorded_history(4)
    snapshot = list(history)
    manager = AutoCompactionManager(COUNTER, ContextProfile.from_window(128_000))
    manager.backoff.failed(10_000, "earlier failure")
    result = manager.preview(history, "保留文件名", llm=llm)
    assert isinstance(result.receipt, Receipt) and result.receipt.summarised_id == "r2-13"
    assert result.receipt.summary.endswith(STRUCTURED)
    assert all(a is b for a, b in zip(history, snapshot, strict=True)) and len(history) == len(snapshot)
    assert not manager.backoff.allowed(10_001, 1)  # a preview is not a successful compaction
    assert llm.calls == 1 and "保留文件名" in (llm.requests[0].messages[-1].content or "")
