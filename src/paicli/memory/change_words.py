"""Closed word classes of the marked-change rule (`marked_change.py`; issue 37), and how two words are one.

- A change marker says a value is new: `now`, `anymore`, `no longer`, `instead`, `again`, `back to`, `rather
  than`, `is out`, `from … to`, a verb of moving, replacing or setting an amount anew in any tense (by lemma:
  `raised`, `bumped`), 现在, 不再, 已经不, 又, a word opening with 改 / 换 or holding 迁, a verb of setting
  before 到 / 成 (`调到`, `加到`, `挪到`).
- A statement that asks, plans or adds (`should we…?`, `we might…`, `we also…`, 要不要, 可能, 也, 另外) changes
  nothing, whatever marker it carries.
- Two words are one when their lemmas or stems meet (`deployments` and `deploy`, `limited` and `limit`), when one
  is the other's abbreviation (a small table), or, in Chinese, when one is the other's head (`数据库`, `库`) or
  the other opens with it (`发版`, `发版日`).
Pure; `lemminflect` (an English lexicon of lemmas and parts of speech) is imported on first use.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from paicli.memory.subject_words import GENERIC

# abbreviation -> the words it stands for; both name one key
ABBREVIATIONS: dict[str, tuple[str, ...]] = {
    "db": ("database",), "ci": ("continuous", "integration"), "cd": ("continuous", "delivery"),
    "k8s": ("kubernetes",), "env": ("environment",), "prod": ("production",), "config": ("configuration",),
    "app": ("application",), "docs": ("documentation",), "auth": ("authentication",), "infra": ("infrastructure",),
    "deps": ("dependencies",), "pr": ("pull", "request"), "repo": ("repository",), "qa": ("quality", "assurance"),
}  # fmt: skip
_EN_MARKERS = frozenset(["now", "anymore", "instead", "again", "nowadays", "switched", "replaced"])
# moving or replacing a thing, or setting an amount anew (`raised to`, `bumped to`, `upgraded to`)
_EN_MARKER_LEMMAS = frozenset(
    ["move", "switch", "replace", "change", "migrate", "swap", "raise", "increase", "decrease", "reduce",
     "bump", "upgrade", "downgrade", "extend", "shorten"]
)  # fmt: skip
# the prefix test that spares the lexicon: `mov` (moving), `rais` (so `redis` never loads it)
_EN_MARKER_OPENINGS = tuple(sorted({lemma[: 3 if len(lemma) <= 4 else 4] for lemma in _EN_MARKER_LEMMAS}))
_EN_MARKER_PAIRS = frozenset(
    [("no", "longer"), ("back", "to"), ("rather", "than"), ("is", "out"), ("are", "out")]
)
_ZH_MARKERS = frozenset(["现在", "如今", "不再", "又", "改回", "换回", "回到"])
_ZH_MARKER_OPENINGS = ("改", "换")
_RETURN_WORDS = frozenset(["again", "又", "还是"])
_ZH_RETURN_OPENINGS = ("回到", "回归")
_EN_RETURN_LEMMAS = frozenset(["revert", "restore"])
_EN_RETURN_OPENINGS = ("rever", "resto")
_PREPOSITIONS = frozenset(["to", "on", "in", "at", "with", "onto", "into", "under", "behind"])
_ZH_MARKER_INSIDE = "迁"
# a verb that sets an amount or a place anew, before 到 / 成 / 为 / 至 (`调到`, `加到`, `提到`, `挪到`, `降成`)
_ZH_SETTERS = "调提挪搬升降加减涨缩增延"
_ZH_TO = "到成为至"
_ZH_NOT_CHANGE = frozenset(["改进", "改善", "改正", "改革", "换行"])
_QUESTION_OPENINGS = frozenset(
    ["should", "shall", "could", "would", "can", "do", "does", "did", "is", "are", "was", "were", "will", "what",
     "why", "how", "when", "where", "which", "who", "whether"]
)  # fmt: skip
_ZH_QUESTION = ("要不要", "是不是", "是否", "能不能", "该不该", "有没有", "可不可以")
# a possibility or a deliberation: never a fact that replaces another
_UNSURE = frozenset(
    ["might", "may", "maybe", "perhaps", "probably", "considering", "thinking", "proposing", "proposed",
     "可能", "也许", "或许", "打算", "考虑", "要不"]
)  # fmt: skip
# intentions and conditions: also said of a settled fact (`S should be V, not O`), so only this rule heeds them
_INTENDED = frozenset(
    ["could", "would", "should", "plan", "plans", "planning", "consider", "want", "wants", "hope", "if", "going",
     "idea", "suggest", "suggested", "计划", "准备", "想", "建议", "希望", "应该", "如果", "是否"]
)  # fmt: skip
PERSONAL = frozenset(["we", "i", "you", "they", "我们", "我", "大家", "咱们"])
_EN_ADDED = frozenset(["also", "too", "additionally", "besides", "another", "plus"])
_PLAINLY_ADDED = frozenset(["also", "additionally", "另外", "此外"])
_ZH_ADDED = frozenset(["也", "另外", "还有", "同时", "此外", "额外", "另", "还"])
# words that carry no subject: light verbs, prepositions, particles (beside the parser's own generic words)
LIGHT = GENERIC | frozenset(
    ["is", "are", "was", "were", "be", "been", "being", "am", "use", "uses", "used", "using", "go", "goes", "went",
     "gone", "going", "done", "get", "gets", "got", "make", "makes", "run", "runs", "ran", "running", "with",
     "by", "for", "to", "of", "as", "and", "or", "but", "via", "per", "than", "not", "no", "what", "it", "they",
     "after", "before", "every", "each", "into", "within", "until", "under", "across", "around", "least", "most",
     "through", "we're", "we've", "it's", "they're", "i'm", "同时",
     "them", "one", "live", "lives", "stay", "stays", "happen", "happens",
     "用", "使用", "采用", "是", "在", "由", "负责", "交给", "交由", "放", "放在", "跑", "跑在", "到", "给", "把", "被",
     "的", "了", "只要", "要", "会", "做", "为", "成", "上", "中", "里", "发", "发到", "归", "管", "走", "只", "不",
     "每", "之间", "最多", "最少", "至少", "最大", "最小", "最高", "最低", "down", "就行", "即可", "就够", "就好"]
)  # fmt: skip
# nouns that name the kind of a value, not the thing it belongs to (`打包工具`, `重试次数`)
CATEGORY = frozenset(
    ["tool", "tools", "version", "time", "count", "number", "value", "setting", "minimum", "maximum", "limit",
     "max", "min", "size", "threshold", "cap", "ttl", "expiry", "lifetime", "retention", "interval", "period",
     "frequency", "duration", "大小", "门槛", "阈值", "限制", "有效期", "间隔", "频率", "时长", "保留期",
     "工具", "次数", "数量", "人数", "版本", "时间", "地点", "方式", "周期", "频率", "数", "值", "配置", "上限", "下限"]
)  # fmt: skip
_DERIVED = ("ation", "ment", "age", "al", "ance", "ence", "ure", "y")
_SUFFIXES = ("ments", "ment", "ations", "ation", "ions", "ion", "ings", "ing", "ers", "er", "ed", "es", "s")


@lru_cache(maxsize=1)
def _lemminflect() -> Any:
    import lemminflect  # type: ignore[import-untyped]  # loads its lexicon: the write path only

    return lemminflect


@lru_cache(maxsize=8192)
def _readings(word: str) -> dict[str, tuple[str, ...]]:
    found: dict[str, tuple[str, ...]] = _lemminflect().getAllLemmas(word)
    return found


def parts_of_speech(word: str) -> frozenset[str]:
    """The parts of speech the English lexicon gives `word` (`VERB`, `NOUN`, …; none for other words)."""
    if not (word.isascii() and word.isalpha()):
        return frozenset()
    return frozenset(_readings(word))


def english_lemmas(word: str, known_only: bool = False) -> tuple[str, ...]:
    """Every lemma the lexicon gives `word` (itself first when it has none; nothing for an unknown word with
    `known_only`)."""
    if not word.isascii() or not word.isalpha():
        return () if known_only else (word,)
    lemmas = tuple(dict.fromkeys(lemma for group in _readings(word).values() for lemma in group))
    if lemmas or known_only:
        return lemmas
    return (word,)


def verb_form(word: str) -> bool:
    """An English verb form that is no noun (`uploaded`, `kept`, `built`): it tells how, not what about."""
    if not (word.isascii() and word.isalpha()):
        return False
    readings = _readings(word)
    if "VERB" not in readings or "NOUN" in readings:
        return False
    # `logs`, `requires`: the lexicon's verb reading hides the plural noun; `staging`, `billing` name things
    return not word.endswith(("s", "ing"))


def keys(word: str) -> frozenset[str]:
    """What `word` may meet in another text: itself, its lemmas, their stems, its abbreviation."""
    found = {word}
    if word.isascii() and word.isalpha():
        for lemma in english_lemmas(word):
            found.update((lemma, _stem(lemma), _root(lemma)))
        found.add(_stem(word))
    return frozenset(found)


def _root(lemma: str) -> str:
    """A verb and the noun made from it meet: `store` and `storage`, `approve` and `approval`, `expire` and
    `expiry` (the root keeps four letters at least, and a prefix `~` so it never equals a word)."""
    for suffix in _DERIVED:
        if lemma.endswith(suffix) and len(lemma) - len(suffix) >= 4:
            return "~" + lemma[: -len(suffix)].rstrip("e")
    return "~" + lemma.rstrip("e") if len(lemma) > 4 else lemma


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def same_word(a: str, b: str) -> bool:
    if a == b:
        return True
    han = not a.isascii() and not b.isascii()
    if han:
        short, long = sorted((a, b), key=len)
        # a shared head (`数据库` and `库`, `代码评审` and `评审`), or the thing with a head after it
        # (`发版` and `发版日`)
        return long.endswith(short) or (len(short) >= 2 and long.startswith(short))
    return bool(keys(a) & keys(b))


def with_abbreviations(words: Sequence[str]) -> list[str]:
    """`continuous integration` -> `ci`, `database` -> `db`: every word of an expansion is folded into its key."""
    out = list(words)
    for short, expansion in ABBREVIATIONS.items():
        n = len(expansion)
        for i in range(len(out) - n + 1):
            if tuple(out[i : i + n]) == expansion or (n == 1 and out[i] == expansion[0] + "s"):
                out[i : i + n] = [short, *([""] * (n - 1))]
            elif out[i] == short + "s":  # `PRs`, `DBs`
                out[i] = short
    return [word for word in out if word]


def has_marker(words: Sequence[str]) -> bool:
    if any(marker_at(words, i) for i in range(len(words))):
        return True
    return "from" in words and "to" in words[words.index("from") + 1 :]


def marker_at(words: Sequence[str], i: int) -> bool:
    """`words[i]` is a change marker where it stands (`升级` before `到` is one, `升级` alone is not)."""
    word = words[i]
    after = words[i + 1] if i + 1 < len(words) else ""
    if word in _EN_MARKERS or word in _ZH_MARKERS or (word, after) in _EN_MARKER_PAIRS:
        return True
    if word.startswith(_EN_MARKER_OPENINGS) and set(english_lemmas(word)) & _EN_MARKER_LEMMAS:
        return True  # the prefix test first: the lexicon loads only for a word that may be one
    if not word.isascii() and word not in _ZH_NOT_CHANGE:
        if word.startswith(_ZH_MARKER_OPENINGS) or _ZH_MARKER_INSIDE in word:
            return True
        if word.startswith("不") and i > 0 and words[i - 1] == "已经":
            return True
        if _sets_anew(word, after):
            return True
    return False


def returns(words: Sequence[str]) -> bool:
    """A word of return: the value named is one the subject held before. `again`, `back` before a preposition
    (`back to`, `back on`), a verb of reverting (`reverted`, `restored`), 又, 还是, and 回 as a verb's
    complement (`改回`, `换回`, `切` + `回`) or opening `回到` / `回归` (`回复`, `回调` are no return)."""
    for i, word in enumerate(words):
        if word in _RETURN_WORDS or word.startswith(_ZH_RETURN_OPENINGS):
            return True
        if word == "back" and i + 1 < len(words) and words[i + 1] in _PREPOSITIONS:
            return True
        if word.startswith(_EN_RETURN_OPENINGS) and set(english_lemmas(word)) & _EN_RETURN_LEMMAS:
            return True
        if not word.isascii() and (word == "回" or "回" in word[1:]):
            return True
    return False


def _sets_anew(word: str, after: str) -> bool:
    """`调到`, `加` + `到`, `升级` + `到`, `提成`: a verb of setting an amount or a place, then the word for
    `to`."""
    if word[0] not in _ZH_SETTERS:
        return False
    return (len(word) == 2 and word[1] in _ZH_TO) or (len(word) <= 2 and after != "" and after[0] in _ZH_TO)


def asks(text: str) -> bool:
    """A question by its punctuation or its Chinese cue (`?`, `吗`, 要不要): never a statement of a value."""
    return (
        "?" in text
        or "？" in text
        or any(cue in text for cue in _ZH_QUESTION)
        or text.rstrip("。.！! ").endswith("吗")
    )


def asks_or_adds_plainly(text: str, words: Sequence[str]) -> bool:
    """A question, or a fact said in so many words to come beside the stored one (`also`, `as well`, 另外)."""
    return asks(text) or any(word in _PLAINLY_ADDED for word in words) or " as well" in text


def asks_or_adds(text: str, words: Sequence[str]) -> bool:
    """A question, a possibility or an added fact (`we also…`, 另外…): nothing it names replaces a stored value."""
    if asks(text):
        return True
    first = re.match(r"\s*([a-z]+)", text)
    if first and first.group(1) in _QUESTION_OPENINGS:
        return True
    hedges = _UNSURE | _EN_ADDED | _ZH_ADDED
    return any(word in hedges for word in words) or " as well" in text


def unsure_or_intended(words: Sequence[str]) -> bool:
    """A possibility, an intention or a condition (`might`, `plan`, `if`, 可能, 打算)."""
    return any(word in _UNSURE or word in _INTENDED for word in words)


def adds(words: Sequence[str]) -> bool:
    """A fact said to come beside another (`also`, `too`, 也, 另外)."""
    return any(word in _EN_ADDED or word in _ZH_ADDED for word in words)


def asks_plans_or_adds(text: str, words: Sequence[str]) -> bool:
    """`asks_or_adds`, or an intention or a condition (`we plan to…`, `if…`, 打算…)."""
    return asks_or_adds(text, words) or any(word in _INTENDED for word in words)


def redoes(words: Sequence[str], stored_words: Sequence[str]) -> bool:
    """`rewrote` after `written`, `rebuilt` after `built`: the stored fact's own verb done again is a change."""
    again = [word for word in words if word.startswith("re") and len(word) > 4]
    if not again:
        return False
    done = {lemma for word in stored_words for lemma in english_lemmas(word, known_only=True)}
    for word in again:
        for lemma in english_lemmas(word, known_only=True):
            if lemma.startswith("re") and len(lemma) > 4 and lemma[2:].lstrip("-") in done:
                return True
    return False
