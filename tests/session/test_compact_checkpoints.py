"""Compact view checkpoints: in-place changes record only the replaced tool results; resume folds them."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import pytest

from paicli.agent.conversation import Conversation
from paicli.agent.ports import NullContext
from paicli.context.clearing import CLEARED_PREFIX, ToolResultClearer
from paicli.context.manager import AutoCompactionManager
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.context.types import CompactionResult, CompactionStep
from paicli.llm.messages import Message, ToolCall
from paicli.session.resume import load_view, rebuild_view
from tests.context.helpers import climb_at

from .helpers import new_ledger

MODEL = "scripted-model"  # ScriptedLLM's model: the calibration key

Compaction = Callable[[list[Message]], CompactionResult]


class OneCompaction(NullContext):
    """The conversation's compaction port, doing what the test says on the next check."""

    def __init__(self, work: Compaction) -> None:
        self.work = work

    def before_call(
        self,
        history: list[Message],
        tools: object,
        cancel: object = None,
        announce: object = None,
        *,
        llm: object = None,
    ) -> CompactionResult:
        return self.work(history)


def conversation(ledger: object, history: list[Message], work: Compaction) -> Conversation:
    """A conversation whose view is `history` (each message recorded, as the loop would)."""
    made = Conversation(history[0].text, ledger=ledger, context=OneCompaction(work))  # type: ignore[arg-type]
    for message in history[1:]:
        made.append(message, "test")
    return made


def rounds(count: int) -> list[Message]:
    history = [Message.system("sys"), Message.user("读文件")]
    for i in range(count):
        history.append(Message.assistant(None, (ToolCall(f"c{i}", "read_file", f'{{"path":"f{i}"}}'),)))
        history.append(Message.tool(f"c{i}", f"内容 {i} " + "x" * 3_000))
    history.append(Message.assistant("读完了"))
    return history


def test_clearing_writes_only_the_replaced_results_and_resume_folds_them(
    tmp_path: Path, project: Path
) -> None:
    ledger = new_ledger(tmp_path / "home", project)
    manager = AutoCompactionManager(TokenCounter("heuristic"), ContextProfile.from_window(128_000))
    made = conversation(
        ledger,
        rounds(6),
        lambda view: climb_at(manager, view, manager.measure(view, MODEL) - 1, llm=None),
    )
    result = made.compact_before_call(None, None, llm=None)
    assert result.cleared_tool_results
    history = made.messages()
    checkpoint = ledger.read_all()[-1]
    assert checkpoint.event == "view_checkpoint" and "messages" not in checkpoint.metadata
    replaced = checkpoint.metadata["replacedResults"]
    assert set(replaced) == {m.tool_call_id for m in history if (m.content or "").startswith(CLEARED_PREFIX)}
    assert ledger.path is not None
    assert load_view(ledger.path).messages == history[1:]
    assert len(ledger.path.read_bytes()) < 40_000  # the 18 KB of results were not written a second time


def test_compact_checkpoints_after_a_full_one_and_after_clear(tmp_path: Path, project: Path) -> None:
    ledger = new_ledger(tmp_path / "home", project)

    def clear_all(view: list[Message]) -> CompactionResult:
        cleared = ToolResultClearer().clear_all_seen(view)
        step = CompactionStep("tool_result_clearing", 0, 0, 1, 0, cleared.cleared_count, cleared.call_ids)
        return CompactionResult(False, "tool_result_clearing", 3, (step,))

    made = conversation(ledger, rounds(3), clear_all)
    made.checkpoint("manual")  # a full view ...
    made.append(Message.user("再读"), "user_input")
    made.compact_before_call(None, None, llm=None)
    history = made.messages()
    assert ledger.path is not None
    assert load_view(ledger.path).messages == history[1:]  # ... then a compact one folded on top
    entries = ledger.read_all()
    assert rebuild_view(entries).messages == history[1:]


def test_unknown_ids_and_malformed_compact_checkpoints_are_ignored(tmp_path: Path, project: Path) -> None:
    ledger = new_ledger(tmp_path / "home", project)
    history = rounds(2)
    for message in history:
        ledger.append_message("react", "agent", "test", message)
    ledger.append_event("view_checkpoint", "react", "agent", "x", {"replacedResults": {"nope": "gone"}})
    ledger.append_event("view_checkpoint", "react", "agent", "x", {"replacedResults": ["not", "a", "map"]})
    ledger.append_event("view_checkpoint", "react", "agent", "x", {"replacedResults": {"c0": 42}})
    assert ledger.path is not None
    assert load_view(ledger.path).messages == history[1:]


def test_an_old_ledger_with_full_checkpoints_after_clearing_still_resumes(
    tmp_path: Path, project: Path
) -> None:
    ledger = new_ledger(tmp_path / "home", project)
    history = rounds(4)
    for message in history:
        ledger.append_message("react", "agent", "test", message)
    ToolResultClearer().clear_now(history)  # the old way: a full view after each clearing
    ledger.record_view_checkpoint(
        "automatic:tool_result_clearing", history, {"strategy": "tool_result_clearing"}
    )
    assert ledger.path is not None
    assert load_view(ledger.path).messages == history[1:]


def test_the_overflow_log_names_the_real_cause(caplog: pytest.LogCaptureFixture) -> None:
    """Issue 17.6: blame the latest turn only when the latest request and unseen results alone are too big."""
    manager = AutoCompactionManager(TokenCounter("heuristic"), ContextProfile.from_window(8_000))
    history = [Message.system("sys"), Message.user("大输入 " + "字" * 40_000)]
    with caplog.at_level(logging.WARNING):
        manager.before_call(history, None, llm=None)
    assert "latest user message and the unseen tool results alone do not fit" in caplog.text
