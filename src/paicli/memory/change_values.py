"""The value slots of a fact, typed and normalised, for the marked-change rule (`marked_change.py`; issue 37).

A slot is a (type, normal form) pair found in the text itself, whatever the sentence's frame: a clock time, a
weekday, a number with its unit (Chinese numerals read by `cn2an`: `两个人` and `2 个人` are one value), a
path, or a name (an identifier, a word with digits or inner capitals, a capitalised word that is not the
sentence's first English word, a word the English lexicon does not know, a Latin word in Chinese text, a
Chinese personal name). `masked` is the text with every slot cut out, so the words left say what the fact is
about. Pure; `cn2an` and `lemminflect` are imported on first use (the write path only, never at start-up).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from paicli.memory.change_words import ABBREVIATIONS, CATEGORY, LIGHT, english_lemmas

Slot = tuple[str, str]  # (type, normal form): ("number:天", "30"), ("name", "jenkins")

_ZH_NUMERAL = "零〇一二两三四五六七八九十百千万"
# a Chinese numeral counts only before a measure word, so `一直`, `统一` or `第一` are never numbers
_ZH_MEASURE = "个位名人台次遍天周月年小时分钟秒点倍核条行份"
_ZH_NUMBER = re.compile(rf"[{_ZH_NUMERAL}]+(?=[{_ZH_MEASURE}])")
_TIME = re.compile(
    r"(?<![\d.:])(\d{1,2})(?::(\d{2}))?\s*(am|pm)(?![a-z])|(?<![\d.:])(\d{1,2}):(\d{2})(?![\d:])"
)
# the hours that have a name of their own: a time of day like `2 am`
_NAMED_HOURS = {"midnight": "00:00", "noon": "12:00", "midday": "12:00", "午夜": "00:00"}
_NAMED_HOUR = re.compile(r"(?<![a-z])(?:midnight|noon|midday)(?![a-z])|午夜")
# a channel or a handle (`#incidents`, `@release-bot`): an identifier, whatever word it spells
_HANDLE = re.compile(r"(?<![\w#@])[#@][a-z][\w.-]*[\w]")
# a frequency said by an adverb, where it is the value (`the rotation is weekly`, `backups run nightly`), not a
# modifier in front of a noun (`the weekly report`): the adverb ends its clause
_FREQUENCIES = {"hourly": 3600, "daily": 86400, "nightly": 86400, "weekly": 604800, "monthly": 2592000}
_FREQUENCY = re.compile(
    r"(?<![a-z-])(hourly|daily|nightly|weekly|monthly)(?=\s*(?:now|again|instead|anymore)?\s*(?:[.,;!?]|$))"
)
_ZH_TIME = re.compile(r"(上午|下午|早上|晚上|中午)?\s*(\d{1,2})\s*点(半|\d{1,2}分?)?")
_EN_DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
_EN_DAY = re.compile(
    r"(?<![a-z])(mon|tue|wed|thu|fri|sat|sun)(?:day|days|s|\.)?(?![a-z])"
    r"|(?<![a-z])(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?(?![a-z])"
)
_ZH_DAYS = "一二三四五六日天"
_ZH_DAY = re.compile(rf"(?:周|星期|礼拜)([{_ZH_DAYS}])(?![次遍回])(上午|下午|晚上)?")  # not `每周一次`
_PATH = re.compile(r"(?:[a-z]+://|[~.]?/)[\w./@+-]+")
_NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.-])v?(\d+(?:\.\d+)*)"
    r"(?:\s*(%|(?!(?:and|or|to|is|are|was|for|per|in|on|at|of|now|by|instead|again)(?![a-z]))[a-z]+"
    r"|[个位名人台次遍天周月年小时分钟秒倍核条行份]+))?"
)
_CAPITALISED_RUN = re.compile(r"(?:[A-Z][\w.+-]*)(?:\s+[A-Z0-9][\w.+-]*)+")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:[._+-][A-Za-z0-9]+)*")
_HAN = re.compile("[\u3400-\u9fff]")
# the commonest Chinese surnames: a two- or three-character word opening with one is read as a person's name
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜叶程苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤"
)
# a span of time is one value whatever its unit: `30 秒` and `半分钟`, `two weeks` and `14 days`
_SECONDS = {"秒": 1, "分钟": 60, "小时": 3600, "天": 86400, "周": 604800, "月": 2592000, "年": 31536000}
# `every week`, `每周`: one of the unit (the number, if any, comes first: `every 2 weeks` is a number)
_EVERY = re.compile(
    r"(?<![a-z])every\s+(second|minute|hour|day|week|month|year)(?![a-z])|每(秒|分钟|小时|天|周|月|年)"
)
_EN_NUMERALS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
    "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "ninety": 90,
}  # fmt: skip
# an English numeral counts only before a word that may be its unit (`two approvals`, never `one of them`)
_EN_NUMBER = re.compile(r"(?<![a-z])(" + "|".join(_EN_NUMERALS) + r")(?=\s+([a-z]+))", re.IGNORECASE)
_UNIT_CLASSES = {
    "day": "天", "days": "天", "d": "天", "week": "周", "weeks": "周", "个月": "月", "month": "月", "months": "月",
    "year": "年", "years": "年", "hour": "小时", "hours": "小时", "h": "小时", "minute": "分钟", "minutes": "分钟",
    "min": "分钟", "mins": "分钟", "second": "秒", "seconds": "秒", "s": "秒", "sec": "秒", "secs": "秒",
    "time": "次", "times": "次", "遍": "次", "个人": "人", "位": "人", "名": "人", "people": "人", "person": "人",
    "个": "", "台": "", "instance": "台", "instances": "台", "核": "核", "core": "核", "cores": "核",
}  # fmt: skip
_VALUE_OPENERS = frozenset(
    [
        "with",
        "to",
        "on",
        "in",
        "by",
        "from",
        "via",
        "than",
        "using",
        "use",
        "uses",
        "is",
        "are",
        "was",
        "were",
        "of",
    ]
)
_NOT_UNITS = frozenset(
    ["and", "or", "to", "is", "are", "was", "for", "per", "in", "on", "at", "of", "now", "by"]
)


@dataclass(frozen=True)
class Values:
    slots: frozenset[Slot]
    masked: str  # the folded text with every slot replaced by a space


def fold(text: str) -> str:
    return unicodedata.normalize("NFKC", text).strip()


@lru_cache(maxsize=1)
def _cn2an() -> Any:
    import cn2an  # type: ignore[import-untyped]  # loads its tables: only when a Chinese numeral is written

    return cn2an


def arabic(text: str) -> str:
    """`两个人` -> `2个人`, `三十天` -> `30天`: Chinese numerals before a measure word become digits."""
    if not _ZH_NUMBER.search(text):
        return text

    def convert(match: re.Match[str]) -> str:
        try:
            return str(_cn2an().cn2an(match.group(), "smart"))
        except (ValueError, KeyError):
            return match.group()

    return _ZH_NUMBER.sub(convert, text)


def english_numerals(text: str) -> str:
    """`two approvals` -> `2 approvals`: an English numeral before a word that may be its unit becomes digits."""

    def convert(match: re.Match[str]) -> str:
        unit = match.group(2).lower()
        if unit in _NOT_UNITS or unit in LIGHT:
            return match.group(1)
        return str(_EN_NUMERALS[match.group(1).lower()])

    return _EN_NUMBER.sub(convert, text)


def _unit(raw: str) -> str:
    unit = raw.lower()
    if unit in _UNIT_CLASSES:
        return _UNIT_CLASSES[unit]
    if unit.startswith("个") and len(unit) > 1:
        unit = unit[1:]
    if unit.isascii() and unit.isalpha() and len(unit) > 2:
        unit = english_lemmas(unit)[0]
    return _UNIT_CLASSES.get(unit, unit)


def _first_word(text: str) -> str:
    found = re.search(r"[A-Za-z][\w'-]*", text)
    return found.group() if found else ""


def _is_name(word: str, text: str, chinese: bool, before: str) -> bool:
    low = word.lower()
    if word[0].isupper() and re.search(rf"(?<![\w.]){re.escape(word)}\s*v?\d+\.\d", text):
        return True  # a product labels the version after it (`Go 1.22`, `Python 3.12`), whatever the word
    if low in ABBREVIATIONS or low[:-1] in ABBREVIATIONS or low in LIGHT or len(word) < 2:
        return False
    if any(ch.isdigit() for ch in word) or re.search(r"[._+-]", word) or re.search(r"[a-z][A-Z]", word):
        return True
    known = bool(english_lemmas(low, known_only=True))
    if chinese:  # a Latin word in Chinese text names a tool, a product or a place, unless it is plain English
        return not (known and word.islower())
    first = _first_word(text) == word
    if word[0].isupper() and not first:
        return True
    if first:
        return word[0].isupper() and not known
    # an unknown lower-case word names a thing where a value stands: after a preposition or a verb of use
    return len(word) > 2 and not known and before in _VALUE_OPENERS


def values(text: str) -> Values:
    """The value slots of `text` and the text with them cut out."""
    folded = english_numerals(arabic(fold(text)))
    chinese = bool(_HAN.search(folded))
    slots: set[Slot] = set()
    rest = folded

    def cut(pattern: re.Pattern[str], slot: Any) -> None:
        nonlocal rest
        found: list[re.Match[str]] = list(pattern.finditer(rest.lower()))
        for match in reversed(found):
            got = slot(match)
            if got is None:
                continue
            slots.add(got)
            rest = rest[: match.start()] + " " + rest[match.end() :]

    cut(_PATH, lambda m: ("path", m.group().rstrip("/.")))
    cut(_HANDLE, lambda m: ("name", m.group()[1:]))
    cut(_TIME, _time)
    cut(_ZH_TIME, _zh_time)
    cut(_NAMED_HOUR, lambda m: ("time", _NAMED_HOURS[m.group()]))
    cut(_EN_DAY, _en_day)
    cut(
        _ZH_DAY,
        lambda m: ("day", f"{_ZH_DAYS.index(m.group(1)) % 7 if m.group(1) != '天' else 6}{m.group(2) or ''}"),
    )
    cut(_FREQUENCY, lambda m: ("duration", str(_FREQUENCIES[m.group(1)])))
    cut(_EVERY, lambda m: ("duration", str(_SECONDS[_unit(m.group(1) or m.group(2))])))
    cut(_NUMBER, _number)
    for match in reversed(list(_names(rest))):
        word = match.group()
        before = re.findall(r"[a-z]+", rest[: match.start()].lower())
        if _is_name(word, folded, chinese, before[-1] if before else ""):
            slots.add(("name", word.lower()))
            rest = rest[: match.start()] + " " + rest[match.end() :]
    rest = _person_names(rest, slots)
    return Values(frozenset(slots), rest.lower())


def _names(text: str) -> list[re.Match[str]]:
    """Name candidates; consecutive capitalised words are one name (`Google Drive`, `Backblaze B2`)."""
    merged: list[re.Match[str]] = []
    for match in _CAPITALISED_RUN.finditer(text):
        if match.group().split()[0].lower() in CATEGORY:
            continue  # `Minimum Safari version`: the kind of a value, then a name; each word is read alone
        if all(_is_multiword_part(part) for part in match.group().split()):
            merged.append(match)
    taken = [(m.start(), m.end()) for m in merged]
    singles = [m for m in _NAME.finditer(text) if not any(a <= m.start() < b for a, b in taken)]
    return sorted([*merged, *singles], key=lambda m: m.start())


def _is_multiword_part(part: str) -> bool:
    low = part.lower()
    if low in LIGHT or low in ABBREVIATIONS:
        return False
    return part[:1].isupper() or any(ch.isdigit() for ch in part)


def _person_names(text: str, slots: set[Slot]) -> str:
    from paicli.memory.tokenize import segment

    if not _HAN.search(text):
        return text
    for word in segment(text):
        if 2 <= len(word) <= 3 and word[0] in _SURNAMES and all(_HAN.match(ch) for ch in word):
            slots.add(("name", word))
            text = text.replace(word, " ")
    return text


def _time(match: re.Match[str]) -> Slot:
    if match.group(3):
        hour = int(match.group(1)) % 12 + (12 if match.group(3) == "pm" else 0)
        return ("time", f"{hour:02d}:{match.group(2) or '00'}")
    return ("time", f"{int(match.group(4)):02d}:{match.group(5)}")


def _zh_time(match: re.Match[str]) -> Slot:
    hour = int(match.group(2)) + (
        12 if match.group(1) in ("下午", "晚上") and int(match.group(2)) < 12 else 0
    )
    minute = match.group(3) or ""
    minutes = "30" if minute == "半" else f"{int(minute.rstrip('分')):02d}" if minute else "00"
    return ("time", f"{hour:02d}:{minutes}")


def _en_day(match: re.Match[str]) -> Slot:
    word = (match.group(1) or match.group(2))[:3]
    return ("day", str(_EN_DAYS.index(word)))


def _number(match: re.Match[str]) -> Slot | None:
    raw_unit = match.group(2) or ""
    if raw_unit in _NOT_UNITS:
        raw_unit = ""
    unit = _unit(raw_unit)
    if unit in _SECONDS:
        try:
            seconds = float(match.group(1)) * _SECONDS[unit]
        except ValueError:  # `1.2.3 days` is no amount
            return (f"number:{unit}", match.group(1))
        return ("duration", str(int(seconds)) if seconds.is_integer() else str(seconds))
    return (f"number:{unit}", match.group(1).lstrip("0") or "0")
