"""A team member (spec 8.5): one Conversation with its role's system prompt, its own compaction manager and
ledger actor, running the shared loop; its history is cleared at every task boundary."""

from __future__ import annotations

from paicli.agent.conversation import Conversation, Identity
from paicli.agent.events import EventSink, RunFinished
from paicli.agent.loop import LoopOptions, LoopStats, ToolLoop
from paicli.agent.ports import ContextPort, LedgerPort, NoTools, TurnTools
from paicli.cancel import CancelToken
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient

MODE = "team"


class SubAgent:
    def __init__(
        self,
        name: str,
        system_prompt: str,
        llm: LLMClient,
        ledger: LedgerPort,
        context: ContextPort,
        stats: LoopStats,
        options: LoopOptions | None = None,
    ) -> None:
        self.name = name
        self.llm = llm
        self.stats = stats
        self.options = options or LoopOptions()
        self.conversation = Conversation(
            system_prompt,
            ledger=ledger,
            context=context,
            identity=Identity(MODE, name, "subagent"),
            attach_source="session_attach",
        )

    def run(
        self, text: str, emit: EventSink, cancel: CancelToken, turn: TurnTools | None = None
    ) -> RunFinished:
        """One activation: `text` joins this member's history and the loop runs until a final answer.
        Only workers pass `turn` (tool definitions); the others see no tools."""
        self.conversation.append(Message.user(text), "task_input")
        loop = ToolLoop(
            self.conversation, self.llm, turn or NoTools(), emit, cancel, self.options, self.stats
        )
        return loop.run()

    def reset(self, system_prompt: str | None = None) -> None:
        """Task boundary: the view starts over (the ledger keeps everything)."""
        if len(self.conversation) > 1:
            prompt = self.conversation.system_prompt if system_prompt is None else system_prompt
            self.conversation.clear(prompt, source="task_boundary", reset_source="system_prompt_refresh")
