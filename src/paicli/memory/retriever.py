"""Long-term memory retrieval (spec 6.1 + the article's local vector score) and its budgeted rendering.

Scoring keeps the reference's keyword score exactly. The vector cosine is additive: among entries with
a keyword match it breaks ties and reorders by meaning, and entries without any keyword match may follow
them only when their cosine clears a floor, so every entry the reference ranks still passes and stays
above every entry the reference drops.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from datetime import datetime, timezone, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from paicli.config import knobs
from paicli.config.env import EnvLookup
from paicli.memory.recall_block import MemoryEntryLike, Ranked, aware, render
from paicli.memory.tokenize import segment, tokenize

if TYPE_CHECKING:
    from paicli.memory.bm25 import TokenIndex
    from paicli.memory.vector import FloatArray, VectorIndex
    from paicli.memory.vector_file import Persister

MAX_RESULTS = 10
SCORE_FACTOR = 1.2
VECTOR_WEIGHT = 0.5
VECTOR_FLOOR = 0.15
BM25_WEIGHT = (
    0.02  # of the best BM25 score among the candidates: a tie-breaker (evals/retrieval: more costs MRR)
)
CONFIRMATION_BOOST = 0.1  # per confirmation the user gave (duplicate save, /memory verify, re-statement)
MAX_CONFIRMATIONS = 5


class MemorySource(Protocol):
    def get_all(self, project_key: str | None) -> Sequence[MemoryEntryLike]:
        """The entries visible in a project; None: every entry (the vector index covers them all)."""
        ...


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def is_truth(entry: MemoryEntryLike) -> bool:
    """Superseded facts and unsettled conflicts are history, never served as facts."""
    metadata = entry.metadata
    if "supersededBy" in metadata and str(metadata["supersededBy"]).strip():
        return False
    return "conflictPending" not in metadata or str(metadata["conflictPending"]).strip().lower() != "true"


def confirmation_factor(entry: MemoryEntryLike) -> float:
    raw = str(entry.metadata.get("confirmations", "")).strip()
    count = min(int(raw), MAX_CONFIRMATIONS) if raw.isdigit() else 0
    return 1.0 + CONFIRMATION_BOOST * count


def time_decay(entry: MemoryEntryLike, now: datetime) -> float:
    age_hours = max(0.0, (aware(now) - aware(entry.timestamp)).total_seconds() / 3600.0)
    return max(0.5, 1.0 - age_hours / 24.0)


def keyword_relevance(query_lower: str, tokens: set[str], content_lower: str, decay: float) -> float:
    """The reference's relevance before the 1.2 factor."""
    if query_lower in content_lower:
        return 1.0
    if not tokens:
        return 0.0
    matched = sum(1 for token in tokens if token in content_lower)
    return matched / len(tokens) * decay if matched else 0.0


class MemoryRetriever:
    """Finds the memories relevant to a query and renders the `## 相关长期记忆` block.

    With `index_path`, the vector index is loaded from there on first use (or by `warm`) and saved back in
    the background after it changed; otherwise it lives in memory only. Either way it is updated entry by
    entry, never rebuilt because one memory was saved or deleted.
    """

    def __init__(
        self,
        store: MemorySource,
        env: EnvLookup | None = None,
        clock: Callable[[], datetime] = _utc_now,
        zone: tzinfo | None = None,
        index_path: Path | None = None,
    ) -> None:
        self._store = store
        self._env = env or EnvLookup()
        self._clock = clock
        self._zone = zone
        self.vector_enabled = knobs.MEMORY_VECTOR.read(self._env)
        self._lock = threading.Lock()
        self._vectors: VectorIndex | None = None
        self._index_path = index_path if self.vector_enabled else None
        self._persister: Persister | None = None
        self._lowered: dict[str, tuple[str, str]] = {}
        self._tokens: TokenIndex | None = None
        self._tokens_path = _tokens_path(self._index_path)
        self._token_persister: Persister | None = None
        self.last_injected: list[str] = []  # contents rendered by the last build_context, in order
        self._vectors_changed = False  # the vector index took a change the token index has not seen yet
        self.index_builds = 0  # indexes built from nothing (no usable saved one)
        self.save_delay = 1.0  # seconds between a change and saving the index (coalesces bursts of saves)

    @property
    def index_updates(self) -> int:
        """Documents added, replaced or dropped one by one since the index was loaded or built."""
        return self._vectors.updates if self._vectors is not None else 0

    def warm(self, project_key: str | None = None) -> None:
        """Load jieba's dictionary and the vector index (synced with the store) before the first query."""
        self.warm_tokenizer()
        self.warm_index(project_key)

    def warm_tokenizer(self) -> None:
        segment("预热")

    def warm_index(self, project_key: str | None = None) -> None:
        """Everything a first query in `project_key` would otherwise prepare: the index (loaded or built, synced
        with the store, idf and norms derived) and the lower-cased texts the keyword score scans."""
        entries = self._store.get_all(project_key) if project_key is not None else ()
        with self._lock:
            self._lowered_texts(entries)
            if self.vector_enabled:
                self._synced_index(entries).prepare()
                self._synced_tokens(entries).prepare()

    def flush_index(self, timeout: float = 10.0) -> bool:
        """Wait for a pending background save of the indexes (benchmarks, tests, shutdown)."""
        tokens = self._token_persister.flush(timeout) if self._token_persister is not None else True
        return (self._persister.flush(timeout) if self._persister is not None else True) and tokens

    def build_context(self, query: str, max_tokens: int, project_key: str, exclude_text: str = "") -> str:
        if not query or not query.strip():
            return ""
        now = self._clock()
        top = self.top(query, project_key, exclude_text)
        days = knobs.MEMORY_STALE_DAYS.read(self._env)
        root = Path(project_key) if project_key else None
        shown: list[str] = []
        block = render(top, max_tokens, now, days, self._zone, root, shown)
        self.last_injected = shown
        return block

    def top(self, query: str, project_key: str, exclude_text: str = "") -> list[Ranked]:
        """The entries `build_context` would render, best first."""
        if not query or not query.strip():
            return []
        ranked = self.rank(query, self._store.get_all(project_key), self._clock())
        return _first_not_visible(ranked, exclude_text) if exclude_text else ranked[:MAX_RESULTS]

    def rank(self, query: str, entries: Sequence[MemoryEntryLike], now: datetime) -> list[Ranked]:
        """Every entry with score > 0, best first (stable); keyword matches always precede vector-only ones."""
        entries = [entry for entry in entries if is_truth(entry)]
        if not entries or not query.strip():
            return []
        query_lower = query.lower()
        tokens = tokenize(query_lower)
        with self._lock:
            lowered = self._lowered_texts(entries)
            similarities = self._similarities(query, entries) if self.vector_enabled else None
            positions = _candidates(lowered, query_lower, tokens, similarities)
            bm25 = (
                self._bm25(tokens, [entries[p] for p in positions], entries) if self.vector_enabled else None
            )
        best = max(bm25, default=0.0) if bm25 else 0.0
        keyed: list[tuple[int, float, Ranked]] = []
        for slot, position in enumerate(positions):
            entry = entries[position]
            cosine = float(similarities[position]) if similarities is not None else 0.0
            decay = time_decay(entry, now)
            keyword = keyword_relevance(query_lower, tokens, lowered[position], decay) * SCORE_FACTOR
            vector = cosine * decay * VECTOR_WEIGHT * SCORE_FACTOR
            if bm25 is not None and best > 0:
                vector += bm25[slot] / best * decay * BM25_WEIGHT * SCORE_FACTOR
            boost = confirmation_factor(entry)
            if keyword > 0:
                score = (keyword + vector) * boost
                keyed.append((1, score, Ranked(entry, score, keyword)))
            elif cosine >= VECTOR_FLOOR:
                keyed.append((0, vector * boost, Ranked(entry, vector * boost, 0.0)))
        keyed.sort(key=lambda item: (item[0], item[1]), reverse=True)
        return [item[2] for item in keyed]

    def _lowered_texts(self, entries: Sequence[MemoryEntryLike]) -> list[str]:
        cache = self._lowered
        lowered: list[str] = []
        for entry in entries:
            known = cache.get(entry.id)
            if known is None or (known[0] is not entry.content and known[0] != entry.content):
                known = cache[entry.id] = (entry.content, entry.content.lower())
            lowered.append(known[1])
        if len(cache) > 2 * len(entries) + 64:
            live = {entry.id for entry in entries}
            self._lowered = {key: value for key, value in cache.items() if key in live}
        return lowered

    def _similarities(self, query: str, entries: Sequence[MemoryEntryLike]) -> FloatArray:
        """Caller holds the lock. Cosines in `entries` order."""
        import numpy as np

        index = self._synced_index(entries)
        scores = index.similarities(query)
        positions = np.fromiter((index.positions[entry.id] for entry in entries), np.int64, len(entries))
        return scores[positions]

    def _synced_index(self, entries: Sequence[MemoryEntryLike]) -> VectorIndex:
        """Caller holds the lock. The index over every stored entry plus `entries`, saved after a change."""
        index = self._vectors
        if index is None:
            index = self._vectors = self._open_index()
        changed = index.sync((entry.id, entry.content) for entry in self._store.get_all(None))
        changed = index.sync(((entry.id, entry.content) for entry in entries), drop_missing=False) or changed
        self._vectors_changed = self._vectors_changed or changed
        if changed and self._index_path is not None:
            if self._persister is None:
                from paicli.memory.vector_file import Persister

                self._persister = Persister(
                    self._index_path, self._lock, lambda: self._vectors, self.save_delay
                )
            self._persister.request()
        return index

    def _bm25(
        self, tokens: set[str], candidates: Sequence[MemoryEntryLike], entries: Sequence[MemoryEntryLike]
    ) -> list[float]:
        """Caller holds the lock. BM25 of each candidate over the query's jieba tokens."""
        if not candidates or not tokens:
            return [0.0] * len(candidates)
        index = self._synced_tokens(entries)
        return index.scores(tokens, [entry.id for entry in candidates])

    def _synced_tokens(self, entries: Sequence[MemoryEntryLike]) -> TokenIndex:
        """Caller holds the lock. The token index over every stored entry, loaded from disk when saved."""
        from paicli.memory import bm25

        index = self._tokens
        if index is not None and not self._vectors_changed:
            return index  # synced with the same store as the vector index, which found nothing new
        self._vectors_changed = False
        if index is None:
            loaded = bm25.load(self._tokens_path) if self._tokens_path is not None else None
            index = self._tokens = loaded if loaded is not None else bm25.TokenIndex()
        changed = index.sync((entry.id, entry.content) for entry in self._store.get_all(None))
        extra = [(entry.id, entry.content) for entry in entries if entry.id not in index.positions]
        changed = index.sync(extra, drop_missing=False) or changed
        if changed and self._tokens_path is not None:
            if self._token_persister is None:
                from paicli.memory.vector_file import Persister

                self._token_persister = Persister(
                    self._tokens_path,
                    self._lock,
                    lambda: self._tokens,
                    self.save_delay,
                    take=lambda found: found.snapshot(),
                    put=bm25.write,
                )
            self._token_persister.request()
        return index

    def _open_index(self) -> VectorIndex:
        from paicli.memory.vector import VectorIndex

        if self._index_path is not None:
            from paicli.memory.vector_file import load

            loaded = load(self._index_path)
            if loaded is not None:
                return loaded
        self.index_builds += 1
        return VectorIndex()


def _candidates(
    lowered: Sequence[str], query_lower: str, tokens: set[str], similarities: FloatArray | None
) -> list[int]:
    """Positions that can score > 0, in store order; whole-list scans stay in C for large stores."""
    hits = {i for i, content in enumerate(lowered) if query_lower in content}
    for token in tokens:
        hits.update(i for i, found in enumerate([token in content for content in lowered]) if found)
    if similarities is not None:
        import numpy as np

        hits.update(int(i) for i in np.flatnonzero(similarities >= VECTOR_FLOOR))
    return sorted(hits)


def _tokens_path(index_path: Path | None) -> Path | None:
    if index_path is None:
        return None
    from paicli.memory.vector_file import SUFFIX

    name = index_path.name
    stem = name[: -len(SUFFIX)] if name.endswith(SUFFIX) else index_path.stem
    return index_path.with_name(stem + ".tokens.json")


def _first_not_visible(ranked: Sequence[Ranked], visible: str) -> list[Ranked]:
    """The best MAX_RESULTS entries not already in the history; stops early (the history can be long)."""
    kept: list[Ranked] = []
    for item in ranked:
        if not _already_visible(item.entry.content, visible):
            kept.append(item)
            if len(kept) == MAX_RESULTS:
                break
    return kept


def _already_visible(content: str, visible: str) -> bool:
    stripped = content.strip()
    return bool(stripped) and stripped in visible
