"""AutoFactExtractor: quote-only automatic facts from the text the user submitted (spec 5.1-5.4).

The model may only point at spans of the user's own words; deterministic rules (`extract_rules`) decide what
is kept. The write path stores each kept quote as a pending-verification project FACT and drops duplicates
and conflicts silently.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Protocol

from paicli.llm.messages import Message, Usage
from paicli.llm.protocol import LLMClient
from paicli.memory.extract_limits import input_in_range

if TYPE_CHECKING:
    from paicli.memory.clock import Clock
    from paicli.memory.entry import MemoryEntry
    from paicli.memory.extract_rules import Corrects
    from paicli.memory.results import MemoryWriteResult

log = logging.getLogger(__name__)

AUTO_SOURCE = "auto_user_fact"
OUTPUT_CAP = 1024  # max_tokens: three quotes of at most 180 characters, in JSON


def load_prompt(name: str) -> str:
    return (resources.files("paicli") / "prompts" / "memory" / name).read_text(encoding="utf-8").rstrip("\n")


class ExtractionOutcome(list[str]):
    """The accepted quotes, in order, plus whether a model call happened and its usage.

    A `list[str]` subclass so that `MemoryManager`'s `Extractor` protocol (`extract(text) -> list[str]`) is met
    by `AutoFactExtractor` as is, while the loop can still count the call and its tokens.
    """

    def __init__(
        self, quotes: Iterable[str] = (), model_called: bool = False, usage: Usage | None = None
    ) -> None:
        super().__init__(quotes)
        self.model_called = model_called
        self.usage = usage

    @property
    def quotes(self) -> list[str]:
        return list(self)


class AutoFactExtractor:
    """Local filters, one model call (system + the article's prompt, no tools), strict quote validation.

    `hardened=False` keeps only the reference's checks; it exists to measure what the hardening buys.
    `on_usage` receives the usage of every extraction call (it runs on the caller's thread, possibly a worker).
    """

    def __init__(
        self,
        llm: LLMClient | None,
        *,
        hardened: bool = True,
        on_usage: Callable[[Usage], None] | None = None,
        model: str | None = None,
    ) -> None:
        """`model`: `Settings.light_model_setting`, the model for these side calls; None: the session's."""
        self._on_usage = on_usage
        self._llm = llm.with_model(model) if llm is not None and model and model != llm.model else llm
        self.hardened = hardened
        self._system = load_prompt("extract-system.md")
        self._template = load_prompt("extract.md")

    @property
    def llm(self) -> LLMClient | None:
        return self._llm

    def prompt_for(self, safe: str) -> list[Message]:
        return [Message.system(self._system), Message.user(self._template.replace("%s", safe, 1))]

    def extract(self, submitted_text: str | None, corrects: Corrects | None = None) -> ExtractionOutcome:
        """Quotes worth saving from one submitted user turn. Model errors propagate; callers log and drop them.
        `corrects` says whether a quote gives a stored subject a new value (then it is no temporary remark)."""
        if self._llm is None or submitted_text is None or not input_in_range(submitted_text):
            return ExtractionOutcome()
        # the rules (and the claim grammar they use) load with the first turn in range, never for one out of it
        from paicli.memory import extract_rules as rules

        safe = rules.safe_input(submitted_text, self.hardened)
        if not rules.worth_asking(safe, self.hardened, corrects):
            return ExtractionOutcome()
        response = self._llm.chat(self.prompt_for(safe), None, max_tokens=OUTPUT_CAP)
        if response.usage is not None and self._on_usage is not None:
            try:
                self._on_usage(response.usage)  # the call counts in the session's token budget (spec 5.1)
            except Exception:
                log.warning("usage callback failed", exc_info=True)
        quotes = rules.validate_quotes(response.message.content, safe, self.hardened, corrects)
        return ExtractionOutcome(quotes, True, response.usage)


def write_order(quotes: Sequence[str]) -> list[str]:
    """A turn's quotes in the order they are written: one that only says a value is over before those that give
    a value (`CI runs on B now, we moved off A`). The value written last supersedes the denial as well; written
    first, it would leave the denial behind as a second live fact on its subject."""
    if len(quotes) < 2:
        return list(quotes)  # nothing to order: the claim grammar stays unloaded for a turn without facts
    from paicli.memory.relation import denial_only

    return sorted(quotes, key=lambda quote: not denial_only(quote))


class AutomaticStore(Protocol):
    """The part of `LongTermMemory` the write path needs (corrections supersede, conflicts stay pending)."""

    def write_automatic(self, entry: MemoryEntry) -> MemoryWriteResult: ...


def auto_fact_metadata(project_key: str) -> dict[str, str]:
    return {"source": AUTO_SOURCE, "scope": "project", "project": project_key, "verification_pending": "true"}


def store_extracted(
    store: AutomaticStore, quotes: Sequence[str], project_key: str, clock: Clock | None = None
) -> list[MemoryEntry]:
    """Write each quote as a new pending project FACT; a re-statement only confirms the stored one."""
    from paicli.memory.clock import utc_now
    from paicli.memory.entry import new_fact

    saved: list[MemoryEntry] = []
    for quote in quotes:
        entry = new_fact(quote, auto_fact_metadata(project_key), clock or utc_now)
        try:
            result = store.write_automatic(entry)
            if result.written and result.entry is not None:
                saved.append(result.entry)
        except Exception:  # a locked or unreadable store must not break the session
            log.warning("automatic memory write failed", exc_info=True)
    return saved


def saved_message(count: int) -> str:
    """The line the REPL prints after a background extraction saved something (spec 5.1, our words)."""
    return f"💾 从你这轮的话里记下了 {count} 条项目事实，标为待核实；/memory list 可以查看，记错的可以删掉。"
