"""Issue 12 points 1-2 in the real loop: memories stay in every request of a turn after compaction (placement
`turn`), and no tool result is cleared or summarised away before the model has seen it."""

from __future__ import annotations

from pathlib import Path

import pytest

from paicli.cancel import CancelToken
from paicli.context.clearing import CLEARED_PREFIX
from paicli.context.memory_view import TurnMemory
from paicli.llm.messages import Message
from paicli.session.resume import load_view
from tests.session.fold_driver import Session, new_session, step

FACT = "构建命令统一使用 make build-all"


class FakeMemory:
    """The retriever's contract: the block for a query, minus entries already visible."""

    def __init__(self) -> None:
        self.excluded = 0

    def context_for_query(self, query: str, max_tokens: int, exclude_text: str = "") -> str:
        if FACT in exclude_text:
            self.excluded += 1
            return ""
        return f"## 相关长期记忆\n- {FACT}"


def with_turn_memory(root: Path, seed: int) -> tuple[Session, FakeMemory]:
    memory = FakeMemory()
    return new_session(root, seed, TurnMemory(memory)), memory


def agent_requests(session: Session) -> list[list[Message]]:
    return session.script.requests


@pytest.mark.parametrize("seed", [0, 2, 5])
def test_every_request_carries_the_memory_after_summaries(tmp_path: Path, seed: int) -> None:
    session, memory = with_turn_memory(tmp_path, seed)
    summaries_removed_it = 0
    for turn in range(1, 30):
        before = len(agent_requests(session))
        session.script.summaries_fail = turn % 3 == 0
        session.script.rounds_left = (0, 2, 6)[turn % 3]
        session.agent.run(f"第 {turn} 轮：构建怎么做？" + "细节" * 50, lambda e: None, CancelToken())
        for request in agent_requests(session)[before:]:
            assert any(FACT in (m.content or "") for m in request[1:]), (seed, turn)
        assert session.ledger.path is not None
        assert load_view(session.ledger.path).messages == session.agent.history[1:]  # restored memories too
        first_user = next((m for m in session.agent.history if m.role == "user"), None)
        summaries_removed_it += first_user is not None and "[已" in (first_user.content or "")[:3]
    assert memory.excluded > 0  # the memory was judged visible at some turn start ...
    assert summaries_removed_it > 0  # ... and compaction removed the message that had carried it


def test_results_are_first_sent_whole(tmp_path: Path) -> None:
    """Every result reaches the model in full (or as an offload preview) before it can be cleared or dropped."""
    for seed in range(4):
        session = new_session(tmp_path / str(seed), seed)
        for turn in range(1, 26):
            step(session, turn)
        first: dict[str, str] = {}
        calls: set[str] = set()
        for request in agent_requests(session):
            for message in request:
                calls.update(call.id for call in message.tool_calls)
                if message.role == "tool" and message.tool_call_id:
                    first.setdefault(message.tool_call_id, message.content or "")
        assert calls and calls <= set(first), seed  # never dropped before being sent
        assert not [c for c in calls if first[c].startswith(CLEARED_PREFIX)], seed


def test_five_parallel_big_results_are_never_cleared_before_being_seen(tmp_path: Path) -> None:
    session = new_session(tmp_path, 7)
    for turn in range(1, 8):
        session.script.rounds_left = 1
        session.agent.run(f"第 {turn} 轮：并行读取", lambda e: None, CancelToken())
    sent = [m for request in agent_requests(session) for m in request if m.role == "tool"]
    by_id: dict[str, list[str]] = {}
    for message in sent:
        by_id.setdefault(message.tool_call_id or "", []).append(message.content or "")
    assert len(by_id) >= 7
    assert all(not contents[0].startswith(CLEARED_PREFIX) for contents in by_id.values())
    assert any(
        len(request[-1].tool_call_id or "") and request[-5].role == "tool"
        for request in agent_requests(session)
    )
