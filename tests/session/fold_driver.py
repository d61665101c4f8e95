"""A seeded scripted session for the ledger-fold property tests (also run as a child process for SIGKILL).

Turns draw, from one seed: tool rounds with 1-5 parallel calls, outputs of 200-40,000 characters, summaries
that work or fail, /compact, /clear and a resume onto the same ledger. The window is small, so every level
of compaction (clearing, offload of unseen results, summaries inside a turn, the mechanical fallback) runs.
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from paicli.agent.react import ReactAgent
from paicli.cancel import CancelToken
from paicli.context.manager import AutoCompactionManager
from paicli.context.memory_view import TurnMemory
from paicli.context.offload import ToolResultOffloader
from paicli.context.profile import ContextProfile
from paicli.context.tokens import TokenCounter
from paicli.llm.messages import Message, ToolCall
from paicli.llm.protocol import LLMError
from paicli.session.ledger import ConversationLedger
from paicli.testing.scripted_llm import Request, ScriptedLLM
from tests.agent.fake_tools import FakeToolRunner, StaticPrompt
from tests.context.helpers import keeping_summary

WINDOW = 8_000


@dataclass
class Script:
    """What the scripted model does; one per session, driven by the seed."""

    rng: random.Random
    summaries_fail: bool = False
    rounds_left: int = 0
    next_id: int = 0
    requests: list[list[Message]] = field(default_factory=list)
    on_request: Callable[[list[Message]], None] | None = None

    def reply(self, request: Request) -> Any:
        if request.without_callable_tools:  # a summary request
            if self.summaries_fail:
                return LLMError("summary model down", 500, True)
            return keeping_summary(request)
        self.requests.append(request.messages)
        if self.on_request is not None:
            self.on_request(request.messages)
        if self.rounds_left <= 0:
            return "好的，这一轮完成了。" * self.rng.randint(1, 30)
        self.rounds_left -= 1
        calls = []
        for _ in range(self.rng.randint(1, 5)):
            self.next_id += 1
            size = self.rng.choice((200, 900, 3_000, 8_000, 20_000, 40_000))
            calls.append(
                ToolCall(f"c{self.next_id}", "read_file", json.dumps({"size": size, "n": self.next_id}))
            )
        return Message.assistant(None, tuple(calls))


def read_handler(call: ToolCall, cancel: CancelToken) -> str:
    args = json.loads(call.arguments)
    line = f"row {args['n']}: some file content 数据\n"
    return (line * (args["size"] // len(line) + 1))[: args["size"]]


@dataclass
class Session:
    agent: ReactAgent
    ledger: ConversationLedger
    script: Script
    llm: ScriptedLLM
    manager: AutoCompactionManager
    root: Path


def new_session(root: Path, seed: int, turn_memory: TurnMemory | None = None) -> Session:
    """`turn_memory`: memory placement `turn`, the loop and compaction sharing the wrapper."""
    script = Script(random.Random(seed))
    llm = ScriptedLLM(default_reply=script.reply)
    ledger = ConversationLedger.create(root / "home", root, "scripted-model", "test", "0")
    manager = new_manager(root, turn_memory)
    agent = new_agent(llm, manager, ledger)
    if turn_memory is not None:
        agent.memory = turn_memory
        agent.options.memory_placement = "turn"
    return Session(agent, ledger, script, llm, manager, root)


def new_manager(root: Path, turn_memory: TurnMemory | None = None) -> AutoCompactionManager:
    profile = ContextProfile.from_window(WINDOW)
    offloader = ToolResultOffloader(root, context_trigger_tokens=profile.compression_trigger_tokens)
    return AutoCompactionManager(
        TokenCounter("heuristic"), profile, offloader=offloader, turn_memory=turn_memory
    )


def new_agent(llm: ScriptedLLM, manager: AutoCompactionManager, ledger: ConversationLedger) -> ReactAgent:
    runner = FakeToolRunner({"read_file": read_handler})
    return ReactAgent(llm, runner, StaticPrompt(), context=manager, ledger=ledger)


def step(session: Session, turn: int) -> str:
    """One scripted action: usually a turn, sometimes /compact, /clear or a resume. Returns its name."""
    rng = session.script.rng
    roll = rng.random()
    if roll < 0.06:
        session.agent.compact_now()
        return "compact"
    if roll < 0.09:
        session.agent.clear()
        return "clear"
    if roll < 0.13:
        resume(session)
        return "resume"
    session.script.summaries_fail = rng.random() < 0.4
    session.script.rounds_left = rng.choice((0, 1, 2, 3, 6, 12))
    session.agent.run(
        f"第 {turn} 轮：请检查这些文件 " + "说明" * rng.randint(1, 200), lambda e: None, CancelToken()
    )
    return "turn"


def resume(session: Session) -> None:
    """What `-c` does in a new process: reopen the file, fold it, continue by reference (no copied view)."""
    from paicli.cli.session_restore import view_reference
    from paicli.session.resume import load_view

    path = session.ledger.path
    assert path is not None
    view = load_view(path)
    session.ledger.close()
    session.ledger = ConversationLedger.open_existing(path)
    session.ledger.mark_resumed({"resumedFromSequence": view.last_sequence})
    session.manager = new_manager(session.root)
    session.agent = new_agent(session.llm, session.manager, session.ledger)
    session.agent.restore(view.messages, view_reference(path.name[: -len(".jsonl")], view))


def child_main(root: str, seed: str, stop_at: str, dump: str) -> None:
    """Run a session; at model request `stop_at` write the request's view to `dump` and hang (to be killed)."""
    session = new_session(Path(root), int(seed))
    target = int(stop_at)

    def on_request(messages: list[Message]) -> None:
        if len(session.script.requests) == target:
            assert session.ledger.path is not None
            payload = {"ledger": str(session.ledger.path), "view": [m.to_json() for m in messages[1:]]}
            Path(dump + ".tmp").write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
            Path(dump + ".tmp").rename(dump)
            time.sleep(600)

    session.script.on_request = on_request
    for turn in range(1, 200):
        step(session, turn)
    sys.exit(3)  # the target request never came
