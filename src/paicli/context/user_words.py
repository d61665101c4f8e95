"""What the user said, as compaction keeps it: the typed words of a user message, and the values in them a
summary must not lose. Pure (jieba's tagger is loaded on first use, for Chinese names).

A user message may carry more than what was typed: the memory block the loop puts before it, and the bodies of
`@file` / `@server:uri` attachments and piped stdin after it (cli.mentions, mcp.resources, cli.turn_runner
append those under the markers below). Compaction keeps the typed text and names the attachments, never their
~1,000-token bodies: the ledger has them, and the model can read the files again.

The values (identifiers, numbers, paths, hosts, quoted values, names) are found by their shape, never by what
the sentence around them says, so the check does not depend on how the user worded a statement.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Iterable, Sequence
from typing import Any

from paicli.context.memory_block import without_memory

log = logging.getLogger(__name__)

FILES_MARKER = "\n\n用户通过 @ 引用的文件内容：\n"
RESOURCES_MARKER = "\n\n用户通过 @ 引用的 MCP 资源：\n"
STDIN_MARKER = "\n\n以下是通过标准输入传入的内容：\n"
ATTACHMENT_MARKERS = (FILES_MARKER, RESOURCES_MARKER, STDIN_MARKER)
_FILE = re.compile(r'<file path="([^"]*)">')
_RESOURCE = re.compile(r'<resource server="([^"]*)" uri="([^"]*)">')

# An ASCII run that may be an identifier, a path, a host, a version or a number.
_TOKEN = re.compile(r"[~/A-Za-z0-9][A-Za-z0-9_~./:@+#%=\-]*")
_TRAILING = ".:,;-=+#"
_ORDINAL = re.compile(r"第\s*$")  # 第 3 轮, 第 2 步: an ordinal, not a value
_INNER_MARKS = frozenset("/_.:@~-")
# Latin words (with accents) starting with a capital: two or more in a row are a name (Priya Raman).
_CAPITALISED = re.compile(
    r"[A-Z\u00C0-\u00DE][a-z\u00DF-\u00FF'’]+(?:[ \t]+[A-Z\u00C0-\u00DE][a-z\u00DF-\u00FF'’]+)*"
)
_QUOTED = re.compile(r"[“「『\"`]([^”」』\"`\n]{1,80})[”」』\"`]|(?<![A-Za-z])'([^'\n]{1,80})'(?![A-Za-z])")
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？；;：:\n]\s*)$")
_HAN = re.compile(r"[\u4e00-\u9fff]")
_NAME_TAGS = frozenset({"nr", "nrfg", "nrt"})
# jieba's tagger also calls some plain words names (索引, 段时间): a Chinese name starts with a common surname
# and its given name is not a common word by itself.
_SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任沈姚卢"
    "姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤易常温康"
    "施文牛樊葛邢安齐庞祝殷"
)
_COMPOUND_SURNAMES = ("欧阳", "司马", "上官", "诸葛", "东方", "慕容", "令狐", "皇甫", "尉迟", "长孙")
_COMMON_WORD_FREQ = 5_000


def split_attachments(content: str) -> tuple[str, str]:
    """(what the user typed, a short line naming what was attached: '' when nothing was)."""
    cuts = [content.find(marker) for marker in ATTACHMENT_MARKERS]
    found = [cut for cut in cuts if cut >= 0]
    if not found:
        return content, ""
    typed, rest = content[: min(found)], content[min(found) :]
    names = [f"文件 {path}" for path in dict.fromkeys(_FILE.findall(rest))]
    names += [f"MCP 资源 {server}:{uri}" for server, uri in dict.fromkeys(_RESOURCE.findall(rest))]
    stdin = rest.find(STDIN_MARKER)
    if stdin >= 0:
        names.append(f"标准输入 {len(rest) - stdin - len(STDIN_MARKER):,} 字")
    return typed, f"（附带的内容未列出：{'、'.join(names) or '附件'}）"


def typed_text(content: str) -> str:
    """A user message as compaction keeps it: the typed words, then the attachments named (not their bodies)."""
    typed, attached = split_attachments(without_memory(content))
    return f"{typed}\n{attached}" if attached else typed


def values_of(text: str) -> list[str]:
    """The values a statement states, in order, without repeats: ASCII identifiers, numbers, paths and hosts;
    quoted values; names (capitalised Latin words, and Chinese person names by jieba's tagger)."""
    typed, _ = split_attachments(text)
    found: list[str] = []
    for match in _QUOTED.finditer(typed):
        found.append((match.group(1) or match.group(2) or "").strip())
    found += _identifiers(typed)
    found += _latin_names(typed)
    if _HAN.search(typed):
        found += _han_names(typed)
    return [value for value in dict.fromkeys(found) if value]


def _identifiers(text: str) -> Iterable[str]:
    for match in _TOKEN.finditer(text):
        token = match.group(0).rstrip(_TRAILING)
        if not any(ch.isalnum() for ch in token):
            continue
        digits = any(ch.isdigit() for ch in token)
        marked = any(ch in _INNER_MARKS for ch in token[1:-1]) or token[0] in "~/"
        mixed_case = any(ch.isupper() for ch in token[1:]) and any(ch.islower() for ch in token)
        if token.isdigit() and _ORDINAL.search(text[: match.start()]):
            continue
        if digits or marked or mixed_case:
            yield token


def _latin_names(text: str) -> Iterable[str]:
    for match in _CAPITALISED.finditer(text):
        words = match.group(0).split()
        at_start = bool(_SENTENCE_START.search(text[: match.start()]))
        if len(words) >= 2:
            yield " ".join(words)
        elif not at_start:
            yield words[0]


def _han_names(text: str) -> list[str]:
    tagger = _tagger()
    if tagger is None:
        return []
    try:
        words = [pair.word for pair in tagger.cut(text) if pair.flag in _NAME_TAGS]
        frequency = tagger.tokenizer.FREQ
    except Exception:  # a name check is a help; a tagger failure must not cost the summary
        log.exception("tagging names failed")
        return []
    return [word for word in words if _looks_like_a_name(word, frequency)]


def _looks_like_a_name(word: str, frequency: dict[str, int]) -> bool:
    if not 2 <= len(word) <= 4:
        return False
    surname = next((s for s in _COMPOUND_SURNAMES if word.startswith(s)), word[0])
    given = word[len(surname) :]
    if surname not in _SURNAMES and surname not in _COMPOUND_SURNAMES:
        return False
    return bool(given) and (frequency.get(given) or 0) < _COMMON_WORD_FREQ


@functools.cache
def _tagger() -> Any:
    try:
        import jieba
        import jieba.posseg

        jieba.setLogLevel(logging.WARNING)
        return jieba.posseg.dt
    except Exception:
        log.exception("jieba's tagger is not available; Chinese names are not checked")
        return None


def is_present(value: str, text: str) -> bool:
    """A number must stand alone (45 is not kept by 145); anything else is found as it is."""
    if value.isdigit():
        return re.search(rf"(?<![0-9]){re.escape(value)}(?![0-9])", text) is not None
    return value in text


def missing_values(statements: Sequence[str], summary: str) -> tuple[list[str], list[str]]:
    """(every value the statements state, those the summary does not carry)."""
    values = list(dict.fromkeys(value for text in statements for value in values_of(text)))
    return values, [value for value in values if not is_present(value, summary)]
