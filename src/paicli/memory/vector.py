"""Local sparse TF-IDF vectors for memory retrieval: no model, no download, numpy only.

Features of a text: its jieba word tokens, the parts of code identifiers (camelCase / snake_case),
a crude English stem, the inner bigrams of longer Han words (so 单元测试 still meets 测试), and the
concepts of a small bilingual lexicon (so 回退 meets 回滚 and deploy meets 部署). Documents are stored as an inverted index, so a query costs time proportional to
the postings of its own features, not to the number of memories.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from paicli.memory.lexicon import concept_table
from paicli.memory.tokenize import keep_token, segment

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]
    IntArray = npt.NDArray[np.int64]

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


@dataclass(frozen=True)
class VectorIndex:
    """Inverted TF-IDF index over a fixed list of documents (rebuild when the list changes)."""

    size: int
    vocabulary: dict[str, int]
    idf: FloatArray
    postings_docs: tuple[IntArray, ...]
    postings_weights: tuple[FloatArray, ...]
    doc_norms: FloatArray

    @property
    def unseen_idf(self) -> float:
        return math.log(self.size + 1.0) + 1.0

    def similarities(self, query: str) -> FloatArray:
        """Cosine similarity of the query to every document, in document order."""
        import numpy as np

        scores = np.zeros(self.size, dtype=np.float64)
        query_counts = features(query)
        if self.size == 0 or not query_counts:
            return scores
        query_norm_sq = 0.0
        for feature, count in query_counts.items():
            column = self.vocabulary.get(feature)
            idf = self.unseen_idf if column is None else float(self.idf[column])
            weight = _weight(count) * idf
            query_norm_sq += weight * weight
            if column is not None:
                scores[self.postings_docs[column]] += weight * self.postings_weights[column]
        denominator = math.sqrt(query_norm_sq) * self.doc_norms
        return np.divide(scores, denominator, out=np.zeros_like(scores), where=denominator > 0)


def build_index(texts: Sequence[str], feature_cache: dict[str, Counter[str]] | None = None) -> VectorIndex:
    """Index `texts`; `feature_cache` (text -> features) spares re-segmenting texts seen in an earlier build."""
    import numpy as np

    vocabulary: dict[str, int] = {}
    docs: list[list[int]] = []
    tfs: list[list[float]] = []
    cache: dict[str, Counter[str]] = {} if feature_cache is None else feature_cache
    for doc_id, text in enumerate(texts):
        counts = cache.get(text)
        if counts is None:
            counts = cache[text] = features(text)
        for feature, count in counts.items():
            column = vocabulary.setdefault(feature, len(docs))
            if column == len(docs):
                docs.append([])
                tfs.append([])
            docs[column].append(doc_id)
            tfs[column].append(_weight(count))
    size = len(texts)
    df = np.array([len(d) for d in docs], dtype=np.float64)
    idf = np.log((size + 1.0) / (df + 1.0)) + 1.0
    postings_docs = tuple(np.array(d, dtype=np.int64) for d in docs)
    postings_weights = tuple(np.array(t, dtype=np.float64) * idf[i] for i, t in enumerate(tfs))
    norms_sq = np.zeros(size, dtype=np.float64)
    for doc_ids, weights in zip(postings_docs, postings_weights, strict=True):
        norms_sq[doc_ids] += weights * weights
    return VectorIndex(size, vocabulary, idf, postings_docs, postings_weights, np.sqrt(norms_sq))
