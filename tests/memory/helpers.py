"""Builders shared by the memory tests."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.context.estimate import estimate_tokens
from paicli.memory.clock import Clock, fixed_clock
from paicli.memory.entry import MemoryEntry, MemoryType, new_id
from paicli.memory.manager import MemoryManager
from paicli.memory.store import LongTermMemory
from paicli.testing.scripted_llm import ScriptedLLM

NOW = datetime(2026, 9, 23, tzinfo=timezone.utc)
CLOCK: Clock = fixed_clock(NOW)


def env(**values: str) -> EnvLookup:
    return EnvLookup(environ=values, cwd=Path("/nonexistent-paicli-test-cwd"))


def memory(path: Path, clock: Clock = CLOCK, **values: str) -> LongTermMemory:
    return LongTermMemory(path, MemoryValues.parse(env(**values)), clock=clock)


def entry(
    content: str,
    scope: str | None = "global",
    project: str | None = None,
    *,
    entry_id: str | None = None,
    kind: MemoryType = "FACT",
    when: datetime = NOW,
    verified: datetime | None = None,
    **extra: str,
) -> MemoryEntry:
    metadata = {"source": "fact", **extra}
    if scope is not None:
        metadata["scope"] = scope
    if project is not None:
        metadata["project"] = project
    return MemoryEntry(
        id=entry_id or new_id(),
        content=content,
        type=kind,
        timestamp=when,
        last_verified_at=verified or when,
        metadata=metadata,
        token_count=estimate_tokens(content),
    )


def repo_manager(tmp_path: Path, llm: ScriptedLLM | None = None) -> MemoryManager:
    """A manager for a project under `tmp_path/repo`, on the fixed clock; `llm`, when given, is its relation judge."""
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    mgr = MemoryManager(memory(tmp_path / "mem"), root, MemoryValues.parse(env()), clock=CLOCK)
    if llm is not None:
        mgr.use_judge(llm)
    return mgr
