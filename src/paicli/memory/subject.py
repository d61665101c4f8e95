"""Subject keys: which thing a fact is about and which value it gives it (issue 28).

A deterministic normaliser over one fact: versions, numbers and paths are lifted out as values first, the
main clause is segmented by jieba and split at its copula (是, 用, 改成, 升级到, is, uses …); the words before
the copula are the subject, what follows is the value. When nothing but generic words (我们, 项目, our
project) stands before the copula, the names after it join the subject and only the lifted values remain the
value, so `项目用 Java 17` and `项目用 Python 3.11` are two subjects while `数据库用 PostgreSQL 15` and
`数据库换成 MySQL 8` are one subject with two values. Clauses that talk about the old value (`17 已经不用了`,
`之前说的 8080 是旧环境的`) never define the key; they are what a correction cue points at.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache

from paicli.memory.tokenize import segment

VERSION = "1"

_CLAUSE_SPLIT = re.compile(r"[，,；;。！!？?\n]+|(?<=\S)\s+(?:but|and then)\s+")
OLD_VALUE_CLAUSE = re.compile(
    r"之前|以前|原来|原先|旧的|旧环境|旧版|老的|已经不用|不用了|不再|废弃|弃用|停用"
    r"|\bno longer\b|\bpreviously\b|\bused to\b|\bdeprecated\b|\bold\b|\bformerly\b"
)
CORRECTION_CUE = re.compile(
    r"改成|改为|改用|换成|换为|换到|升级到|升级为|升到|迁移到|迁到|切换到|切到|现在是|现在用|现在改|不再"
    r"|之前[^，,。；;]*是旧的|以前[^，,。；;]*是旧的|已经不用|不用了|更正|纠正|其实是"
    r"|\bno longer\b|\bnow\b|\bswitched to\b|\bchanged to\b|\bupgraded to\b|\bmoved to\b|\binstead\b"
    r"|\bcorrection\b|\bactually\b"
)
_PATH = re.compile(
    r"(?:[a-z]:)?[~.]?[/\\]?[\w.@+-]+(?:[/\\][\w.@+-]+)+[/\\]?"
    r"|[\w.-]+\.(?:ya?ml|json|toml|xml|gradle|kts|properties|ini|conf|cfg|env|py|js|ts|java|lock|txt|md|sh)\b"
)
_NUMBER = re.compile(r"(?<![\w.])v?\d+(?:\.\d+)*(?:[a-z]{1,3}\d*)?(?![\w.])")
_PLACEHOLDER = re.compile(r"^qq[a-z]+qq$")
# Copulas, longest first: tokens that end the subject and start the value.
_COPULAS = frozenset(
    [
        "是",
        "为",
        "用",
        "在",
        "叫",
        "即",
        "使用",
        "采用",
        "用的是",
        "改成",
        "改为",
        "改用",
        "换成",
        "换为",
        "换",
        "升级",
        "升级成",
        "迁移",
        "迁到",
        "切换",
        "切到",
        "更新",
        "统一",
        "设为",
        "设置",
        "定为",
        "放在",
        "位于",
        "=",
        "is",
        "are",
        "use",
        "uses",
        "using",
        "used",
        "was",
        "were",
        "now",
        "switched",
        "changed",
        "upgraded",
        "moved",
        "set",
        "runs",
        "lives",
    ]
)
_COPULA_FOLLOWERS = frozenset(["到", "为", "成", "至", "是", "用", "了", "to"])
_GENERIC = frozenset(
    [
        "我们",
        "我",
        "咱们",
        "你们",
        "本",
        "该",
        "这个",
        "那个",
        "项目",
        "本项目",
        "整个",
        "团队",
        "目前",
        "现在",
        "已经",
        "当前",
        "一直",
        "都",
        "也",
        "还",
        "默认",
        "统一",
        "其实",
        "总是",
        "通常",
        "一般",
        "平时",
        "的",
        "了",
        "呢",
        "啦",
        "吧",
        "着",
        "过",
        "就",
        "说",
        "we",
        "our",
        "us",
        "i",
        "my",
        "the",
        "a",
        "an",
        "this",
        "that",
        "project",
        "repo",
        "repository",
        "currently",
        "now",
        "always",
        "usually",
        "default",
        "team",
        "actually",
    ]
)
_SYNONYMS = {"端口号": "端口", "port": "端口", "版本号": "版本", "version": "版本", "地址": "地址"}
_FILLER = frozenset(["的", "了", "呢", "啦", "吧", "着", "过", "哦", "喔", "the", "a", "an"])


@dataclass(frozen=True)
class Subject:
    """`words`: the normalised subject; `value`: what the fact says it is (lifted values kept verbatim)."""

    words: frozenset[str]
    value: str

    def same_subject(self, other: Subject) -> bool:
        if not self.words or not other.words:
            return False
        if self.words == other.words:
            return True
        small, large = sorted((self.words, other.words), key=len)
        return len(small) >= 2 and small <= large


def _fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().strip()


def has_correction_cue(text: str) -> bool:
    return CORRECTION_CUE.search(_fold(text)) is not None


def _main_and_old(text: str) -> tuple[str | None, list[str]]:
    clauses = [c.strip() for c in _CLAUSE_SPLIT.split(_fold(text)) if c and c.strip()]
    main = next((c for c in clauses if not OLD_VALUE_CLAUSE.search(c)), None)
    old = [c for c in clauses if OLD_VALUE_CLAUSE.search(c)]
    return main, old


def old_value_clauses(text: str) -> list[str]:
    """The clauses that speak about a value no longer true (`17 已经不用了`)."""
    return _main_and_old(text)[1]


def _lift_values(clause: str) -> tuple[str, list[str]]:
    values: list[str] = []

    def keep(match: re.Match[str]) -> str:
        values.append(match.group())
        return f" qq{_letters(len(values) - 1)}qq "

    lifted = _PATH.sub(keep, clause)
    lifted = _NUMBER.sub(keep, lifted)
    return lifted, values


def _letters(n: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[n % 26] * (1 + n // 26)


def _restore(token: str, values: list[str]) -> str:
    if not _PLACEHOLDER.match(token):
        return token
    letters = token[2:-2]
    return values[(ord(letters[0]) - ord("a")) + 26 * (len(letters) - 1)]


_FUSED = ("升级", "切换", "迁移", "改成", "换成", "改为", "改用", "更新")


def _split_copulas(tokens: list[str]) -> list[str]:
    """jieba fuses some copulas into the noun before them (`版本升级`): split them off again."""
    result: list[str] = []
    for token in tokens:
        fused = next((c for c in _FUSED if len(token) > len(c) and token.endswith(c)), None)
        result.extend((token[: -len(fused)], fused) if fused else (token,))
    return result


def _word(token: str) -> str | None:
    token = token.strip()
    if not token or not any(ch.isalnum() for ch in token):
        return None
    return _SYNONYMS.get(token, token)


@lru_cache(maxsize=65536)
def subject_of(text: str) -> Subject | None:
    """The fact's subject and value, or None when no copula splits its main clause."""
    clauses = [c.strip() for c in _CLAUSE_SPLIT.split(_fold(text)) if c and c.strip()]
    for main in (
        c for c in clauses if not OLD_VALUE_CLAUSE.search(c)
    ):  # `对了，项目升级到 …`: the first that says
        found = _main_subject(main)
        if found is not None:
            return found
    return None


def _main_subject(main: str) -> Subject | None:
    label, colon, rest = main.partition(":")
    if colon and rest.strip():
        # `团队约定：分支名用小写`: the label frames the statement; the statement after it has the subject
        inner = _clause_subject(rest)
        if inner is not None:
            return inner
        main = f"{label} 是 {rest}"
    return _clause_subject(main)


def _clause_subject(main: str) -> Subject | None:
    lifted, values = _lift_values(main)
    tokens = [t for t in (_word(t) for t in _split_copulas(segment(lifted))) if t is not None]
    split = next((i for i, t in enumerate(tokens) if t in _COPULAS), None)
    if split is None:
        return None
    before = [t for t in tokens[:split] if (t not in _GENERIC and len(t) >= 2) or _PLACEHOLDER.match(t)]
    after = tokens[split + 1 :]
    while after and (after[0] in _COPULAS or after[0] in _COPULA_FOLLOWERS):
        after = after[1:]
    after = [t for t in after if t not in _FILLER and t not in _GENERIC]
    if not after:
        return None
    words = {_restore(t, values) for t in before}
    if words:
        value = " ".join(_restore(t, values) for t in after)
    else:
        lifted_after = [t for t in after if _PLACEHOLDER.match(t)]
        if not lifted_after:
            return None
        words = {t for t in after if not _PLACEHOLDER.match(t) and len(t) >= 2}
        value = " ".join(_restore(t, values) for t in lifted_after)
    if not words:
        return None
    return Subject(frozenset(words), value)


def encode(subject: Subject | None) -> str:
    """The metadata form (`subjectKey`), versioned so a changed normaliser recomputes it."""
    if subject is None:
        return f"{VERSION}|"
    return f"{VERSION}|{' '.join(sorted(subject.words))}|{subject.value}"


def decode(raw: str) -> tuple[bool, Subject | None]:
    """(usable, subject): unusable when written by another normaliser version."""
    version, _, rest = raw.partition("|")
    if version != VERSION:
        return False, None
    if not rest:
        return True, None
    words, _, value = rest.partition("|")
    return True, Subject(frozenset(words.split()), value)


def values_in(text: str) -> set[str]:
    """The lifted values (numbers, versions, paths) of a text, folded."""
    return set(_lift_values(_fold(text))[1])


def relate_subjects(old: Subject | None, new: Subject | None, incoming: str) -> str:
    if old is not None and new is not None and old.same_subject(new):
        return "same" if old.value == new.value else "changed"
    if old is None or not has_correction_cue(incoming):
        return "none"
    clauses = old_value_clauses(incoming)
    if not clauses or len(old.value) < 2 or not any(old.value in clause for clause in clauses):
        return "none"
    folded = _fold(incoming)
    if new is None or old.words & new.words or all(word in folded for word in old.words):
        return "corrects"
    return "none"
