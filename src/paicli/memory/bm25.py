"""BM25 over jieba tokens for memory retrieval, kept beside the vector index (`long_term_memory.tokens.json`).

Scoring is rank-bm25's `BM25Okapi` (chosen over bm25s: it imports nothing but numpy, which retrieval already
loads, while bm25s's indexing needs scipy). Its corpus is built once and then updated memory by memory: an
added, changed or dropped memory touches its own document frequencies only, so a save never re-tokenises the
store. The tokens are saved beside the vector index, so a new process reads them instead of running jieba over
every memory (only the query is segmented).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rank_bm25 import BM25Okapi

from paicli.fsperm import write_private_text
from paicli.memory.tokenize import keep_token, segment
from paicli.memory.vector import digest, same_content

log = logging.getLogger(__name__)

SUFFIX = ".tokens.json"
FORMAT = 1


def index_path_for(memory_file: Path) -> Path:
    return memory_file.with_name(memory_file.stem + SUFFIX)


def document_tokens(content: str) -> list[str]:
    return [token for token in segment(content.lower()) if keep_token(token)]


class _Corpus(BM25Okapi):  # type: ignore[misc]
    """BM25Okapi whose documents can be replaced in place (position = document; a dropped one is empty)."""

    def __init__(self) -> None:
        super().__init__([[""]])  # BM25 divides by the corpus size: start from one empty-ish document
        self.doc_freqs: list[dict[str, int]] = []
        self.doc_len: list[int] = []
        self.nd: dict[str, int] = {}
        self.live = 0
        self.total_len = 0
        self.dirty = True

    def put(self, position: int, tokens: Sequence[str] | None) -> None:
        while len(self.doc_freqs) <= position:
            self.doc_freqs.append({})
            self.doc_len.append(0)
        old = self.doc_freqs[position]
        if old or self.doc_len[position]:
            self.live -= 1
            self.total_len -= self.doc_len[position]
            for word in old:
                self.nd[word] -= 1
                if not self.nd[word]:
                    del self.nd[word]
        frequencies: dict[str, int] = {}
        for word in tokens or ():
            frequencies[word] = frequencies.get(word, 0) + 1
        self.doc_freqs[position] = frequencies
        self.doc_len[position] = len(tokens or ())
        if tokens is not None:
            self.live += 1
            self.total_len += len(tokens)
            for word in frequencies:
                self.nd[word] = self.nd.get(word, 0) + 1
        self.dirty = True

    def refresh(self) -> None:
        if not self.dirty:
            return
        self.corpus_size = max(self.live, 1)
        self.avgdl = max(self.total_len / self.corpus_size, 1e-9)
        self.idf: dict[str, float] = {}
        if self.nd:
            self._calc_idf(self.nd)
        self.dirty = False


class TokenIndex:
    """Document tokens keyed by memory id, with their digests (to notice edited memories) and a BM25 corpus."""

    def __init__(self) -> None:
        self.ids: list[str | None] = []
        self.digests: list[str] = []
        self.tokens: list[list[str] | None] = []
        # the text last seen per position (None: loaded from disk, not yet compared)
        self.contents: list[str | None] = []
        self.positions: dict[str, int] = {}
        self._corpus = _Corpus()
        self.updates = 0

    def sync(self, documents: Iterable[tuple[str, str]], drop_missing: bool = True) -> bool:
        seen: set[str] = set()
        changed = False
        for doc_id, content in documents:
            seen.add(doc_id)
            position = self.positions.get(doc_id)
            if position is not None and self._same(position, content):
                continue
            self._put(doc_id, digest(content), document_tokens(content), position)
            self.contents[self.positions[doc_id]] = content
            changed = True
        if drop_missing:
            for doc_id in [d for d in self.positions if d not in seen]:
                position = self.positions.pop(doc_id)
                self.ids[position], self.tokens[position], self.contents[position] = None, None, None
                self._corpus.put(position, None)
                self.updates += 1
                changed = True
        return changed

    def _same(self, position: int, content: str) -> bool:
        return same_content(self.contents, self.digests, position, content)

    def _put(self, doc_id: str, fingerprint: str, tokens: list[str], position: int | None) -> None:
        if position is None:
            position = len(self.ids)
            self.ids.append(doc_id)
            self.contents.append(None)
            self.digests.append(fingerprint)
            self.tokens.append(tokens)
            self.positions[doc_id] = position
        else:
            self.digests[position] = fingerprint
            self.tokens[position] = tokens
        self._corpus.put(position, tokens)
        self.updates += 1

    def prepare(self) -> None:
        """Derive idf and the average length now (start-up warm-up) rather than in the first query."""
        self._corpus.refresh()

    def scores(self, query_tokens: Iterable[str], doc_ids: Sequence[str]) -> list[float]:
        """BM25 of each document in `doc_ids` (0.0 for an unknown id)."""
        words = [w for w in query_tokens if w]
        known = [(i, self.positions[d]) for i, d in enumerate(doc_ids) if d in self.positions]
        result = [0.0] * len(doc_ids)
        if not words or not known:
            return result
        self._corpus.refresh()
        batch = self._corpus.get_batch_scores(words, [p for _, p in known])
        for (slot, _), score in zip(known, batch, strict=True):
            result[slot] = float(score)
        return result

    def snapshot(self) -> dict[str, Any]:
        docs = [
            [doc_id, self.digests[p], self.tokens[p]]
            for p, doc_id in enumerate(self.ids)
            if doc_id is not None
        ]
        return {"format": FORMAT, "docs": docs}


def from_snapshot(data: Any) -> TokenIndex | None:
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("docs"), list):
        return None
    index = TokenIndex()
    for item in data["docs"]:
        if not (isinstance(item, list) and len(item) == 3 and isinstance(item[2], list)):
            return None
        doc_id, fingerprint, tokens = item
        if not isinstance(doc_id, str) or not isinstance(fingerprint, str) or doc_id in index.positions:
            return None
        index._put(doc_id, fingerprint, [str(t) for t in tokens], None)
    index.updates = 0
    return index


def load(path: Path) -> TokenIndex | None:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError:
        log.warning("token index %s unreadable; rebuilding it", path, exc_info=True)
        return None
    try:
        return from_snapshot(json.loads(raw.decode("utf-8")))
    except (ValueError, UnicodeDecodeError, RecursionError):
        log.warning("token index %s unusable; rebuilding it", path, exc_info=True)
        return None


def write(data: dict[str, Any], path: Path) -> None:
    temp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        write_private_text(temp, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
        os.replace(temp, path)
    finally:
        temp.unlink(missing_ok=True)
