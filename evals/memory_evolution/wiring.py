"""Where the eval meets the product's relation judge (`paicli.memory.judge`)."""

from __future__ import annotations

from paicli.llm.protocol import LLMClient
from paicli.memory import judge
from paicli.memory.manager import MemoryManager


def parse_judge_request(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """(new fact, [(label, candidate)]) when `text` is the judge's request."""
    return judge.parse_request(text)


def attach_judge(manager: MemoryManager, llm: LLMClient) -> None:
    """Give the manager the light model that judges relations, as the session does."""
    manager.use_judge(llm)


def settle(manager: MemoryManager) -> None:
    """Wait until the background work a write started (a judge's refinement) is done."""
    manager.wait_background(60)
