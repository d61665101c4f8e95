"""The features of a text for the local vector score (`vector.py`): its jieba word tokens, the parts of code
identifiers (camelCase / snake_case), a crude English stem, the inner bigrams of longer Han words (so 单元测试 still
meets 测试), and the concepts of a small bilingual lexicon (so 回退 meets 回滚 and deploy meets 部署).
"""

from __future__ import annotations

import re
from collections import Counter

from paicli.memory.lexicon import concept_table
from paicli.memory.stopwords import STOP_WORDS
from paicli.memory.tokenize import keep_token, segment

_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_IDENT_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# Function words carry no topic; they only make unrelated memories look similar.
_STOP_WORDS = STOP_WORDS


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


def term_forms(term: str) -> set[str]:
    """The features that stand for a query term in a memory: the word, its stem and the concept of either."""
    forms = {term, _stem(term)} if term.isascii() and term.isalpha() else {term}
    concepts = concept_table()
    return forms | {"c:" + concepts[form] for form in forms if form in concepts}
