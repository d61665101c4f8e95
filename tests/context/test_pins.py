"""Pins (issue 38): one block of the system prompt, changed only when a pin changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.config.env import EnvLookup
from paicli.config.values import PromptValues
from paicli.context.markers import SUMMARY_WORDS_LINE
from paicli.context.pins import MAX_PIN_CHARS, MAX_PINS, PinBoard, PinError, pins_from_metadata
from paicli.context.summary import ConversationHistoryCompactor
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message
from paicli.prompt.assembler import AgentPromptBuilder, PromptAssembler, PromptMode
from paicli.prompt.repository import PromptRepository
from paicli.testing.scripted_llm import ScriptedLLM
from tests.context.helpers import STRUCTURED

FIXED = {"PAICLI_PROMPT_RUNTIME_DATE": "2026-09-23", "PAICLI_PROMPT_RUNTIME_ZONE": "Asia/Shanghai"}


def test_pins_are_numbered_deduplicated_bounded_and_removed_by_number() -> None:
    board = PinBoard()
    assert board.add("  发版分支叫 release-7 ") == 1
    assert board.add("每次提交前先跑 make lint") == 2
    assert board.add("发版分支叫 release-7") == 1 and len(board) == 2
    with pytest.raises(PinError, match="没有要固定的内容"):
        board.add("   ")
    with pytest.raises(PinError, match=str(MAX_PIN_CHARS)):
        board.add("长" * (MAX_PIN_CHARS + 1))
    assert board.remove(1) == "发版分支叫 release-7"
    assert board.items() == ("每次提交前先跑 make lint",)
    with pytest.raises(PinError, match="没有第 5 条"):
        board.remove(5)
    full = PinBoard(f"第{n}条" for n in range(MAX_PINS))
    with pytest.raises(PinError, match=str(MAX_PINS)):
        full.add("再来一条")
    assert pins_from_metadata(board.to_metadata()) == ["每次提交前先跑 make lint"]
    assert pins_from_metadata({"pins": "not a list"}) is None


def test_the_block_sits_before_the_project_context_and_is_absent_without_pins(tmp_path: Path) -> None:
    root, home = tmp_path / "proj", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    assembler = PromptAssembler(PromptRepository(root, home), PromptValues.parse(EnvLookup(environ=FIXED)))
    board = PinBoard()
    plain = AgentPromptBuilder(assembler, PromptMode.AGENT, lambda: "PAI 内容").build()
    pinned = AgentPromptBuilder(assembler, PromptMode.AGENT, lambda: "PAI 内容", pins_loader=board.block)
    assert pinned.build() == plain  # no pins: byte for byte the prompt without the feature
    board.add("发版分支叫 release-7\n不要改 main")
    text = pinned.build()
    assert text.index("## Runtime Context") < text.index("## Pinned") < text.index("## Project Context")
    assert "1. 发版分支叫 release-7\n   不要改 main" in text
    assert pinned.build() == text  # stable until a pin changes
    board.add("第二条")
    assert pinned.build() != text and text.replace("不要改 main", "不要改 main\n2. 第二条") == pinned.build()


def test_a_summary_need_not_carry_what_is_pinned() -> None:
    facts = ["发版分支叫 release/2027-q1", "the payments service listens on port 8443"]
    history = [Message.system("sys")]
    for text in facts:
        history += [Message.user(text), Message.assistant("好的，记下了。" + "细节" * 200)]
    history += [Message.user("最新的请求")]
    board = PinBoard()
    board.add(facts[0])

    def compacted(pinned: bool) -> tuple[str, int]:
        llm = ScriptedLLM([STRUCTURED, STRUCTURED])  # a summary with neither value, and its repair
        full = ConversationHistoryCompactor(
            TokenCounter("heuristic"), 1, words_check=True, pinned=board.block if pinned else None
        )
        view = list(history)
        assert full.compact(view, 0, True, 1, llm=llm).compacted
        return view[1].content or "", llm.calls

    unpinned_text, _ = compacted(False)
    assert f"{SUMMARY_WORDS_LINE}\n- {facts[0]}\n- {facts[1]}" in unpinned_text
    pinned_text, calls = compacted(True)
    assert calls == 2 and pinned_text.endswith(f"{SUMMARY_WORDS_LINE}\n- {facts[1]}")  # only the unpinned one
