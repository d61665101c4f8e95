"""The token stream the claim parser reads: values lifted whole, clauses split, words folded.

Values that a tokenizer would cut apart (paths, versions, numbers with their unit, identifiers such as
`build-cache-prod` or `Node.js`) are lifted out first and come back as single `value` tokens. Chinese runs are
segmented by jieba; fused negations (`不是`, `不在`, `别用`) and adverb + copula words (`还是`, `而是`) are split
back into their parts; English contractions (`isn't`, `it's`, `we're`) are expanded.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from paicli.memory import subject_words as w
from paicli.memory.tokenize import segment

# ASCII classes only: `\w` would take the Han text around a value into it (`地址是ghcr.io/acme`)
_PATH = re.compile(
    r"(?:[a-z]+://[!-~]+)"
    r"|(?:[a-z]:)?[~.]?[/\\]?[a-z0-9_.@+-]+(?:[/\\][a-z0-9_.@+-]+)+[/\\]?"
    r"|[a-z0-9_.-]+\.(?:ya?ml|json|toml|xml|gradle|kts|properties|ini|conf|cfg|env|py|js|ts|java|lock|txt|md|sh)"
    r"(?![a-z0-9_])"
)
_UNITS = (
    r"个空格|个字符|个线程|个连接|个实例|个副本|个|天|小时|分钟|秒钟|秒|毫秒|周|个月|月|年|次|遍|核|台|行|位|倍|万|千"
    r"|days?|hours?|minutes?|mins?|seconds?|secs?|ms|weeks?|months?|years?|spaces?|tabs?|chars?|characters?"
    r"|lines?|cores?|threads?|connections?|replicas?|instances?|times?|gb|mb|kb|tb|%"
)
_NUMBER = re.compile(
    rf"(?<![a-z0-9_.-])v?\d+(?::\d\d(?!\d))?(?:\.\d+)*(?:[a-z]{{1,3}}\d*)?(?:\s*(?:{_UNITS})(?![a-z]))?(?![a-z0-9_]|\.[a-z0-9])"
)
_IDENTIFIER = re.compile(r"(?<![a-z0-9_.-])[a-z0-9]+(?:[._-][a-z0-9]+)+(?![a-z0-9_-]|\.[a-z0-9])")
_PLACEHOLDER = re.compile(r"^qq([a-z]+)qq$")
_CLAUSE = re.compile(r"[，,；;。！!？?\n]+|\s[—–-]{1,2}\s|—+|(?<=[a-z0-9)])\.(?=\s|$)")
_SPLIT_ADVERB_IS = "还就也都才正即总仍便却只又倒而"
_CONTRACTIONS = {
    "isn't": ("is", "not"), "aren't": ("are", "not"), "wasn't": ("was", "not"), "weren't": ("were", "not"),
    "doesn't": ("does", "not"), "don't": ("do", "not"), "didn't": ("did", "not"), "won't": ("will", "not"),
    "can't": ("can", "not"), "hasn't": ("has", "not"), "haven't": ("have", "not"), "hadn't": ("had", "not"),
    "shouldn't": ("should", "not"), "wouldn't": ("would", "not"), "couldn't": ("could", "not"), "we're": ("we", "are"), "they're": ("they", "are"), "you're": ("you", "are"),
    "we've": ("we", "have"), "i've": ("i", "have"), "it'll": ("it", "will"), "that's": ("that", "is"),
    "it's": ("it", "is"), "there's": ("there", "is"), "what's": ("what", "is"), "here's": ("here", "is"),
}  # fmt: skip
_LEXICAL_ROLE = frozenset(["当前", "当然", "当时", "当天", "当作", "当成", "做法", "做到", "当中", "当地"])
_LEXICAL_DE = frozenset(["目的", "有的", "别的", "真的", "似的", "新的", "旧的", "的确", "的话"])


@dataclass(frozen=True)
class Token:
    text: str  # folded
    value: bool = False  # a lifted value (path, number with unit, identifier)

    @property
    def han(self) -> bool:
        return any("\u3400" <= ch <= "\u9fff" for ch in self.text)

    @property
    def latin(self) -> bool:
        return not self.value and self.text[:1].isascii() and self.text[:1].isalnum()


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).lower().strip()


def _letters(n: int) -> str:
    return "abcdefghijklmnopqrstuvwxyz"[n % 26] * (1 + n // 26)


def lift(text: str) -> tuple[str, list[str]]:
    """`text` with every value replaced by a placeholder word, and the values in order."""
    values: list[str] = []

    def keep(match: re.Match[str]) -> str:
        values.append(match.group())
        return f" qq{_letters(len(values) - 1)}qq "

    def keep_path(match: re.Match[str]) -> str:
        path = match.group()
        trimmed = path.rstrip(".")
        values.append(trimmed)
        return f" qq{_letters(len(values) - 1)}qq " + path[len(trimmed) :]

    text = _PATH.sub(keep_path, text)
    for pattern in (_NUMBER, _IDENTIFIER):
        text = pattern.sub(keep, text)
    return text, values


def _restore(word: str, values: list[str]) -> Token:
    found = _PLACEHOLDER.match(word)
    if found is None:
        return Token(word)
    letters = found.group(1)
    return Token(values[(ord(letters[0]) - ord("a")) + 26 * (len(letters) - 1)], value=True)


def clauses(text: str) -> list[list[Token]]:
    """The folded text as clauses of tokens; a colon stays a token (`：`) for the parser to read."""
    lifted, values = lift(_OPENING_TIME.sub(r"\g<0>，", fold(text), count=1))
    found: list[list[Token]] = []
    for clause in _CLAUSE.split(lifted):
        tokens = [_restore(word, values) for word in _words(clause.replace("：", " : ").replace(":", " : "))]
        if tokens:
            found.append(tokens)
    return found


# A time that dates a change opens the sentence (`从 3.0 版本起后端跑在 …`, `这个月开始线上发布 …`): it is a clause
# of its own even without a comma, so the subject after it is read alone.
_OPENING_TIME = re.compile(
    r"^(?:(?:从|自)[^，,。；;：:]{1,12}?|(?:这|本|上|下|今|明|去)\s*个?\s*(?:周|月|季度|年|迭代|版本|sprint)[^，,。；;]{0,3}?)"
    r"(?:起|开始|以来)(?![，,。；;\s]*$)(?=[^，,。；;])"
)


def _words(clause: str) -> list[str]:
    raw = [t.strip() for t in segment(clause) if t.strip()]
    merged: list[str] = []
    for token in raw:  # jieba cuts `isn't` into `isn`, `'`, `t`
        if merged and token in ("'", "’"):
            merged[-1] += "'"
        elif merged and merged[-1].endswith("'") and token.isascii():
            merged[-1] += token
        else:
            merged.append(token)
    words: list[str] = []
    for token in merged:
        if (
            words
            and token[0] in "做当"
            and len(token) > 1
            and token not in _LEXICAL_ROLE
            and words[-1].isascii()
        ):
            words.extend(
                [token[0], *_split(token[1:])]
            )  # `21做后端`: jieba glues the role verb to the subject
            continue
        words.extend(_split(token))
    return [word for word in words if any(ch.isalnum() for ch in word) or word in (":", "=", *w.ARROWS)]


def _split(token: str) -> list[str]:
    if token in _CONTRACTIONS:
        return list(_CONTRACTIONS[token])
    if token.endswith("'s") and len(token) > 2:
        return [token[:-2], "'s"]
    for negator in w.ZH_NEGATORS:  # `不是` `不在` `别用` `不再是`
        if token.startswith(negator) and len(token) > len(negator):
            rest = token[len(negator) :]
            if rest in w.ZH_COPULAS or _resultative(rest):
                return [negator, rest]
    if len(token) >= 3 and token[-1] in "用是" and _resultative(token[:-1]):  # jieba's `改回用 A`
        return [token[:-1], token[-1]]
    if len(token) == 2 and token[1] == "是" and token[0] in _SPLIT_ADVERB_IS:  # `还是 X`: still X
        return [token[0], "是"]
    if (
        len(token) > 1
        and token.endswith("的")
        and token not in _LEXICAL_DE
        and "\u3400" <= token[0] <= "\u9fff"
    ):
        return [token[:-1], "的"]  # jieba fuses `端的` in `移动端的代码审查人`
    return [token]


def _resultative(token: str) -> bool:
    return len(token) >= 2 and token.endswith(w.ZH_RESULTATIVE) and token not in w.ZH_NOT_RESULTATIVE
