"""Conversation: every change of the view is recorded under the conversation's identity; layering stays acyclic."""

from __future__ import annotations

import ast
from pathlib import Path

from paicli.agent.conversation import Conversation, Identity
from paicli.cancel import CancelToken
from paicli.context.types import CompactionResult, CompactionStep
from paicli.llm.messages import Message
from paicli.session.ledger import ConversationLedger
from paicli.session.resume import load_view
from tests.agent.test_react import ListLedger
from tests.sources import parsed

SRC = Path(__file__).resolve().parents[2] / "src" / "paicli"


class HalvingContext:
    """Drops the oldest half of the messages after the system prompt on every check."""

    def __init__(self) -> None:
        self.resets = 0

    def before_call(
        self,
        history: list[Message],
        tools: object,
        cancel: CancelToken | None = None,
        announce: object = None,
        *,
        llm: object = None,
    ) -> CompactionResult:
        before = len(history)
        keep = history[1 + (before - 1) // 2 :]
        history[1:] = keep
        step = CompactionStep("tool_result_clearing", before, len(history), 100, 50, 1)
        return CompactionResult(False, "tool_result_clearing", 1, (step,))

    def after_response(self, history: object, tools: object, usage: object, *, model: str = "") -> None:
        return None

    def compact_now(
        self,
        history: list[Message],
        focus: str | None = None,
        cancel: CancelToken | None = None,
        *,
        llm: object = None,
    ) -> CompactionResult:
        return self.before_call(history, None, cancel, llm=None)

    def reset(self, history: list[Message]) -> None:
        self.resets += 1


def test_each_change_is_recorded_with_the_identity_and_resume_rebuilds_the_view(tmp_path: Path) -> None:
    ledger = ConversationLedger.open_in(tmp_path, "s1")
    conversation = Conversation(
        "系统提示",
        ledger=ledger,
        identity=Identity("plan", "task:t1", "subagent"),
        context=HalvingContext(),
        attach_source="system_prompt",
    )
    conversation.append(Message.user("做第一件事"), "task_input")
    conversation.append_answer(Message.assistant("完成", reasoning_content="想过了"), "llm_response")
    conversation.append(Message.user("再做一件"), "task_input")
    conversation.compact_before_call(None, None, llm=None)
    entries = ledger.read_all()
    assert {(e.mode, e.actor) for e in entries} == {("plan", "task:t1")}
    compaction = [e for e in entries if e.event == "compaction"]
    assert [(e.source, e.metadata["strategy"]) for e in compaction] == [("automatic", "tool_result_clearing")]
    assert load_view(ledger.path, "plan", "task:t1").messages == conversation.messages()[1:]
    assert conversation.messages()[-1] == Message.user("再做一件")
    assert entries[2].message is not None and entries[2].message.reasoning_content == "想过了"


def test_clear_records_the_discarded_size_and_a_checkpoint() -> None:
    ledger = ListLedger()
    conversation = Conversation("旧提示", ledger=ledger)
    conversation.append(Message.user("你好"), "user_input")
    assert conversation.clear("新提示") == 2
    assert ledger.events("history_clear")[0][2] == {"discardedViewMessages": 2}
    assert ledger.events("view_checkpoint")[0][2] == {"messages": []}
    assert conversation.messages() == [Message.system("新提示")]


def test_messages_is_a_copy() -> None:
    conversation = Conversation("提示")
    conversation.messages().append(Message.user("偷偷加的"))
    assert len(conversation) == 1


def _imports(path: Path) -> set[str]:
    tree = parsed(path)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_tools_package_never_imports_the_agent_package() -> None:
    offenders = [
        p.name for p in (SRC / "tools").glob("*.py") if any(m.startswith("paicli.agent") for m in _imports(p))
    ]
    assert offenders == []


def test_protocol_markers_have_one_definition() -> None:
    literal = '"[runaway guard]"'
    holders = [
        p.relative_to(SRC).as_posix() for p in SRC.rglob("*.py") if literal in p.read_text(encoding="utf-8")
    ]
    assert holders == ["context/internal.py"]


def test_no_module_outside_agent_reaches_into_a_conversation() -> None:
    pattern_holders = []
    for path in SRC.rglob("*.py"):
        if path.parts[-2] == "agent":
            continue
        text = path.read_text(encoding="utf-8")
        if "agent.recorder" in text or "request_view(" in text or ".conversation._" in text:
            pattern_holders.append(path.name)
    assert pattern_holders == []


def test_images_are_pruned_from_a_long_history_whenever_one_arrives() -> None:
    from dataclasses import replace

    from paicli.llm.content_parts import ImagePart

    conversation = Conversation("系统")
    for turn in range(40):  # long enough that the per-message values are kept between calls
        conversation.append(Message.user(f"问题 {turn}"), "user_input")
        conversation.append(Message.assistant(f"回答 {turn}"), "llm_response")
        assert conversation.prune_images() == 0
    image = ImagePart.from_bytes(b"\x89PNG....", "image/png", "/tmp/a.png")
    conversation.append(replace(Message.user("看图"), images=(image, image)), "user_input")
    conversation.append(Message.assistant("看到了"), "llm_response")
    assert conversation.prune_images() == 2
    assert not any(message.images for message in conversation.messages())
    assert conversation.prune_images() == 0
