"""What a session does beside its turns: fact extraction after a turn, the token usage of such side calls,
and the notices that background work leaves for the front end. Every method is safe from any thread."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from paicli.cancel import CancelToken
from paicli.cli.notices import NoticeBoard
from paicli.llm.messages import ChatResponse, Message, Usage
from paicli.llm.protocol import DeltaCallback, LLMClient
from paicli.memory.background import BackgroundExtraction, manager_job
from paicli.memory.manager import MemoryManager
from paicli.memory.pending import PendingExtractions

if TYPE_CHECKING:
    from paicli.memory.extractor import AutoFactExtractor

log = logging.getLogger(__name__)


class UsageRecordingExtractor:
    """Counts the extraction call in the session's token statistics (spec 5.1)."""

    def __init__(
        self,
        llm: LLMClient,
        record: Callable[[Usage | None], None],
        model: str | None = None,
    ) -> None:
        self._llm = llm
        self._model = model
        self._record = record
        self._extractor: AutoFactExtractor | None = None

    def extract(self, text: str, corrects: Callable[[str], bool] | None = None) -> list[str]:
        if self._extractor is None:  # built with the first extraction, off the start-up path
            from paicli.memory.extractor import AutoFactExtractor

            self._extractor = AutoFactExtractor(self._llm, model=self._model)
        outcome = self._extractor.extract(text, corrects)
        if outcome.model_called:
            self._record(outcome.usage)
        return list(outcome)


# The session's current client and its light-model setting (None: side calls ask the session's model).
CurrentModel = Callable[[], tuple[LLMClient, str | None]]


class SideModel:
    """The model side calls ask, looked up at each call: the configured light model, else the session's
    current one. So a /model switch needs nothing rewired: the next side call asks the new client."""

    def __init__(self, current: CurrentModel) -> None:
        self._current = current
        self._last: tuple[LLMClient, str | None, LLMClient] | None = None

    def client(self) -> LLMClient:
        llm, light = self._current()
        last = self._last
        if last is not None and last[0] is llm and last[1] == light:
            return last[2]
        chosen = llm.with_model(light) if light and light != llm.model else llm
        self._last = (llm, light, chosen)
        return chosen

    @property
    def model(self) -> str:
        return self.client().model

    def chat(
        self,
        messages: Sequence[Message],
        tools: Sequence[Mapping[str, object]] | None = None,
        *,
        on_delta: DeltaCallback | None = None,
        cancel: CancelToken | None = None,
        tool_choice: str | None = None,
        max_tokens: int | None = None,
    ) -> ChatResponse:
        return self.client().chat(
            messages,
            tools,
            on_delta=on_delta,
            cancel=cancel,
            tool_choice=tool_choice,
            max_tokens=max_tokens,
        )

    def with_model(self, model: str) -> LLMClient:
        return self.client().with_model(model)


class SessionBackground:
    def __init__(
        self,
        memory: MemoryManager,
        current: CurrentModel,
        notices: NoticeBoard,
        *,
        judge: bool = True,
    ) -> None:
        """`current`: the session's client and light-model setting as they are now (again after /model);
        extraction and the relation judge ask them at each call."""
        self._memory = memory
        self._notices = notices
        self._lock = threading.Lock()
        self.usage = Usage()  # side calls (fact extraction, compaction summaries) on top of the agent's own
        self.calls = 0
        side = SideModel(current)
        # the session's extractor is handed to the memory at each extraction, never set on it
        extractor = UsageRecordingExtractor(side, self.record_usage)
        self._extraction = BackgroundExtraction(manager_job(memory, extractor))
        if judge:
            memory.use_judge(side, None, self.record_usage)

    def after_turn(self, submitted: str) -> None:
        self._extraction.submit(submitted, self._extraction_done)

    def record_usage(self, usage: Usage | None) -> None:
        with self._lock:
            self.calls += 1
            if usage is not None:
                self.usage = self.usage + usage

    def _extraction_done(self, count: int) -> None:
        if count > 0:
            from paicli.memory.extractor import saved_message

            self.notice(self._memory.extraction_notice() or saved_message(count))

    def notice(self, text: str) -> None:
        self._notices.post(text)

    @property
    def pending(self) -> int:
        """Fact extractions and refinements of saves still queued or running."""
        return self._extraction.pending + self._memory.background_pending

    def wait(self, timeout: float) -> None:
        self._extraction.wait(timeout)
        self._memory.wait_background(timeout)

    # ---- side calls never block a turn (issue 40) ----------------------------------------------------

    def turn_started(self) -> None:
        """A turn needs the model: extraction waits (one under way is cut short and runs again after it)."""
        self._extraction.turn_started()

    def turn_ended(self) -> None:
        self._extraction.turn_ended()

    def hand_over(self, pending: PendingExtractions) -> int:
        """At the end of the session: what is still queued or running goes to the next session instead."""
        kept = pending.record(self._extraction.pending_texts())
        if kept:
            log.info("%d fact extraction(s) left for the next session", kept)
        return kept

    def pick_up(self, pending: PendingExtractions) -> int:
        """At the start: the extractions an earlier session of this project could not finish are queued."""
        texts = pending.take()
        for text in texts:
            self.after_turn(text)
        return len(texts)
