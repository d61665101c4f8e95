"""What the Plan and Team sides of the session backend share: an orchestrating agent built fresh for every run
(/model and /resume may have switched the client or the ledger since the last one) from the session's parts,
with a compaction manager of its own for each member."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, TypeVar

from paicli.agent.budget import AgentBudget
from paicli.agent.events import EventSink, RunFinished
from paicli.agent.loop import LoopStats
from paicli.agent.ports import ContextPort, ToolSource
from paicli.cancel import CancelToken
from paicli.cli.compose import Components
from paicli.context.manager import AutoCompactionManager
from paicli.tools.disabled import ToolsDisabled

T = TypeVar("T")


class Orchestrator(Protocol):
    def run(
        self, goal: str, emit: EventSink, cancel: CancelToken, submitted: str | None = None
    ) -> RunFinished: ...


def loaded(prompts: T | None, missing: str) -> T:
    """The mode's prompts; a mode whose prompt files did not load cannot run at all."""
    if prompts is None:
        raise RuntimeError(missing)
    return prompts


@dataclass(eq=False)
class OrchestratedSession(ABC):
    parts: Components
    stats: LoopStats
    budget: Callable[[], AgentBudget]
    on_completed: Callable[[str], None] | None

    def _context(self) -> ContextPort:
        """A manager per member, with the session's offloader, so its last-resort window fit can offload
        results too big to send (as the ReAct agent's does)."""
        parts = self.parts
        return AutoCompactionManager(
            parts.llm, parts.counter, parts.profile, parts.env, offloader=parts.offloader
        )

    def _tools(self) -> ToolSource:
        return self.parts.tools if self.parts.tools_enabled else ToolsDisabled()

    @abstractmethod
    def agent(self, policy_text: str) -> Orchestrator:
        """Built per run, from the parts as they are now."""

    def run(self, text: str, submitted: str, emit: EventSink, cancel: CancelToken) -> RunFinished:
        return self.agent(submitted).run(text, emit, cancel, submitted)
