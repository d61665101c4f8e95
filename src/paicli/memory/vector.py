"""Local sparse TF-IDF vectors for memory retrieval: no model, no download, numpy only.

Features of a text: its jieba word tokens, the parts of code identifiers (camelCase / snake_case),
a crude English stem, the inner bigrams of longer Han words (so 单元测试 still meets 测试), and the
concepts of a small bilingual lexicon (so 回退 meets 回滚 and deploy meets 部署).

The index is keyed by memory id and updated incrementally: a saved or deleted memory re-segments that one
text only. Postings are flat arrays (document, feature, term weight); idf and document norms are derived
from them with a few vectorised passes whenever the set changed, so the scores always equal those of an
index built from scratch over the same memories. `paicli.memory.vector_file` persists it next to the memory file.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from paicli.memory.lexicon import concept_table
from paicli.memory.tokenize import keep_token, segment

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]
    IntArray = npt.NDArray[np.int64]

# Bump when features() changes: a persisted index built from other features is then discarded.
FEATURES_VERSION = "1"

_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_IDENT_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# Function words carry no topic; they only make unrelated memories look similar.
_STOP_TEXT = (
    "什么 怎么 怎样 如何 为什么 哪里 哪个 哪些 多少 是否 可以 需要 应该 我们 你们 他们 这个 那个 这些 那些 "
    "一下 一个 现在 还是 或者 以及 然后 因为 所以 如果 the and for with what how which where when does "
    "should can are was were this that these those from into about"
)
_STOP_WORDS = frozenset(_STOP_TEXT.split())


def _stem(word: str) -> str:
    """A crude English stem: plural, -ing and -ed forms of a word share one feature."""
    if len(word) <= 3:
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "zes", "ches", "shes")):
        return word[:-2]
    base = word
    if word.endswith("ing") and len(word) >= 6:
        base = word[:-3]
    elif word.endswith("ed") and len(word) >= 5:
        base = word[:-2]
    elif word.endswith("s") and not word.endswith("ss"):
        base = word[:-1]
    if base != word and len(base) >= 3 and base[-1] == base[-2] and base[-1] not in "lsz":
        base = base[:-1]
    return base[:-1] if len(base) > 4 and base.endswith("e") else base


def _identifier_parts(raw_token: str) -> list[str]:
    if not raw_token.isascii() or len(raw_token) < 4:
        return []
    parts = [p.lower() for p in _IDENT_PART.findall(raw_token)]
    return parts if len(parts) > 1 else []


def _is_han(token: str) -> bool:
    return bool(_HAN_RUN.fullmatch(token))


def _word_forms(raw: str) -> list[str]:
    """The token, its stem, its identifier parts and (for Han words of 3+ chars) its inner bigrams."""
    token = raw.lower()
    forms = [token]
    if token.isascii() and token.isalpha():
        forms.append(_stem(token))
    forms.extend(_stem(part) for part in _identifier_parts(raw) if len(part) >= 2)
    if len(token) >= 3 and _is_han(token):
        forms.extend(token[i : i + 2] for i in range(len(token) - 1))
    return forms


def features(text: str) -> Counter[str]:
    """Feature counts of one text (case-insensitive): word forms plus the concepts they name."""
    concepts = concept_table()
    counts: Counter[str] = Counter()
    for raw in segment(text):
        if not keep_token(raw.lower()) or raw.lower() in _STOP_WORDS:
            continue
        seen: set[str] = set()
        for form in _word_forms(raw):
            if form in seen or form in _STOP_WORDS:
                continue
            seen.add(form)
            counts[form] += 1
            concept = concepts.get(form)
            if concept is not None and "c:" + concept not in seen:
                seen.add("c:" + concept)
                counts["c:" + concept] += 1
    return counts


def _weight(count: int) -> float:
    return 1.0 + math.log(count)


def digest(content: str) -> str:
    """A stable fingerprint of a memory's text (persisted, so it must not depend on the process)."""
    return hashlib.blake2b(content.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def same_content(contents: list[str | None], digests: list[str], position: int, content: str) -> bool:
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

        self.vocabulary: dict[str, int] = {}
        self.ids: list[str | None] = []  # position -> id, None once dropped
        self.contents: list[str | None] = []  # None: loaded from disk and not yet compared with a text
        self.digests: list[str] = []
        self.positions: dict[str, int] = {}
        self._doc = np.zeros(0, dtype=np.int64)
        self._col = np.zeros(0, dtype=np.int64)
        self._tf = np.zeros(0, dtype=np.float64)
        self._pending: tuple[list[int], list[int], list[float]] = ([], [], [])
        self._dropped: set[int] = set()
        self._stats: tuple[FloatArray, FloatArray, FloatArray] | None = None  # idf, tf-idf, norms
        self.updates = 0  # documents added, replaced or dropped since construction

    @property
    def size(self) -> int:
        return len(self.positions)

    @property
    def unseen_idf(self) -> float:
        return math.log(self.size + 1.0) + 1.0

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

    def _add(self, doc_id: str, content: str) -> None:
        position = len(self.ids)
        self.ids.append(doc_id)
        self.contents.append(content)
        self.digests.append(digest(content))
        self.positions[doc_id] = position
        docs, cols, tfs = self._pending
        for feature, count in features(content).items():
            docs.append(position)
            cols.append(self.vocabulary.setdefault(feature, len(self.vocabulary)))
            tfs.append(_weight(count))
        self._stats = None
        self.updates += 1

    def _drop(self, position: int) -> None:
        doc_id = self.ids[position]
        if doc_id is not None:
            del self.positions[doc_id]
        self.ids[position] = None
        self.contents[position] = None
        self._dropped.add(position)
        self._stats = None
        self.updates += 1

    # ---- arrays ------------------------------------------------------------------------------------

    def postings(self) -> tuple[IntArray, IntArray, FloatArray]:
        """(document position, feature column, term weight) of every live posting."""
        import numpy as np

        docs, cols, tfs = self._pending
        if docs:
            self._doc = np.concatenate([self._doc, np.asarray(docs, dtype=np.int64)])
            self._col = np.concatenate([self._col, np.asarray(cols, dtype=np.int64)])
            self._tf = np.concatenate([self._tf, np.asarray(tfs, dtype=np.float64)])
            self._pending = ([], [], [])
        if self._dropped:
            keep = ~np.isin(self._doc, np.fromiter(self._dropped, dtype=np.int64))
            self._doc, self._col, self._tf = self._doc[keep], self._col[keep], self._tf[keep]
            self._dropped = set()
        return self._doc, self._col, self._tf

    def load_postings(self, docs: IntArray, cols: IntArray, tfs: FloatArray) -> None:
        self._doc, self._col, self._tf = docs, cols, tfs
        self._stats = None

    def _statistics(self) -> tuple[FloatArray, FloatArray, FloatArray]:
        import numpy as np

        if self._stats is None:
            docs, cols, tfs = self.postings()
            df = np.bincount(cols, minlength=len(self.vocabulary)).astype(np.float64)
            idf = (
                np.log((self.size + 1.0) / (df + 1.0)) + 1.0
            )  # a feature nobody has left gets the unseen idf
            weights = tfs * idf[cols]
            norms = np.sqrt(
                np.bincount(docs, weights=weights * weights, minlength=len(self.ids)).astype(np.float64)
            )
            self._stats = (idf, weights, norms)
        return self._stats

    def prepare(self) -> None:
        """Fold pending changes into the arrays and derive idf and norms now rather than in the next query."""
        self._statistics()

    # ---- queries -----------------------------------------------------------------------------------

    def similarities(self, query: str) -> FloatArray:
        """Cosine similarity of the query to every position (0 for dropped ones)."""
        import numpy as np

        query_counts = features(query)
        if self.size == 0 or not query_counts:
            return np.zeros(len(self.ids), dtype=np.float64)
        idf, weights, norms = self._statistics()
        query_weights = np.zeros(len(self.vocabulary), dtype=np.float64)
        query_norm_sq = 0.0
        for feature, count in query_counts.items():
            column = self.vocabulary.get(feature)
            weight = _weight(count) * (self.unseen_idf if column is None else float(idf[column]))
            query_norm_sq += weight * weight
            if column is not None:
                query_weights[column] = weight
        docs, cols, _ = self.postings()
        contribution = query_weights[cols]
        hit = np.flatnonzero(contribution)
        scores = np.bincount(docs[hit], weights=contribution[hit] * weights[hit], minlength=len(self.ids))
        scores = scores.astype(np.float64, copy=False)  # bincount of nothing is an integer array
        denominator = math.sqrt(query_norm_sq) * norms
        return np.divide(scores, denominator, out=np.zeros_like(scores), where=denominator > 0)


def build_index(texts: Iterable[str]) -> VectorIndex:
    """An index over `texts` whose ids are their positions ("0", "1", ...)."""
    index = VectorIndex()
    index.sync((str(i), text) for i, text in enumerate(texts))
    return index
