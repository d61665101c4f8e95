"""Search terms of code and of queries (pure): identifiers split at camelCase and snake_case, a crude English
stem, Han text segmented by jieba (only Han runs: code itself never loads the dictionary) with the inner
bigrams of longer words, and the concepts of a programming glossary and memory's bilingual lexicon, so 解析配置 meets `parse_config`."""

from __future__ import annotations

import re

from paicli.codeindex.glossary import glossary_table
from paicli.memory.lexicon import concept_table
from paicli.memory.stopwords import STOP_WORDS
from paicli.memory.tokenize import segment

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
CONCEPT_PREFIX = "c:"
# words that say nothing about what code does (every Python file has them)
_CODE_NOISE = frozenset(
    [
        "self",
        "cls",
        "def",
        "return",
        "import",
        "from",
        "none",
        "true",
        "false",
        "the",
        "and",
        "for",
        "not",
        "this",
        "that",
        "with",
        "none",
        "is",
        "in",
        "of",
        "to",
        "a",
        "an",
        "if",
        "else",
        "elif",
        "pass",
        "class",
        "function",
        "const",
        "let",
        "var",
        "new",
        "public",
        "private",
        "static",
        "void",
    ]
)


def stem(word: str) -> str:
    """Plural, -ing and -ed forms share one term (parsing, parsed, parses -> pars)."""
    if len(word) <= 3:
        return word
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            base = word[: -len(suffix)] + keep
            if len(base) > 3 and base[-1] == base[-2] and base[-1] not in "lsz":
                base = base[:-1]
            return base[:-1] if len(base) > 4 and base.endswith("e") else base
    return word[:-1] if len(word) > 4 and word.endswith("e") else word


def identifier_parts(identifier: str) -> list[str]:
    """`parseHTTPConfig_file` -> parse, http, config, file (lower case)."""
    return [part.lower() for piece in identifier.split("_") for part in _PART.findall(piece)]


def _han_terms(run: str) -> list[str]:
    terms: list[str] = []
    for word in segment(run):
        word = word.strip()
        if not word or word in STOP_WORDS:
            continue
        terms.append(word)
        if len(word) >= 3:
            terms.extend(word[i : i + 2] for i in range(len(word) - 1))
    if len(run) == 1 and run not in terms:
        terms.append(run)
    return terms


def terms(text: str) -> list[str]:
    """Every search term of `text`, in order, repeated as often as it occurs (BM25 counts them)."""
    concepts, glossary = concept_table(), glossary_table()
    out: list[str] = []
    for match in _WORD.finditer(text):
        raw = match.group()
        if raw[0] >= "\u3400":
            pairs = [(word, word) for word in _han_terms(raw)]
        else:
            parts = identifier_parts(raw)
            pairs = [(raw.lower(), raw.lower())] if len(parts) > 1 else []
            pairs.extend((part, stem(part)) for part in parts)
        for word, term in pairs:
            if (len(term) < 2 and term < "\u3400") or word in _CODE_NOISE:
                continue
            out.append(term)
            for table in (glossary, concepts):
                concept = table.get(word) or table.get(term)
                if concept is not None:
                    out.append(CONCEPT_PREFIX + concept)
    return out


def query_terms(text: str) -> list[str]:
    """A query's distinct terms, in order of first appearance."""
    return list(dict.fromkeys(terms(text)))
