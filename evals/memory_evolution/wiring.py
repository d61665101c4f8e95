"""Where the eval meets the product's relation judge (none yet: the local rules decide every write)."""

from __future__ import annotations

from paicli.llm.protocol import LLMClient
from paicli.memory.manager import MemoryManager


def parse_judge_request(text: str) -> tuple[str, list[tuple[str, str]]] | None:
    """(new fact, [(label, candidate)]) when `text` is the judge's request."""
    return None


def attach_judge(manager: MemoryManager, llm: LLMClient) -> None:
    """Give the manager the light model that judges relations."""


def settle(manager: MemoryManager) -> None:
    """Wait until the background work a write started (a judge's refinement) is done."""
