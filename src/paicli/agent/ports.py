"""The plug points of an agent loop: each collaborator arrives through one of these protocols."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from paicli.agent.events import EventSink
from paicli.cancel import CancelToken
from paicli.context.types import NO_COMPACTION, CompactionResult
from paicli.llm.messages import Message, ToolCall, Usage
from paicli.llm.protocol import ContextLimit, LLMClient
from paicli.tools.base import ToolResult


class TurnTools(Protocol):
    """The tools one top-level turn may use (the turn policy is built from the submitted text)."""

    def definitions(self) -> list[dict[str, Any]]:
        """OpenAI `tools` entries exposed to the model in this turn."""
        ...

    def notice(self) -> str | None:
        """A line for the user about this turn's tool policy (e.g. web tools withheld), or None."""
        ...

    def verified_urls(self) -> list[str]:
        """URLs this turn may fetch (its input's and those web_search returned): a Plan task or Team step
        passes them on to the ones that depend on it."""
        ...

    def execute(self, calls: Sequence[ToolCall], cancel: CancelToken, emit: EventSink) -> list[ToolResult]:
        """Run one response's calls: exactly one result per call, in call order, history-ready content.

        Read-only calls run concurrently (at most 4), side-effecting ones in order. Bad arguments, unknown
        tools, guard and policy denials, refused approvals and cancellation all become results, never
        exceptions. Emits ToolStarted / ToolFinished.
        """
        ...


class ToolSource(Protocol):
    def for_turn(self, submitted_text: str, inherited_urls: Iterable[str] = ()) -> TurnTools:
        """`inherited_urls`: URLs a Plan task / Team step may fetch because a dependency's web_search found them."""
        ...


class ContextPort(Protocol):
    """Compaction and token accounting for one history (AutoCompactionManager satisfies this). It holds no
    model: every call is given the client (or the model) of the loop it serves."""

    def before_call(
        self,
        history: list[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        cancel: CancelToken | None = None,
        announce: Callable[[str], None] | None = None,
        *,
        llm: LLMClient | None,
    ) -> CompactionResult:
        """Offload/clear/summarize as needed before a model call to `llm`. Mutates `history` in place.
        `announce` gets one line for the user before an automatic summary starts (it takes a model call of its
        own, to `llm`)."""
        ...

    def after_response(
        self,
        history: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        usage: Usage | None,
        *,
        model: str,
    ) -> None:
        """Calibrate the local count for `model` against the provider's prompt_tokens for the request just sent."""
        ...

    def compact_now(
        self,
        history: list[Message],
        focus: str | None = None,
        cancel: CancelToken | None = None,
        *,
        llm: LLMClient | None,
    ) -> CompactionResult: ...

    def server_limit(
        self,
        history: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        limit: ContextLimit,
        *,
        model: str,
    ) -> bool:
        """`model`'s server refused `history` (+ `tools`) as longer than its context: take its figures (its
        window, its count of this request). True when compacting again can now make the request fit."""
        ...

    def reset(self, history: list[Message]) -> None:
        """Forget per-history state (session-memory snapshots) after /clear."""
        ...


class LedgerPort(Protocol):
    def append_message(
        self, mode: str, actor: str, source: str, message: Message, metadata: Mapping[str, Any] | None = None
    ) -> int | None:
        """The written entry's sequence, or None (nothing written; a ledger without sequences)."""
        ...

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None: ...


class SystemPromptBuilder(Protocol):
    def build(self, memory_context: str = "") -> str: ...


class MemoryPort(Protocol):
    def context_for_query(self, query: str, max_tokens: int, exclude_text: str = "") -> str:
        """The rendered `## 相关长期记忆` block for a query ('' when nothing matches).

        Entries whose content already appears in `exclude_text` (the visible history) are left out.
        """
        ...


class NullContext:
    def before_call(
        self,
        history: list[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        cancel: CancelToken | None = None,
        announce: Callable[[str], None] | None = None,
        *,
        llm: LLMClient | None,
    ) -> CompactionResult:
        return NO_COMPACTION

    def after_response(
        self,
        history: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        usage: Usage | None,
        *,
        model: str,
    ) -> None:
        return None

    def compact_now(
        self,
        history: list[Message],
        focus: str | None = None,
        cancel: CancelToken | None = None,
        *,
        llm: LLMClient | None,
    ) -> CompactionResult:
        return NO_COMPACTION

    def server_limit(
        self,
        history: Sequence[Message],
        tools: Sequence[Mapping[str, Any]] | None,
        limit: ContextLimit,
        *,
        model: str,
    ) -> bool:
        return False

    def reset(self, history: list[Message]) -> None:
        return None


class NullLedger:
    def append_message(
        self, mode: str, actor: str, source: str, message: Message, metadata: Mapping[str, Any] | None = None
    ) -> int | None:
        return None

    def append_event(
        self, event: str, mode: str, actor: str, source: str, metadata: Mapping[str, Any]
    ) -> None:
        return None


class NoMemory:
    def context_for_query(self, query: str, max_tokens: int, exclude_text: str = "") -> str:
        return ""


class NoTools:
    """TurnTools exposing nothing (the planner, finalisation-only conversations)."""

    def definitions(self) -> list[dict[str, Any]]:
        return []

    def notice(self) -> str | None:
        return None

    def verified_urls(self) -> list[str]:
        return []

    def execute(self, calls: Sequence[ToolCall], cancel: CancelToken, emit: EventSink) -> list[ToolResult]:
        return []
