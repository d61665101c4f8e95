"""What a session does beside its turns: fact extraction after a turn, the token usage of such side calls,
and the notices that background work leaves for the front end. Every method is safe from any thread."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from paicli.cli.notices import NoticeBoard
from paicli.llm.messages import Usage
from paicli.llm.protocol import LLMClient
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


class SessionBackground:
    def __init__(
        self,
        memory: MemoryManager,
        llm: LLMClient,
        notices: NoticeBoard,
        light_model: str | None = None,
        *,
        judge: bool = True,
    ) -> None:
        self._memory = memory
        self._judge = judge
        self._notices = notices
        self._lock = threading.Lock()
        self.usage = Usage()  # side calls (fact extraction, compaction summaries) on top of the agent's own
        self.calls = 0
        self._extraction = BackgroundExtraction(manager_job(memory))
        self.use_llm(llm, light_model)

    def use_llm(self, llm: LLMClient, light_model: str | None = None) -> None:
        """Extraction asks the configured light model, else the session's current one (again after /model)."""
        self._memory.extractor = UsageRecordingExtractor(llm, self.record_usage, light_model)
        if self._judge:
            self._memory.use_judge(llm, light_model, self.record_usage)

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
