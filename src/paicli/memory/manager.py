"""MemoryManager: the one entry point agents, tools and commands use for long-term memory."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from paicli.config.run_values import MemoryValues
from paicli.context.estimate import utf16_len
from paicli.memory.background import Extractor
from paicli.memory.clock import Clock, utc_now
from paicli.memory.entry import MemoryEntry, new_fact, normalize_project_key, normalize_scope
from paicli.memory.provenance import AUTO_SOURCE, MODEL_SOURCE, USER_SOURCE
from paicli.memory.results import MemoryWriteResult, failed, invalid
from paicli.memory.review import WriteReview
from paicli.memory.said import auto_notice, model_save_text
from paicli.memory.store import LongTermMemory, MemoryStoreError, summary_line

if TYPE_CHECKING:
    from paicli.llm.messages import Usage
    from paicli.llm.protocol import LLMClient

__all__ = ["MAX_FACT_CHARS", "MemoryManager", "normalize_project_key"]

log = logging.getLogger(__name__)

MAX_FACT_CHARS = 2000  # UTF-16 units; a memory is a short fact, not a document
EMPTY_FACT_TEXT = (
    "/save 后面要写上要记住的内容，比如 /save 本项目用 Java 17，或 /save --global 回答一律用中文"
)


class ContextTracker(Protocol):
    """paicli.memory.guard.ExternalContextTracker satisfies this."""

    def sources(self) -> list[str]: ...

    def blocks_automatic_memory(self) -> bool: ...


class Retriever(Protocol):
    def build_context(self, query: str, max_tokens: int, project_key: str, exclude_text: str = "") -> str: ...


def fact_problem(fact: str) -> str | None:
    """Why a fact cannot be saved, or None."""
    if not fact.strip():
        return EMPTY_FACT_TEXT
    length = utf16_len(fact.strip())
    if length > MAX_FACT_CHARS:
        return (
            f"这条内容有 {length} 个字符，超过长期记忆单条上限 {MAX_FACT_CHARS} 个字符；"
            "请只保存一句简短的事实（长文档请写进 PAI.md）"
        )
    return None


class MemoryManager:
    def __init__(
        self,
        store: LongTermMemory,
        project_key: str | os.PathLike[str] | None = None,
        values: MemoryValues | None = None,
        clock: Clock = utc_now,
        tracker: ContextTracker | None = None,
        retriever: Retriever | None = None,
        extractor: Extractor | None = None,
        auto_extract: bool = False,
        on_notice: Callable[[str], None] | None = None,
        on_injected: Callable[[list[str]], None] | None = None,
    ) -> None:
        """`auto_extract`: facts are extracted from each turn in the background (the session's setting);
        `on_injected`: hears the contents of the memories injected into a turn, as they are injected."""
        self.store = store
        self.values = values if values is not None else store.values
        self.clock = clock
        self.tracker = tracker
        self.extractor = extractor
        self.auto_extract_enabled = auto_extract
        self._retriever = retriever
        self._retriever_failed = False
        self.project_key = normalize_project_key(project_key)
        self._last_auto: list[MemoryWriteResult] = []
        self.on_injected = on_injected
        self.review = WriteReview(store, clock, on_notice)  # the relation judge's second look at writes

    # ---- the relation judge ----------------------------------------------------------------------

    def use_judge(
        self, llm: LLMClient, model: str | None = None, on_usage: Callable[[Usage], None] | None = None
    ) -> None:
        """Let the light model take a second look at writes the local rules were unsure of."""
        self.review.use_judge(llm, model, on_usage)

    @property
    def background_pending(self) -> int:
        return self.review.pending

    def wait_background(self, timeout: float | None = None) -> bool:
        """Wait for the judge's refinements of earlier saves (True when none is left)."""
        return self.review.wait(timeout)

    # ---- explicit writes -------------------------------------------------------------------------

    def store_fact(
        self, fact: str, scope: str | None = "project", replace_id: str | None = None, keep_both: bool = False
    ) -> MemoryWriteResult:
        problem = fact_problem(fact)
        if problem is not None:
            return invalid(problem)
        chosen = normalize_scope(scope)
        metadata = {"source": USER_SOURCE, "scope": chosen}
        if chosen == "project":
            metadata["project"] = self.project_key
        metadata.update(self._external_metadata())
        entry = new_fact(fact.strip(), metadata, self.clock)
        try:
            result = self.store.write(entry, replace_id, keep_both, self.project_key)
        except MemoryStoreError as exc:
            return failed(str(exc))
        self.review.after_write(result, background=True)
        return result

    def _external_metadata(self) -> dict[str, str]:
        if self.tracker is None:
            return {}
        try:
            sources = [s for s in self.tracker.sources() if s]
        except Exception:  # a broken tracker must not block an explicit save
            log.exception("external context tracker failed")
            return {}
        if not sources:
            return {}
        return {"external_context": "true", "external_context_sources": ",".join(sources)}

    def replace_fact(self, entry_id: str, fact: str) -> MemoryWriteResult:
        """Keeps the old entry's scope; still refused when the new fact conflicts with another entry."""
        old = self.store.retrieve(entry_id)
        scope = old.scope if old is not None else "project"
        return self.store_fact(fact, scope, entry_id, False)

    def save_memory_tool(
        self, fact: str, scope: str | None = "project", replace_id: str | None = None, keep_both: bool = False
    ) -> str:
        """The save_memory tool's callable: the write result text, so the model can ask on a conflict."""
        return model_save_text(self.save_model_fact(fact, scope, replace_id, keep_both))

    def save_model_fact(
        self, fact: str, scope: str | None = "project", replace_id: str | None = None, keep_both: bool = False
    ) -> MemoryWriteResult:
        """A fact the model chose to save: its own source, pending until the user confirms it. A re-statement
        never confirms a stored fact (that is the user's word to give); only a replacement the model names, or
        keeping both sides of a conflict, goes through the explicit write path."""
        problem = fact_problem(fact)
        if problem is not None:
            return invalid(problem)
        chosen = normalize_scope(scope)
        metadata = {"source": MODEL_SOURCE, "scope": chosen, "verification_pending": "true"}
        if chosen == "project":
            metadata["project"] = self.project_key
        metadata.update(self._external_metadata())
        entry = new_fact(fact.strip(), metadata, self.clock)
        try:
            if (replace_id or "").strip() or keep_both:
                return self.store.write(entry, replace_id, keep_both, self.project_key)
            return self.store.write_automatic(entry)
        except MemoryStoreError as exc:
            return failed(str(exc))

    # ---- reads and maintenance -------------------------------------------------------------------

    def search(self, query: str, limit: int = 20) -> list[MemoryEntry]:
        return self.store.search(query, limit, self.project_key)

    def list_all(self) -> list[MemoryEntry]:
        return self.store.get_all()

    def list_visible(self) -> list[MemoryEntry]:
        return self.store.get_all(self.project_key)

    def delete(self, entry_id: str) -> bool:
        return self.store.delete(entry_id)

    def verify(self, entry_id: str) -> MemoryEntry | None:
        return self.store.mark_verified(entry_id, self.clock())

    def clear(self) -> None:
        self.store.clear()

    def auto_extract_status(self) -> str:
        if not self.auto_extract_enabled:
            return "关闭"
        if self._blocked():
            return "开启（外部内容防护暂停）"
        return "开启"

    def evolution_summary(self) -> str:
        from paicli.memory import evolve

        entries = self.list_all()
        superseded = sum(1 for e in entries if evolve.is_superseded(e))
        pending = sum(
            1 for e in entries if evolve.is_conflict_pending(e) and e.is_visible_in(self.project_key)
        )
        line = f"记忆演化: 被取代的旧版本 {superseded} 条（/memory list --all），待确认冲突 {pending} 条"
        return line + ("（/memory conflicts）" if pending else "")

    def status_summary(self) -> str:
        """The size line over the current entries (what `/memory list` shows): a superseded version is history,
        counted apart so one correction does not read as two memories."""
        from paicli.memory import evolve

        entries = self.list_all()
        current = [e for e in entries if not evolve.is_superseded(e)]
        line = summary_line(current)
        old = len(entries) - len(current)
        return line + (f"；另有 {old} 条被取代的旧版本（/memory list --all）" if old else "")

    def status_lines(self, profile_summary: str, token_usage_line: str) -> list[str]:
        strategy = [f"上下文策略: {profile_summary}"] if profile_summary else []  # /context shows its own
        return [
            *strategy,
            "短期上下文: 由本会话的对话历史维护（会话账本保留全部原始记录）",
            f"自动事实提取: {self.auto_extract_status()}",
            self.status_summary(),
            token_usage_line,
        ]

    # ---- retrieval and automatic extraction --------------------------------------------------------

    def _default_retriever(self) -> Retriever | None:
        if self._retriever is None and not self._retriever_failed:
            try:
                from paicli.memory.retriever import MemoryRetriever
                from paicli.memory.vector_file import index_path_for

                index = index_path_for(self.store.path)
                self._retriever = MemoryRetriever(self.store, self.values, self.clock, index_path=index)
            except Exception:
                self._retriever_failed = True
                log.warning("memory retriever unavailable; no long-term memory context", exc_info=True)
        return self._retriever

    def has_memories(self) -> bool:
        return self.store.size() > 0

    def warm_tokenizer(self) -> None:
        """Start-up warm-up (background thread): jieba's dictionary, before the first retrieval needs it."""
        self._warm("warm_tokenizer")

    def warm_index(self) -> None:
        """Start-up warm-up (background thread): the vector index, loaded from disk and synced with the store."""
        self._warm("warm_index", self.project_key)

    def flush_index(self, timeout: float = 10.0) -> None:
        """At shutdown: write a pending index save now, so the next process finds it current (and let a prefix
        file being written for jieba land: a run that exits first would leave the next one the whole load)."""
        import sys

        tokenize = sys.modules.get("paicli.memory.tokenize")
        if tokenize is not None:
            tokenize.wait_for_prefix_file(timeout)
        flush = getattr(self._retriever, "flush_index", None)
        if callable(flush):
            try:
                flush(timeout)
            except Exception:
                log.warning("could not save the vector index at shutdown", exc_info=True)

    def _warm(self, step: str, *args: str) -> None:
        method = getattr(self._default_retriever(), step, None)
        if not callable(method):
            return
        try:
            method(*args)
        except Exception:  # the first retrieval then loads what it needs itself
            log.warning("memory warm-up (%s) failed", step, exc_info=True)

    def context_for_query(self, query: str, max_tokens: int, exclude_text: str = "") -> str:
        """The `## 相关长期记忆` block for a query; "" when retrieval fails (a turn must never fail on it)."""
        if self._retriever is None and not self.has_memories():
            return ""  # nothing to rank: the retriever's modules (and numpy) stay unloaded
        retriever = self._default_retriever()
        if retriever is None:
            return ""
        try:
            block = retriever.build_context(query, max_tokens, self.project_key, exclude_text)
        except Exception:
            log.warning("long-term memory retrieval failed; this turn goes without it", exc_info=True)
            return ""
        listener = self.on_injected
        shown = getattr(retriever, "last_injected", None)
        if listener is not None and block and isinstance(shown, list) and shown:
            try:
                listener(list(shown))
            except Exception:  # showing it must never cost the turn its memory
                log.warning("injected-memory listener failed", exc_info=True)
        return block

    def _blocked(self) -> bool:
        if self.tracker is None:
            return False
        try:
            return bool(self.tracker.blocks_automatic_memory())
        except Exception:
            log.exception("external context tracker failed")
            return True

    def extract_facts_from_user_turn(
        self, text: str, extractor: Extractor | None = None
    ) -> list[MemoryEntry]:
        """Saves the extractor's verbatim quotes as pending project facts; never raises. `extractor`: the
        session's, given at the call (None: the one given at construction)."""
        extractor = extractor if extractor is not None else self.extractor
        if not self.auto_extract_enabled or extractor is None or self._blocked():
            return []
        try:
            quotes = extractor.extract(text, self._corrects)
        except Exception:
            log.exception("automatic fact extraction failed")
            return []
        if self._blocked():
            return []
        from paicli.memory.extractor import write_order

        written: dict[str, MemoryWriteResult] = {}
        for quote in write_order(quotes):
            try:
                result = self._auto_fact(quote)
            except Exception:  # one failed write (lock timeout, I/O) must not lose the others
                log.exception("could not save an automatically extracted fact")
                continue
            if result is not None and result.written and result.entry is not None:
                written[quote] = result
        results = [written[quote] for quote in quotes if quote in written]  # reported in the turn's order
        self._last_auto = results
        return [result.entry for result in results if result.entry is not None]

    def _corrects(self, quote: str) -> bool:
        """A quote that would supersede a stored fact of this project is a correction, not a temporary remark."""
        from paicli.memory import evolve

        incoming = new_fact(quote.strip(), self._auto_metadata(), self.clock)
        try:
            entries = self.store.get_all(self.project_key)
            return evolve.decide(entries, incoming, self.store.detector, False).kind == "supersede"
        except Exception:
            log.warning("could not compare an extracted quote with the stored facts", exc_info=True)
            return False

    def extraction_notice(self) -> str:
        """What the last automatic extraction wrote, naming each fact (the REPL shows it once)."""
        return auto_notice(self._last_auto)

    def _auto_metadata(self) -> dict[str, str]:
        return {
            "source": AUTO_SOURCE,
            "scope": "project",
            "project": self.project_key,
            "verification_pending": "true",
        }

    def _auto_fact(self, quote: str) -> MemoryWriteResult | None:
        if fact_problem(quote) is not None:
            return None
        result = self.store.write_automatic(new_fact(quote.strip(), self._auto_metadata(), self.clock))
        self.review.after_write(result, background=False)
        return result
