"""Local sparse TF-IDF vectors for memory retrieval: no model, no download, numpy only.

Features of a text (`features.py`): its jieba word tokens, the parts of code identifiers, a crude English stem,
the inner bigrams of longer Han words and the concepts of a small bilingual lexicon. A query term counts as held
by a memory that has one of its forms (`features.term_forms`): the keyword tier of a match in another wording.

The index is keyed by memory id and updated incrementally: a saved or deleted memory re-segments that one
text only. Postings are flat arrays (document, feature, term weight); idf and document norms are derived
from them with a few vectorised passes whenever the set changed, so the scores always equal those of an
index built from scratch over the same memories. `paicli.memory.vector_file` persists it next to the memory file.

Beside the features it keeps each document's jieba tokens (lower-cased, as the keyword score sees words) as
a second set of postings, for BM25 (rank-bm25's BM25Okapi, computed over these arrays) and for telling a
query term that is a whole word of a memory from one that only occurs inside a longer word. And each
document's owner reading (`readings.py`): parsed once, when the document is indexed, for the owner rule.
"""

from __future__ import annotations

import hashlib
import math
from array import array
from collections import Counter
from collections.abc import Collection, Iterable, Sequence
from typing import TYPE_CHECKING

from paicli.memory.arrays import member
from paicli.memory.features import features
from paicli.memory.lexicon import concept_table
from paicli.memory.lookalikes import copy_keys
from paicli.memory.packed_text import Digests
from paicli.memory.stopwords import STOP_WORDS
from paicli.memory.table import MASK, digest, doc_hash
from paicli.memory.tokenize import document_tokens

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]
    IntArray = npt.NDArray[np.int64]
    BoolArray = npt.NDArray[np.bool_]
    # postings are kept as int32 / float32 (half the memory of a 50k-memory index); scores are float64
    PostingInts = npt.NDArray[np.int32]
    PostingFloats = npt.NDArray[np.float32]

# Bump when features() changes: a persisted index built from other features is then discarded.
FEATURES_VERSION = "2"
# A feature in fewer than one memory in RARE_SHARE is as rare as any: without this ceiling, idf of a memory's
# one-off values (numbers, names) grows with the log of the store while common words' stays put, so the cosine
# of a fact to a query about its words falls as unrelated memories pile up, below VECTOR_FLOOR at 50k (issue 37).
RARE_SHARE = 1000
IDF_CEILING = math.log(RARE_SHARE) + 1.0
BM25_K1, BM25_B, BM25_EPSILON = 1.5, 0.75, 0.25  # rank-bm25's BM25Okapi defaults
_STOP_WORDS = STOP_WORDS

__all__ = ["VectorIndex", "build_index", "document_tokens", "features", "features_key"]


def _weight(count: int) -> float:
    return 1.0 + math.log(count)


def same_content(contents: list[str | None], digests: Digests, position: int, content: str) -> bool:
    """Whether the entry at `position` still holds `content`: identity first (the store hands out the same strings
    each query), the digest only once per entry, after which the text is kept for the identity check."""
    known = contents[position]
    if known is not None:
        return known is content or known == content
    if digests[position] != digest(content):
        return False
    contents[position] = content
    return True


def features_key() -> str:
    """Identifies the feature extraction: the version, the lexicon and the stop words."""
    table = sorted(concept_table().items())
    text = repr((FEATURES_VERSION, table, sorted(_STOP_WORDS)))
    return hashlib.blake2b(text.encode("utf-8"), digest_size=8).hexdigest()


class VectorIndex:
    """Inverted TF-IDF index over memories keyed by id; `sync` adds, replaces and drops documents one by one.

    Positions are never reused while the index lives (a dropped document just loses its postings), so
    callers can keep positions until the next `sync`. Not thread-safe: the retriever locks.
    """

    def __init__(self) -> None:
        import numpy as np

        from paicli.memory.readings import Readings  # the claim grammar: with the first index, not at import

        self.vocabulary: dict[str, int] = {}
        self.ids: list[str | None] = []  # position -> id, None once dropped
        self.contents: list[str | None] = []  # None: loaded from disk and not yet compared with a text
        self.digests = Digests()
        self.positions: dict[str, int] = {}
        self._doc: PostingInts = np.zeros(0, dtype=np.int32)
        self._col: PostingInts = np.zeros(0, dtype=np.int32)
        self._tf: PostingFloats = np.zeros(0, dtype=np.float32)
        self._pending: tuple[list[int], list[int], list[float]] = ([], [], [])
        self._dropped: set[int] = set()
        self._stats: tuple[FloatArray, FloatArray, FloatArray] | None = None  # idf, tf-idf, norms
        self.updates = 0  # documents added, replaced or dropped since construction
        self.fingerprint = 0  # see table.doc_hash
        self.words: dict[str, int] = {}  # jieba token -> column of the token postings
        self.lengths: list[int] = []  # tokens per position (BM25 document length)
        self._tdoc: PostingInts = np.zeros(0, dtype=np.int32)
        self._tcol: PostingInts = np.zeros(0, dtype=np.int32)
        self._ttf: PostingFloats = np.zeros(0, dtype=np.float32)
        self._tpending: tuple[list[int], list[int], list[float]] = ([], [], [])
        self._bm25: tuple[FloatArray, float] | None = None  # idf per word column, average length
        self.readings = Readings()  # each document's owner reading (the ranking's owner rule)
        # per position: `lookalikes.copy_keys` of its text (0: none, or dropped); 8 bytes each, not an int object
        self.copy_keys = array("q")
        self.core_keys = array("q")
        self._key_arrays: tuple[IntArray, IntArray] | None = None

    @property
    def size(self) -> int:
        return len(self.positions)

    @property
    def unseen_idf(self) -> float:
        return min(math.log(self.size + 1.0) + 1.0, IDF_CEILING)

    # ---- changes -----------------------------------------------------------------------------------

    def sync(self, documents: Iterable[tuple[str, str]], drop_missing: bool = True) -> bool:
        """Make the index hold exactly these (id, text) documents (or at least them, without drop_missing)."""
        seen: set[str] = set()
        changed = False
        for doc_id, content in documents:
            if doc_id in seen:
                continue
            seen.add(doc_id)
            position = self.positions.get(doc_id)
            if position is not None and self._same(position, content):
                continue
            if position is not None:
                self._drop(position)
            self._add(doc_id, content)
            changed = True
        if drop_missing:
            for doc_id in [known for known in self.positions if known not in seen]:
                self._drop(self.positions[doc_id])
                changed = True
        return changed

    def _same(self, position: int, content: str) -> bool:
        return same_content(self.contents, self.digests, position, content)

    def holds_text(self, position: int, content: str) -> bool:
        """Whether the document at `position` is live and has this text."""
        return self.ids[position] is not None and self._same(position, content)

    def remove(self, doc_id: str) -> bool:
        position = self.positions.get(doc_id)
        if position is not None:
            self._drop(position)
        return position is not None

    def _add(self, doc_id: str, content: str) -> None:
        position = len(self.ids)
        self.ids.append(doc_id)
        self.contents.append(content)
        self.digests.append(digest(content))
        self.fingerprint = (self.fingerprint + doc_hash(doc_id, self.digests[-1])) & MASK
        self.positions[doc_id] = position
        docs, cols, tfs = self._pending
        for feature, count in features(content).items():
            docs.append(position)
            cols.append(self.vocabulary.setdefault(feature, len(self.vocabulary)))
            tfs.append(_weight(count))
        tokens = document_tokens(content)
        self.lengths.append(len(tokens))
        tdocs, tcols, ttfs = self._tpending
        for word, count in Counter(tokens).items():
            tdocs.append(position)
            tcols.append(self.words.setdefault(word, len(self.words)))
            ttfs.append(float(count))
        self.readings.add(position, content)
        key, core = copy_keys(content)
        self.copy_keys.append(key)
        self.core_keys.append(core)
        self._key_arrays = None
        self._stats = self._bm25 = None
        self.updates += 1

    def _drop(self, position: int) -> None:
        doc_id = self.ids[position]
        if doc_id is not None:
            del self.positions[doc_id]
            self.fingerprint = (self.fingerprint - doc_hash(doc_id, self.digests[position])) & MASK
        self.ids[position] = None
        self.contents[position] = None
        self.lengths[position] = 0
        self.copy_keys[position] = self.core_keys[position] = 0
        self._key_arrays = None
        self._dropped.add(position)
        self._stats = self._bm25 = None
        self.updates += 1

    # ---- arrays ------------------------------------------------------------------------------------

    def postings(self) -> tuple[PostingInts, PostingInts, PostingFloats]:
        """(document position, feature column, term weight) of every live posting."""
        self._fold_pending()
        return self._doc, self._col, self._tf

    def token_postings(self) -> tuple[PostingInts, PostingInts, PostingFloats]:
        """(document position, word column, count) of every live token posting."""
        self._fold_pending()
        return self._tdoc, self._tcol, self._ttf

    def _fold_pending(self) -> None:
        import numpy as np

        docs, cols, tfs = self._pending
        if docs:
            self._doc = np.concatenate([self._doc, np.asarray(docs, np.int32)])
            self._col = np.concatenate([self._col, np.asarray(cols, np.int32)])
            self._tf = np.concatenate([self._tf, np.asarray(tfs, np.float32)])
        docs, cols, tfs = self._tpending
        if docs:
            self._tdoc = np.concatenate([self._tdoc, np.asarray(docs, np.int32)])
            self._tcol = np.concatenate([self._tcol, np.asarray(cols, np.int32)])
            self._ttf = np.concatenate([self._ttf, np.asarray(tfs, np.float32)])
        self._pending, self._tpending = ([], [], []), ([], [], [])
        if self._dropped:
            dropped = np.fromiter(self._dropped, dtype=np.int32)
            keep = ~member(self._doc, dropped)
            self._doc, self._col, self._tf = self._doc[keep], self._col[keep], self._tf[keep]
            keep = ~member(self._tdoc, dropped)
            self._tdoc, self._tcol, self._ttf = self._tdoc[keep], self._tcol[keep], self._ttf[keep]
            self._dropped = set()

    def load_postings(self, docs: PostingInts, cols: PostingInts, tfs: PostingFloats) -> None:
        self._doc, self._col, self._tf = docs, cols, tfs
        self._stats = None

    def load_token_postings(self, docs: PostingInts, cols: PostingInts, tfs: PostingFloats) -> None:
        self._tdoc, self._tcol, self._ttf = docs, cols, tfs
        self._bm25 = None

    def _statistics(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        import numpy as np

        if self._stats is None:
            docs, cols, tfs = self.postings()
            df = np.bincount(cols, minlength=len(self.vocabulary)).astype(np.float64)
            # a feature nobody has left gets the unseen idf
            idf: FloatArray = np.minimum(np.log((self.size + 1.0) / (df + 1.0)) + 1.0, IDF_CEILING)
            weights = idf[cols]  # in place from here: each temporary is megabytes of fresh pages at 50k
            weights *= tfs
            squares = np.square(weights)
            norms = np.sqrt(np.bincount(docs, weights=squares, minlength=len(self.ids)).astype(np.float64))
            self._stats = (idf, weights, norms)
        return self._stats

    def _bm25_statistics(self) -> tuple[FloatArray, float]:
        """BM25Okapi's idf per word (negative ones floored to epsilon x the average) and average length."""
        import numpy as np

        if self._bm25 is None:
            _, cols, _ = self.token_postings()
            corpus = max(self.size, 1)
            df = np.bincount(cols, minlength=len(self.words)).astype(np.float64)
            idf = np.log(corpus - df + 0.5) - np.log(df + 0.5)
            present = df > 0
            average = float(idf[present].mean()) if present.any() else 0.0
            idf = np.where(idf < 0, BM25_EPSILON * average, idf)
            idf[~present] = 0.0
            self._bm25 = (idf, max(sum(self.lengths) / corpus, 1e-9))
        return self._bm25

    def bm25(self, words: Collection[str]) -> tuple[FloatArray, npt.NDArray[np.bool_]]:
        """BM25 of every position for these words, and whether each position holds one of them as a word."""
        import numpy as np

        scores = np.zeros(len(self.ids), dtype=np.float64)
        holds = np.zeros(len(self.ids), dtype=bool)
        columns = [self.words[w] for w in words if w in self.words]
        if not columns or self.size == 0:
            return scores, holds
        idf, average = self._bm25_statistics()
        docs, cols, tfs = self.token_postings()
        lengths = np.asarray(self.lengths, dtype=np.float64)
        for column in columns:
            hit = np.flatnonzero(cols == column)
            doc, tf = docs[hit], tfs[hit]
            norm = BM25_K1 * (1 - BM25_B + BM25_B * lengths[doc] / average)
            scores[doc] += idf[column] * tf * (BM25_K1 + 1) / (tf + norm)
            holds[doc] = True
        return scores, holds

    def key_arrays(self) -> tuple[IntArray, IntArray]:
        """`copy_keys` and `core_keys` as arrays (built again only after a change)."""
        import numpy as np

        if self._key_arrays is None:  # copies: a view would pin the arrays' buffers against appends
            self._key_arrays = (
                np.frombuffer(self.copy_keys, dtype=np.int64).copy(),
                np.frombuffer(self.core_keys, dtype=np.int64).copy(),
            )
        return self._key_arrays

    def prepare(self) -> None:
        """Fold pending changes into the arrays and derive idf and norms now rather than in the next query."""
        self._statistics()
        self._bm25_statistics()
        self.key_arrays()

    # ---- queries -----------------------------------------------------------------------------------

    def similarities(self, query: str) -> FloatArray:
        """Cosine similarity of the query to every position (0 for dropped ones)."""
        return self.search(query, ())[0]

    def search(
        self, query: str, groups: Sequence[Collection[str]]
    ) -> tuple[FloatArray, list[BoolArray | None]]:
        """The cosines of `similarities`, and for each group of features (a query term's forms: `term_forms`) the
        positions that hold one of them (None: no memory does), in the same pass."""
        import numpy as np

        query_counts = features(query)
        if self.size == 0 or not query_counts:
            return np.zeros(len(self.ids), dtype=np.float64), [None] * len(groups)
        idf, weights, norms = self._statistics()
        query_weights = np.zeros(len(self.vocabulary), dtype=np.float64)
        query_norm_sq = 0.0
        for feature, count in query_counts.items():
            column = self.vocabulary.get(feature)
            weight = _weight(count) * (self.unseen_idf if column is None else float(idf[column]))
            query_norm_sq += weight * weight
            if column is not None:
                query_weights[column] = weight
        forms = [[self.vocabulary[f] for f in group if f in self.vocabulary] for group in groups]
        wanted = query_weights > 0
        for columns in forms:
            wanted[columns] = True
        docs, cols, _ = self.postings()
        hit = np.flatnonzero(wanted[cols])
        hit_docs, hit_cols = docs[hit], cols[hit]
        contribution = query_weights[hit_cols] * weights[hit]
        scores = np.bincount(hit_docs, weights=contribution, minlength=len(self.ids)).astype(np.float64)
        held: list[BoolArray | None] = []
        for columns in forms:
            mark = None
            if columns:
                mark = np.zeros(len(self.ids), dtype=bool)
                mark[hit_docs[member(hit_cols, columns)]] = True
            held.append(mark)
        denominator = math.sqrt(query_norm_sq) * norms
        return np.divide(scores, denominator, out=np.zeros_like(scores), where=denominator > 0), held


def build_index(texts: Iterable[str]) -> VectorIndex:
    """An index over `texts` whose ids are their positions ("0", "1", ...)."""
    index = VectorIndex()
    index.sync((str(i), text) for i, text in enumerate(texts))
    return index
