"""A memory manager whose extractor model quotes back exactly what the user wrote (minus the final stop): the
careful extractor of the eval's loopback server, so a test checks the rules after the model, not the model."""

from __future__ import annotations

import json
from pathlib import Path

from paicli.config.env import EnvLookup
from paicli.config.run_values import MemoryValues
from paicli.memory.extractor import AutoFactExtractor
from paicli.memory.manager import MemoryManager
from paicli.memory.store import LongTermMemory
from paicli.testing.scripted_llm import Request, ScriptedLLM


def quote_back(request: Request) -> str:
    original = request.messages[-1].text.split("=== 用户原文 ===", 1)[1].split("=== 结束 ===", 1)[0].strip()
    return json.dumps({"facts": [{"quote": original.rstrip("。.")}]}, ensure_ascii=False)


def quoting_manager(tmp_path: Path, llm: ScriptedLLM | None = None) -> MemoryManager:
    """`llm`: the scripted model to quote with, when the test reads its requests (a new one otherwise)."""
    env = EnvLookup(environ={})
    llm = llm or ScriptedLLM()
    llm.default_reply = quote_back
    mgr = MemoryManager(
        LongTermMemory(tmp_path / "mem", MemoryValues.parse(env)), tmp_path, MemoryValues.parse(env)
    )
    mgr.extractor = AutoFactExtractor(llm)
    mgr.auto_extract_enabled = True
    return mgr


def extracted_after(turn: str, tmp_path: Path, stored: tuple[str, ...] = ()) -> list[str]:
    """What the automatic path stores from `turn`, after `stored` were saved by hand."""
    mgr = quoting_manager(tmp_path)
    for fact in stored:
        assert mgr.store_fact(fact).written
    return [entry.content for entry in mgr.extract_facts_from_user_turn(turn)]
