"""The relation judge's second look at a manager's writes (issue 37): who runs it, when, and who hears of it.

Light at import (the session builds one at start-up): the judge, the worker and the refinement load on first use.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from paicli.llm.messages import Usage
    from paicli.llm.protocol import LLMClient
    from paicli.memory.background import BackgroundWork
    from paicli.memory.clock import Clock
    from paicli.memory.entry import MemoryEntry
    from paicli.memory.judge import RelationJudge
    from paicli.memory.refine import TransactingStore
    from paicli.memory.results import MemoryWriteResult

log = logging.getLogger(__name__)


class WriteReview:
    def __init__(
        self, store: TransactingStore, clock: Clock, on_notice: Callable[[str], None] | None = None
    ) -> None:
        self._store = store
        self._clock = clock
        self._source: tuple[LLMClient, str | None, Callable[[Usage], None] | None] | None = None
        self._judge: RelationJudge | None = None
        self._work: BackgroundWork | None = None
        self.on_notice = on_notice  # a changed outcome, in the user's words

    def use_judge(
        self, llm: LLMClient, model: str | None = None, on_usage: Callable[[Usage], None] | None = None
    ) -> None:
        """Let the light model take a second look at writes the local rules were unsure of (built on first use)."""
        self._source = (llm, model, on_usage)
        self._judge = None

    def after_write(self, result: MemoryWriteResult, background: bool) -> None:
        """Explicit saves return at once and are refined on the memory worker; extraction (already off the turn's
        path) is refined in line."""
        entry = result.entry
        if self._source is None or not result.written or entry is None:
            return
        # what was stored when this entry was: a refinement never lets it supersede a later write
        known = frozenset(e.id for e in self._store.get_all() if e.id != entry.id)
        if not background:
            self._refine(entry, known)
            return
        if self._work is None:
            from paicli.memory.background import BackgroundWork

            self._work = BackgroundWork()
        self._work.submit(lambda: self._refine(entry, known))

    def _judge_for_writes(self) -> RelationJudge | None:
        if self._judge is None and self._source is not None:
            from paicli.memory.judge import RelationJudge

            llm, model, on_usage = self._source
            self._judge = RelationJudge(llm, model=model, on_usage=on_usage)
        return self._judge

    def _refine(self, entry: MemoryEntry, known: frozenset[str] | None) -> None:
        judge = self._judge_for_writes()
        if judge is None:
            return
        from paicli.memory import refine

        try:
            refinement = refine.refine(self._store, judge, entry, self._clock, known)
        except Exception:  # the local verdict stands
            log.warning("memory refinement failed", exc_info=True)
            return
        listener = self.on_notice
        if refinement.changed and listener is not None:
            try:
                listener(refine.notice(entry, refinement))
            except Exception:
                log.warning("memory notice listener failed", exc_info=True)

    @property
    def pending(self) -> int:
        return self._work.pending if self._work is not None else 0

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the refinements of earlier saves (True when none is left)."""
        return self._work.wait(timeout) if self._work is not None else True
