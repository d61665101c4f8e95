"""The ReAct agent (spec 8.1): one Conversation, memory refresh per turn, the shared ToolLoop, auto extraction."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Literal

from paicli.agent.budget import AgentBudget
from paicli.agent.conversation import Conversation, Identity
from paicli.agent.events import EventSink, Notice, Preparing, RunFinished
from paicli.agent.loop import (  # re-exported: callers and tests know them from here
    CANCELLED_ANSWER,
    UNEXECUTED_CALL_NOTICE,
    LoopOptions,
    LoopStats,
    ToolLoop,
    looks_like_unexecuted_tool_call,
)
from paicli.agent.ports import (
    ContextPort,
    LedgerPort,
    MemoryPort,
    NoMemory,
    SystemPromptBuilder,
    ToolSource,
)
from paicli.agent.runaway import RunawayGuard
from paicli.cancel import CancelToken
from paicli.context.types import CompactionResult
from paicli.llm.content_parts import ImagePart
from paicli.llm.messages import Message, Usage
from paicli.llm.protocol import LLMClient
from paicli.session.ledger_keys import REWIND_EVENT

__all__ = [
    "CANCELLED_ANSWER",
    "UNEXECUTED_CALL_NOTICE",
    "AgentOptions",
    "ReactAgent",
    "looks_like_unexecuted_tool_call",
]

log = logging.getLogger(__name__)
RUN_INPUT_SOURCE = "orchestrated_input"  # a Plan or Team run's goal in the main conversation
RUN_RESULT_SOURCE = "orchestrated_result"  # and its summary (distinct from `user_input`: the run counted it)
WORKSPACE_NOTE_SOURCE = "workspace_note"  # files restored behind the model's back (an internal user message)
REWIND_SOURCE = "slash_rewind"
MEMORY_LOOKUP = "检索长期记忆"  # what a turn waits for before its first model call
OVERFLOW_SOURCE = "context_overflow"  # the view without a turn the server refused as too long

Placement = Literal["system", "turn"]

if TYPE_CHECKING:
    from paicli.agent.task_events import RunTurn  # Plan and Team runs only


@dataclass
class AgentOptions:
    mode: str = "react"
    actor: str = "agent"
    memory_placement: Placement = "turn"
    memory_tokens: int = 640
    budget_factory: Callable[[], AgentBudget] = AgentBudget
    runaway_factory: Callable[[], RunawayGuard] = RunawayGuard
    today: Callable[[], dt.date] = dt.date.today
    continuations: int = 2  # knobs.OUTPUT_CONTINUATIONS
    images: bool = False  # the model takes images (tool images are sent to it)
    diagnostics: Callable[[], tuple[str, str] | None] | None = None  # see LoopOptions.diagnostics


class ReactAgent:
    """Owns exactly one Conversation; its element 0 is the assembled system prompt."""

    def __init__(
        self,
        llm: LLMClient,
        tools: ToolSource,
        prompt: SystemPromptBuilder,
        *,
        context: ContextPort | None = None,
        ledger: LedgerPort | None = None,
        memory: MemoryPort | None = None,
        options: AgentOptions | None = None,
        on_completed: Callable[[str], None] | None = None,
        stats: LoopStats | None = None,
        conversation: Conversation | None = None,
    ) -> None:
        self.llm = llm
        self.tools = tools
        self.prompt = prompt
        self.memory: MemoryPort = memory or NoMemory()
        self.options = options or AgentOptions()
        self.on_completed = on_completed
        self.stats = stats or LoopStats()
        self._prompt_day = self.options.today()
        self._prompt_stale = False
        if conversation is None:
            identity = Identity(self.options.mode, self.options.actor)
            conversation = Conversation(
                self.prompt.build(""), ledger=ledger, identity=identity, context=context
            )
        elif context is not None:  # a session rebuilt for another model (/model) fits the same history anew
            conversation.context = context
        self.conversation = conversation

    # ---- read-only surface for front ends -----------------------------------------------------------

    @property
    def history(self) -> list[Message]:
        """A copy of the view (system prompt first); change it only through the agent's operations."""
        return self.conversation.messages()

    @property
    def usage_total(self) -> Usage:
        return self.stats.usage_total

    @property
    def llm_calls(self) -> int:
        return self.stats.llm_calls

    @property
    def last_tool_definitions(self) -> list[dict[str, Any]]:
        return self.stats.last_tool_definitions

    # ---- public operations -------------------------------------------------------------------------

    def run(
        self,
        user_input: str,
        emit: EventSink,
        cancel: CancelToken,
        submitted: str | None = None,
        images: tuple[ImagePart, ...] = (),
    ) -> RunFinished:
        """One top-level task. Model and tool failures end in a RunFinished, never an exception. `images`:
        `@image:` attachments, sent with this turn only (earlier turns' images are pruned first)."""
        submitted_text = user_input if submitted is None else submitted
        turn = self.tools.for_turn(submitted_text)
        policy_notice = turn.notice()
        if policy_notice:
            emit(Notice(policy_notice))
        emit(Preparing(MEMORY_LOOKUP))
        self._refresh_system_prompt(user_input)
        self.conversation.prune_images()
        user = replace(Message.user(self._user_content(user_input)), images=images)
        user_message = self.conversation.append(user, "user_input", {"submittedInput": submitted_text})
        options = LoopOptions(
            self.options.budget_factory,
            self.options.runaway_factory,
            continuations=self.options.continuations,
            images=self.options.images,
            diagnostics=self.options.diagnostics,
        )
        finished = ToolLoop(self.conversation, self.llm, turn, emit, cancel, options, self.stats).run()
        if finished.overflow:  # a turn the server could not take must not stay and make the next one longer
            self.conversation.drop_from(user_message, OVERFLOW_SOURCE)
        if finished.status == "done" and self.on_completed is not None:
            try:
                self.on_completed(submitted_text)
            except Exception:  # a side task must never fail the turn
                log.exception("post-turn hook failed")
        return finished

    def record_run(self, turn: RunTurn) -> None:
        """A finished Plan or Team run joins this conversation as one plain user + assistant pair (no tool
        calls, so pairing holds); its tasks' own histories stay in the ledger under their actors."""
        linked = {"runMode": turn.mode, "planId": turn.run_id}
        user = Message.user(turn.goal)
        self.conversation.append(user, RUN_INPUT_SOURCE, {**linked, "submittedInput": turn.submitted})
        answer = Message.assistant(turn.answer)
        self.conversation.append(answer, RUN_RESULT_SOURCE, {**linked, "status": turn.status})

    def note_workspace(self, note: str) -> None:
        """An internal user message before the next turn: files changed outside the conversation (/restore,
        /undo, /rewind). The history ends with an answer or complete tool results here, so pairing holds."""
        self.conversation.append(Message.user(note), WORKSPACE_NOTE_SOURCE)

    def clear(self) -> int:
        """/clear: drop the view, keep long-term memory; the ledger keeps everything."""
        self._prompt_day = self.options.today()
        return self.conversation.clear(self.prompt.build(""))

    def compact_now(self, focus: str | None = None, cancel: CancelToken | None = None) -> CompactionResult:
        """/compact: the summary is asked of this agent's model."""
        return self.conversation.compact_now(focus, cancel, llm=self.llm)

    def restore(
        self,
        messages: Sequence[Message],
        reference: Mapping[str, Any] | None = None,
        source: str = "session_resumed",
    ) -> None:
        """Resume (or `/compact undo`): a fresh system prompt followed by a view rebuilt from a ledger (see
        Conversation.restore)."""
        self.conversation.restore(self.prompt.build(""), messages, source, reference)

    def rewind(self, messages: Sequence[Message], metadata: Mapping[str, Any]) -> None:
        """/rewind: the view goes back to `messages` (folded from the ledger, as the model saw it before the
        chosen turn). The ledger keeps everything: a rewind event names what was taken back, then a checkpoint
        holds the view, so a resume continues from it."""
        self.conversation.event(REWIND_EVENT, REWIND_SOURCE, metadata)
        self.conversation.restore(self.prompt.build(""), messages, source=REWIND_SOURCE)

    def invalidate_system_prompt(self) -> None:
        """A stable prompt part changed (`/skill on|off|reload`): rebuild it before the next turn's call."""
        self._prompt_stale = True

    # ---- phases ------------------------------------------------------------------------------------

    def _refresh_system_prompt(self, query: str) -> None:
        if self.options.memory_placement == "system":
            memory = self.memory.context_for_query(query, self.options.memory_tokens)
            prompt = self.prompt.build(memory)
        else:
            today = self.options.today()
            if today == self._prompt_day and not self._prompt_stale:
                return
            self._prompt_day, self._prompt_stale = today, False
            prompt = self.prompt.build("")
        self.conversation.set_system_prompt(prompt, "memory_context_refresh")

    def _user_content(self, user_input: str) -> str:
        if self.options.memory_placement != "turn":
            return user_input
        visible = self.conversation.visible_text()
        memory = self.memory.context_for_query(user_input, self.options.memory_tokens, visible)
        return f"{memory.rstrip()}\n\n{user_input}" if memory.strip() else user_input
