"""The user's own framing before a statement (`To close the loop on this:`, `Update from my side —`, `同步个进展：`):
recognised by its shape, not by a list of phrases (issue 37).

A label before a colon or a dash is either the speaker framing what they say next, or a name or a source whose
words follow (`Bob:`, `张三：`, `The README says:`, `From the vendor ticket:`, `Command output:`). The two differ
in grammar:

- an English framing is a phrase of three or more words, none of them capitalised after the first (a name or a
  product is), with no finite verb of a speaker other than the user (`The old runbook says`, `the script
  printed`; `what I said before` is the user's own), and no `from`/`per`/`via`/`by` phrase that names where the
  words come from (`from my side` names the user);
- a Chinese framing is the speaker's own act of telling, done now: a verb with the aspect of a short act (`一下`,
  `一句`, `一点`, a classifier `个`) and at most a short object (`说明一下`, `补一句`, `同步个进展`), never a
  task verb (`翻译一下` asks for work); a one-syllable verb with `一下` is the colloquial order (`看一下`, `翻一下`).

Neither may name a source, a third party, material to work on, a request, an ordinal or an injected role.
Pure functions of the text.
"""

from __future__ import annotations

import itertools
import re

from paicli.memory.extract_words import (
    FOREIGN_LABEL,
    IMPERATIVE,
    INJECTION,
    MATERIAL,
    ORDINAL_LABEL,
    REPORTED,
    REQUEST,
    SECRET_NAME,
    THIRD_PARTY,
)
from paicli.memory.quote_context import INTRODUCER, SOURCE_HEADING

_MIN_WORDS = 3
_EN_PHRASE = re.compile(r"[A-Za-z][A-Za-z'’-]*(?:\s+[A-Za-z'’-]+){2,9}")
_FIRST_PERSON = re.compile(r"(?i)^(?:i|we|my|our|me|us)$")
# Words that open a noun phrase or a prepositional one: a word in -s or -ed right after one is a noun
# (`your records`, `the updates`), not a verb.
_NOUN_OPENER = re.compile(
    r"(?i)^(?:the|a|an|my|our|your|its|their|this|that|these|those|some|any|all|few|more|most|no|for|to|of|on|in|"
    r"at|about|after|before|with|from|by|per|via|and|or|recent|latest|new|small|quick|other|further|related)$"
)
_PREPOSITION = re.compile(r"(?i)^(?:on|about|from|for|to|after|regarding|re|in|of|since|as)$")
_FINITE = re.compile(
    r"(?i)^(?!(?:this|its|his|thus|plus|perhaps|always|ours|yours|theirs|hers)$)"
    r"(?:is|are|was|were|has|have|had|does|did|will|would|can|could|[a-z]{2,}(?:ed|(?<!s)s))$"
)
# A preposition that names where the following words come from; only the user's own side is no source.
_SOURCE_PREPOSITION = re.compile(r"(?i)\b(?:from|per|via|by|according to|quoting|courtesy of)\s+(\S+)")
# the act's verb, its aspect, and at most a short object that holds no second act (`用两句话概括一下` is a task);
# with 一下 or 下 the verb has two syllables (U+4E01 on: the second is no 一), `翻一下`, `看下` are orders
_ZH_ACT = re.compile(
    r"^(?:再|先|顺便|最后|简单)?(?![他她它你])"
    r"(?:[\u4e00-\u9fff][\u4e01-\u9fff](?:一下|下)|[\u4e00-\u9fff]{1,2}(?:一句|一点|两句|几句|个))"
    r"(?!.*(?:一下|一句|两句|几句))[\u4e00-\u9fff的]{0,6}$"
)


def framing_label(label: str) -> bool:
    """Whether `label` (before `：`, `:` or a dash) is the user's own framing of the statement after it."""
    text = label.strip().rstrip(",，")
    if not text or _foreign(text):
        return False
    if _EN_PHRASE.fullmatch(text):
        return _english_framing(text.split())
    # a task verb anywhere in it asks for work (`用一句话总结`, `翻译一下`)
    return _ZH_ACT.match(text) is not None and not any(IMPERATIVE.match(text[i:]) for i in range(len(text)))


def _foreign(text: str) -> bool:
    probe = _OWN_ACT_SAY.sub("", own_speech(text)) + "："
    return bool(
        INTRODUCER.search(probe)
        or any(INTRODUCER.search(word + "：") for word in probe.split())  # `Error while running:`
        or SOURCE_HEADING.search(text)
        or FOREIGN_LABEL.search(text)
        or THIRD_PARTY.search(text)
        or MATERIAL.search(text)
        or REQUEST.search(text)
        or ORDINAL_LABEL.match(text)
        or INJECTION.search(probe)
        or SECRET_NAME.search(text)
        or _reported_by_other(_OWN_ACT_SAY.sub("", text))
    )


# `说明一下`, `说两句`: a verb of saying in the short-act shape has no subject but the speaker
_OWN_ACT_SAY = re.compile(r"^(?:我|再|先|多|就|也|顺便|简单)?(?:说|讲|提)(?=明|一下|一句|两句|几句|下|个)")


def _english_framing(words: list[str]) -> bool:
    if len(words) < _MIN_WORDS or any(w[0].isupper() for w in words[1:] if w.lower() != "i"):
        return False
    if IMPERATIVE.match(words[0]) and not _PREPOSITION.match(words[1]):
        return False  # `Write a sentence like`: a task verb and its object; `Update from my side` announces
    for found in _SOURCE_PREPOSITION.finditer(" ".join(words)):
        if not _FIRST_PERSON.match(found.group(1)):
            return False  # `from the vendor ticket`, `per the design doc`: someone else's words follow
    for before, word in itertools.pairwise(words):
        if _FINITE.match(word) and not _NOUN_OPENER.match(before) and not _FIRST_PERSON.match(before):
            return False  # `the old runbook says`, `the script printed`: a clause telling another's words
    return True


def _reported_by_other(text: str) -> bool:
    """A verb of saying in the label whose speaker is not the user (`what I said before` is the user's)."""
    for found in REPORTED.finditer(text):
        before = text[: found.start()].split()
        speaker = before[-1] if before else text[: found.start()][-1:]
        if not (_FIRST_PERSON.match(speaker) or speaker.endswith(("我", "我们"))):
            return True
    return False


def own_speech(sentence: str) -> str:
    """The sentence without the verbs of saying whose speaker is the user (`Correction to what I said before`,
    `我之前说的`, a framing label `多说一句——`): the reported-speech rule reads only other speakers."""
    found = _LABEL_END.search(sentence)
    if found is not None and framing_label(sentence[: found.start()]):
        sentence = sentence[found.end() :]
    return _OWN_SAYING.sub(" ", sentence)


_LABEL_END = re.compile(r"[：:]\s*|\s*(?:[—–]+|\s-)\s*")


# Only a nominalised saying (`what I said`, `as we mentioned`, `我之前说的`) reports nothing after it; `我之前说我们
# 项目用 Java 8` reports its content, which the rules read as reported.
_OWN_SAYING = re.compile(
    r"(?i)\b(?:what|as)\s+(?:i|we)\s+(?:(?:just|already|earlier|previously)\s+)?(?:said|mentioned|wrote)\b|"
    r"我们?(?:之前|刚才|上次|前面|刚刚)?(?:说|提到|讲)过?的"
)


def unframed_parts(before: str) -> list[str]:
    """The clauses of the words before a quote, cut at commas and colons, without the user's own framing labels
    closed by a colon (`纠正一下：…` asks nobody for a task; `翻译一下：…` does)."""
    pieces = re.split(r"([，,：:])", before)
    return [
        part
        for i, part in enumerate(pieces)
        if i % 2 == 0 and not (pieces[i + 1 : i + 2] in (["："], [":"]) and framing_label(part))
    ]
