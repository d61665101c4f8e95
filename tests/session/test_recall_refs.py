"""Issue 38 in the ledger: messages know their entries, checkpoints keep the references, receipts are written
and observed, and the view without the newest compaction folds back (`/compact undo`)."""

from __future__ import annotations

from pathlib import Path

from paicli.agent.conversation import Conversation
from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message, ToolCall, Usage
from paicli.session.compaction_log import last_compaction, view_without
from paicli.session.ledger_events import read_entries
from paicli.session.resume import load_view
from paicli.testing.scripted_llm import ScriptedLLM
from tests.context.helpers import STRUCTURED

from .helpers import new_ledger

MODEL = "scripted-model"  # ScriptedLLM's model: the calibration key


def talk(conversation: Conversation, turns: range) -> None:
    for n in turns:
        call = ToolCall(f"c{n}", "read_file", f'{{"path":"f{n}"}}')
        conversation.append(Message.user(f"第{n}轮 " + "问题" * 60), "user_input")
        conversation.append(Message.assistant(None, (call,)), "llm_response")
        conversation.append(Message.tool(call.id, f"内容{n} " * 200), "tool_execution")
        conversation.append_answer(Message.assistant(f"第{n}轮完成", reasoning_content="想"), "llm_response")


def build(tmp_path: Path) -> tuple[Conversation, Path]:
    ledger = new_ledger(tmp_path / "home", tmp_path)
    manager = AutoCompactionManager(TokenCounter("heuristic"), ContextProfile.from_window(128_000))
    assert ledger.path is not None
    return Conversation("系统提示", ledger=ledger, context=manager), ledger.path


def test_each_recorded_message_knows_its_entry_and_a_resume_gets_the_same_references(tmp_path: Path) -> None:
    llm = ScriptedLLM([STRUCTURED])
    conversation, path = build(tmp_path)
    talk(conversation, range(1, 4))
    entries = {e.sequence: e for e in read_entries(path)}
    for message in conversation.messages()[1:]:
        assert message.ref is not None and message.ref[0] == message.ref[1]
        stored = entries[message.ref[0]].message
        assert stored is not None and stored.role == message.role and stored.content == message.content
    conversation.compact_now(llm=llm)
    view = conversation.messages()
    assert view[1].ref is not None and view[1].ref[0] == view[2].ref[0]  # type: ignore[index]
    talk(conversation, range(4, 5))
    resumed = load_view(path).messages  # the checkpoint's references, then the entries after it
    assert [m.content for m in resumed] == [m.content for m in conversation.messages()[1:]]
    assert [m.ref for m in resumed] == [m.ref for m in conversation.messages()[1:]]


def test_a_compaction_writes_its_receipt_and_the_next_response_its_observed_cost(tmp_path: Path) -> None:
    llm = ScriptedLLM([STRUCTURED])
    conversation, path = build(tmp_path)
    talk(conversation, range(1, 4))
    result = conversation.compact_now(llm=llm)
    assert result.receipt is not None and conversation.last_receipt == result.receipt
    conversation.after_response(
        None, Usage(prompt_tokens=900, completion_tokens=5, cached_tokens=600), model=MODEL
    )
    conversation.after_response(
        None, Usage(prompt_tokens=950, completion_tokens=5, cached_tokens=900), model=MODEL
    )
    events = [e for e in read_entries(path) if e.event.startswith("compaction_receipt")]
    assert [e.event for e in events] == ["compaction_receipt", "compaction_receipt_observed"]  # once
    assert events[0].metadata["summarisedId"] == result.receipt.summarised_id
    assert events[1].metadata["uncachedTokens"] == 300
    logged = last_compaction(read_entries(path))
    assert logged is not None and logged.receipt.observed_uncached == 300 and not logged.undone
    assert conversation.last_receipt is not None and conversation.last_receipt.observed_uncached == 300


def test_the_view_without_the_newest_compaction_keeps_what_came_after_it(tmp_path: Path) -> None:
    llm = ScriptedLLM([STRUCTURED])
    conversation, path = build(tmp_path)
    talk(conversation, range(1, 4))
    before = [m.content for m in conversation.messages()[1:]]
    conversation.compact_now(llm=llm)
    assert len(conversation) < len(before) + 1
    talk(conversation, range(4, 6))
    later = [m.content for m in conversation.messages()[-8:]]
    entries = read_entries(path)
    logged = last_compaction(entries)
    assert logged is not None
    undone = view_without(entries, logged)
    assert [m.content for m in undone.messages] == before + later
    assert undone.notices == [] and undone.repaired == 0
    conversation.restore("系统提示", undone.messages, "compact_undo")
    conversation.event("compaction_undone", "test", {"receiptSequence": logged.sequence})
    again = last_compaction(read_entries(path))
    assert again is not None and again.undone and again.sequence == logged.sequence
    assert [m.content for m in load_view(path).messages] == before + later  # the undo is what resumes


def test_a_compaction_followed_by_a_clear_cannot_be_undone_and_a_summary_is_found_past_a_clearing(
    tmp_path: Path,
) -> None:
    llm = ScriptedLLM([STRUCTURED])
    conversation, path = build(tmp_path)
    talk(conversation, range(1, 4))
    conversation.compact_now(llm=llm)
    summary = last_compaction(read_entries(path), with_summary=True)
    assert summary is not None and summary.receipt.summary and not summary.rebuilt_after
    conversation.clear("系统提示")
    logged = last_compaction(read_entries(path))
    assert logged is not None and logged.rebuilt_after  # /compact undo refuses it
    assert last_compaction(read_entries(path), with_summary=True) == logged
    assert last_compaction(read_entries(path), mode="plan") is None
