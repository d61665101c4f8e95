"""Experimental session-memory compaction (spec 2.6), behind its own setting (off by default).

From 60% of the trigger a background job summarises the older part of the history; it is refreshed after
every 4,000 new tokens. When the trigger is reached and a snapshot is ready and still valid, the history is
rebuilt from it without waiting for a model call; otherwise the full summary runs as usual.
A compactor serves the one history of its manager: its state belongs to that list, and a different list (or
a cleared one) starts from nothing.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from paicli.context import prompts
from paicli.context.internal import is_internal
from paicli.context.summary_text import real_user_indices, rebuild_with_summary, system_end
from paicli.llm.messages import Message
from paicli.llm.protocol import LLMClient

log = logging.getLogger(__name__)

PRECOMPUTE_RATIO = 0.60
MIN_RETAIN_TOKENS = 10_000
MIN_TEXT_MESSAGES = 5
MAX_RETAIN_TOKENS = 40_000
MIN_INCREMENTAL_UPDATE_TOKENS = 4_000
SESSION_MEMORY_PREFIX = "[会话记忆摘要]"
SESSION_MEMORY_OUTPUT_CAP = 4_096  # max_tokens of a session-memory summary (a bounded note, like level 3)

Measure = Callable[[Sequence[Message]], int]
Submit = Callable[[Callable[[], None]], None]


_thread_numbers = itertools.count(1)


def daemon_submit(job: Callable[[], None]) -> None:
    name = f"paicli-session-memory-{next(_thread_numbers)}"
    threading.Thread(target=job, name=name, daemon=True).start()


@dataclass(frozen=True)
class Snapshot:
    summary: str
    first_preserved: Message


@dataclass
class _State:
    history: list[Message]
    generation: int = 0
    pending: bool = False
    snapshot: Snapshot | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


def serialize(messages: Sequence[Message]) -> str:
    parts: list[str] = []
    for message in messages:
        text = f"{message.role.upper()}: {message.content or ''}"
        text += "".join(f"\nTOOL_CALL {c.name}: {c.arguments}" for c in message.tool_calls)
        parts.append(text + "\n\n")
    return "".join(parts)


def text_message_count(messages: Sequence[Message]) -> int:
    return sum(1 for m in messages if m.role in ("user", "assistant") and (m.content or "").strip())


def preserve_from(history: Sequence[Message], measure: Measure) -> int | None:
    """Where the verbatim tail starts: the newest real user turns worth 10k..40k tokens and 5+ text messages."""
    start = system_end(history)
    users = real_user_indices(history, start)
    if len(users) <= 1:
        return start
    chosen: int | None = None
    for index in reversed(users):
        tail = history[index:]
        tokens = measure(tail)
        if tokens > MAX_RETAIN_TOKENS:
            break
        chosen = index
        if tokens >= MIN_RETAIN_TOKENS and text_message_count(tail) >= MIN_TEXT_MESSAGES:
            break
    return chosen


def index_by_identity(history: Sequence[Message], target: Message) -> int:
    for index, message in enumerate(history):
        if message is target:
            return index
    return -1


class SessionMemoryCompactor:
    """The model is not held: `prepare_if_needed` is given the client of the call it serves, and the
    background summary it starts uses that client."""

    def __init__(
        self,
        measure: Measure,
        enabled: bool = False,
        submit: Submit = daemon_submit,
        summary_model: str | None = None,
    ) -> None:
        self._measure = measure
        self.enabled = enabled
        self._submit = submit
        self._summary_model = summary_model
        self._current: _State | None = None
        self._lock = threading.Lock()

    def clear(self, history: list[Message]) -> None:
        with self._lock:
            state, self._current = self._current, None
        if state is not None:
            with state.lock:
                state.generation += 1

    def snapshot(self, history: list[Message]) -> Snapshot | None:
        state = self._current
        return None if state is None or state.history is not history else state.snapshot

    def is_pending(self, history: list[Message]) -> bool:
        state = self._current
        return state is not None and state.history is history and state.pending

    def _state(self, history: list[Message]) -> _State:
        with self._lock:
            state = self._current
            if state is None or state.history is not history:
                state = self._current = _State(history)
            return state

    def prepare_if_needed(self, history: list[Message], trigger: int, llm: LLMClient | None) -> bool:
        """Schedule a background summary by `llm` when the history is between 60% and 100% of the trigger."""
        if not self.enabled or trigger <= 0 or llm is None:
            return False
        tokens = self._measure(history)
        if not int(trigger * PRECOMPUTE_RATIO) <= tokens < trigger:
            return False
        state = self._state(history)
        with state.lock:
            if state.pending:
                return False
            previous = state.snapshot
        covered = system_end(history)
        if previous is not None:
            found = index_by_identity(history, previous.first_preserved)
            if found < 0:
                self.clear(history)
                state, previous = self._state(history), None
            else:
                covered = found
        boundary = preserve_from(history, self._measure)
        if boundary is None or boundary <= covered:
            return False
        delta = [m for m in history[covered:boundary] if not is_internal(m)]
        if not delta or (previous is not None and self._measure(delta) < MIN_INCREMENTAL_UPDATE_TOKENS):
            return False
        with state.lock:
            state.pending = True
            generation = state.generation
        first_preserved = history[boundary]
        self._submit(lambda: self._run(llm, state, generation, delta, previous, first_preserved))
        return True

    def _run(
        self,
        llm: LLMClient,
        state: _State,
        generation: int,
        delta: list[Message],
        previous: Snapshot | None,
        first: Message,
    ) -> None:
        try:
            summary = self._summarize(llm, delta, previous)
        except Exception as exc:  # a background failure only means the full summary is used later
            log.warning("session memory update failed: %s", exc)
            summary = ""
        with state.lock:
            if state.generation != generation:
                return
            state.pending = False
            if summary.strip():
                state.snapshot = Snapshot(summary.strip(), first)

    def _summarize(self, llm: LLMClient, delta: Sequence[Message], previous: Snapshot | None) -> str:
        if self._summary_model:
            llm = llm.with_model(self._summary_model)
        if previous is None:
            prompt = prompts.render("session-initial.md", conversation=serialize(delta))
        else:
            prompt = prompts.render(
                "session-update.md", memory=previous.summary, conversation=serialize(delta)
            )
        system = Message.system(prompts.system_text("session-system.md"))
        messages = [system, Message.user(prompt)]
        return llm.chat(messages, None, max_tokens=SESSION_MEMORY_OUTPUT_CAP).message.content or ""

    def compact_if_ready(self, history: list[Message], trigger: int) -> bool:
        if not self.enabled:
            return False
        snapshot = self.snapshot(history)
        if snapshot is None:
            return False
        split_idx = index_by_identity(history, snapshot.first_preserved)
        if split_idx <= system_end(history):
            self.clear(history)
            return False
        before = self._measure(history)
        rebuilt = rebuild_with_summary(history, split_idx, f"{SESSION_MEMORY_PREFIX}\n{snapshot.summary}")
        after = self._measure(rebuilt)
        if after >= before or after >= trigger:
            return False
        history[:] = rebuilt
        self.clear(history)
        return True
