"""Whether a clause reads as a statement: the shape of a declarative sentence, whatever it is about (issue 37).

The automatic path asks the model about any turn with such a clause, and a quote that reads as one needs no
we/our/project in it: `The payments service is owned by Lena`, `值班表由孙丽维护`. What a statement must not be
(a question, a request, speculation, a temporary remark, someone else's words, pasted material) is decided by
the hardened rules around it; this module only tells a declarative clause from a question, an order, a fragment
or an exclamation. Pure functions of the text.
"""

from __future__ import annotations

import itertools
import re

from paicli.memory.extract_voice import (
    acceptable_label,
    after_own_label,
    asks,
    declares,
    imperative,
    java_trim,
)
from paicli.memory.extract_words import (
    AUXILIARY_START,
    DISCOURSE_MARKERS,
    FACT_WORDS,
    ORDINAL_LABEL,
    OWN_VOICE_LABEL,
    REQUEST,
    REQUEST_DURABLE,
    TRAILING_END,
)
from paicli.memory.quote_context import InputAnalysis
from paicli.memory.subject import claim_of

# A statement has a finite verb after its subject. English marks one by an auxiliary or copula, a contraction,
# or an inflection (-s, -ed); a bare plural subject (`Nightly builds run`) carries the -s on its noun instead.
_EN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9'’-]*")
_EN_FINITE = re.compile(r"(?i)(?:need|[a-z]{2,}(?:s|ed))$")
# A word in -s right after a determiner is a plural noun (`both the docs`), never the clause's verb.
_DETERMINER = re.compile(
    r"(?i)^(?:the|a|an|my|our|your|its|their|this|that|these|those|some|any|all|both|each|no)$"
)
# A clause whose subject is only a pointer into the conversation (`That sounds good`, `这个不错`) states nothing
# that could be read back later on its own.
_DEICTIC_START = re.compile(
    r"(?i)^(?:(?:that|this|it|these|those|here|there|he|she|they|you)\b|[这那它他她你])"
)
# English evidence: a closed-class function word, or an adverb in -ly (`backups happen nightly`); a clause in
# another Latin-script language (`nous utilisons toujours Java 8`) has none of them.
_EN_FUNCTION = re.compile(
    r"(?i)^(?:the|a|an|of|to|in|on|at|by|for|with|from|into|onto|after|before|until|since|during|per|every|each|"
    r"all|and|or|but|not|no|our|my|its|their|as|than|up|down|off|out|over|under|through|via|across|within|"
    r"without|behind|between|against|along|around|toward|towards|[a-z]{3,}ly)$"
)
_AUXILIARY = re.compile(
    r"(?i)^(?:is|are|was|were|am|be|been|has|have|had|does|do|did|will|would|can|could|must|should|shall|may|"
    r"might|isn't|aren't|wasn't|weren't|doesn't|don't|won't|can't|[a-z]+['’](?:s|re|ve|ll|d))$"
)
_HAN = re.compile(r"[\u3400-\u9fff]")
_FIRST_PERSON_START = re.compile(r"(?i)^(?:(?:i|we|i'm|we're|i've|we've|our|my)\b|我|咱)")
# A Chinese predicate shows in a closed class of function characters (copulas, coverbs, adverbs, aspect and
# modal particles) or in a quantity (`日志保留 30 天`); a clause with none is a noun phrase (`客户工单内容`), and
# an ordinal (`第 3 节`) names a place in a document, no quantity.
_ZH_PREDICATE = re.compile(
    r"[是在有由归被给让把将从到向都也就只才还已不没别每均了着并]|走(?!廊|势|向)|用(?!户)|为(?!什么|何|啥)|会(?!议)|对(?!象)|"
    r"过(?!程)|能|可以|需要|要|得|应该|应当|"
    r"(?<!第)(?<!第 )(?:\d+|[一二两三四五六七八九十百千万]+)\s*[\u3400-\u9fffA-Za-z%]"
)
_MIN_HAN = 4
_MIN_EN_WORDS = 3
_MAX_LABEL_WORDS = 3
_SENTENCES = re.compile(r"(?<=[。！!？?\n])|(?<=[.!?])\s")
_CLAUSE_END = re.compile(r"[，,；;。！!？?\n]|\.(?=\s|$)")
_LABEL_END = re.compile(r"：|:(?=\s)")  # what follows the user's label is a clause too (`Heads-up: …`)


def reads_as_statement(clause: str) -> bool:
    """A declarative clause: not a question, not a request or order, long enough to say something of something,
    with a finite verb (English) or a subject and predicate's worth of words (Chinese)."""
    text = TRAILING_END.sub("", _without_lead_in(clause))
    labelled = re.split(r"[：:]", clause, maxsplit=1)
    if not text or (len(labelled) == 2 and ORDINAL_LABEL.match(labelled[0])):
        return False  # `第 3 轮：跑一下测试`: a turn's chatter behind an ordinal label, never a note
    if asks(text) or AUXILIARY_START.match(text) or _DEICTIC_START.match(text):
        return False
    if REQUEST_DURABLE.search(text):
        return True  # `以后都请用中文回答`: a standing request is the user's preference, worth asking about
    if REQUEST.search(text) or imperative(after_own_label(text)):
        return False
    words = _EN_WORD.findall(text)
    han = len(_HAN.findall(text))
    if _FIRST_PERSON_START.match(text):
        return han >= _MIN_HAN or len(words) >= _MIN_EN_WORDS  # a subject, so no order: `We deploy with X`
    if han >= _MIN_HAN:
        return _ZH_PREDICATE.search(text) is not None
    if len(words) < _MIN_EN_WORDS:
        return False
    if any(_AUXILIARY.match(w) for w in words[1:]):
        return True
    finite = any(_EN_FINITE.match(w) and not _DETERMINER.match(prev) for prev, w in itertools.pairwise(words))
    return finite and any(_EN_FUNCTION.match(w) for w in words)


def numeric_note(clause: str) -> bool:
    """`frontend Node version 20`, `连接池大小 50`: a subject of several words and one bare number or version
    after it, with no verb, is the user's note of that subject's value (the claim grammar's bare reading). A
    label is a short noun compound: one word (`build 42`) is a fragment, and four or more Latin words are a
    sentence the grammar does not know (`nous utilisons toujours Java 8`), not a label."""
    text = TRAILING_END.sub("", _without_lead_in(clause))
    claim = claim_of(text)
    if claim.stated or claim.colon_subject or len(claim.readings) != 1:
        return False
    subject = claim.readings[0].subject
    if subject is None or len(subject.latin) > _MAX_LABEL_WORDS:
        return False
    return len(subject.latin) >= 2 or len(subject.han) >= _MIN_HAN


def has_statement(safe: str) -> bool:
    """Whether any clause of the turn reads as a statement or declares a value (`Release approver: Zhou Min`):
    the automatic path's reason to ask the model."""
    for sentence in _SENTENCES.split(_without_material(safe)):
        if not java_trim(sentence) or asks(sentence):
            continue
        parts = [part for part in _CLAUSE_END.split(sentence) if java_trim(part)]
        if FACT_WORDS.search(sentence) or any(reads_as_statement(p) or numeric_note(p) for p in parts):
            return True  # the cue words of the reference still count, outside questions (`本项目基于 .NET 8`)
        after_labels = [piece for part in parts for piece in _LABEL_END.split(part)[1:] if java_trim(piece)]
        if any(map(declares, (sentence, *parts, *after_labels))):
            return True  # `Heads-up: No longer Kafka for the message queue` declares after the user's label
    return False


def _without_material(safe: str) -> str:
    """The turn with its code, quote lines and pasted material blanked out: none of it is the user's statement."""
    analysis = InputAnalysis(safe, acceptable_label)
    chars = list(safe)
    regions = analysis.code_regions + analysis.quote_line_regions + analysis.pasted_regions
    for region in regions:
        chars[region.start : region.end] = "\n" * (region.end - region.start)
    return "".join(chars)


def _without_lead_in(clause: str) -> str:
    """`BTW, the …`, `提醒一下：…`, `ok so …`: the user's own lead-in is no part of what the clause states."""
    text = java_trim(_LEADING_MARKS.sub("", clause))
    label, sep, rest = text.partition("：") if "：" in text else text.partition(": ")
    if sep and OWN_VOICE_LABEL.match(label):
        text = java_trim(rest)
    found = DISCOURSE_MARKERS.match(text)
    return java_trim(text[found.end() :]) if found else text


def before_request(tail: str) -> str:
    """What follows a quote in its sentence, up to a later clause that opens a request of its own
    (`镜像仓库换成 Harbor 了，帮我看看这个 Dockerfile 有没有问题？`): that clause's question mark asks for a task
    and does not make the statement before it a question. A request that asks whether the statement holds
    (`…，帮我确认一下对不对？`) or names nothing of its own to work on (`…, can you check?`) is about the
    statement: then nothing is cut."""
    for boundary in _CLAUSE_BOUNDARY.finditer(tail):
        rest = tail[boundary.end() :]
        request = REQUEST.match(rest)
        if request and not _DOUBT.search(rest) and _names_own_object(rest[request.end() :]):
            return tail[: boundary.start()]
    return tail


def _names_own_object(body: str) -> bool:
    """The request's words beyond a pointer back (`it`, `this`, `一下`, `看看`) name a thing of their own."""
    plain = _POINTERS.sub(" ", body)
    words = _EN_WORD.findall(plain)
    han = _HAN.findall(plain)
    return len(words) >= 2 or len(han) >= 4 or bool(words and han)


_CLAUSE_BOUNDARY = re.compile(r"[，,]\s*")
_DOUBT = re.compile(
    r"(?i)对不对|对吗|是不是|是否|确认|核实|核对|真的|\b(?:right|correct|true|confirm|verify|whether|if)\b"
)
_POINTERS = re.compile(
    r"(?i)\b(?:it|this|that|these|those|the|a|an|one|look|please)\b|一下|看看|看下|这个|那个|这些|它|[？?！!。.]"
)
_LEADING_MARKS = re.compile(r"^[\s—–\-…·•*>\"'“”‘’「」『』()（）\[\]【】]+")
_SENTENCE_END = re.compile(r"[。！!？?；;]|[.?!](?=\s)")


def sentence_start(text: str, floor: int, position: int) -> int:
    """Where the sentence holding `position` starts: after the last sentence end before it, not before `floor`."""
    return max([floor, *(m.end() for m in _SENTENCE_END.finditer(text, floor, position))])


def cuts_word(a: InputAnalysis, quote: str, p: int) -> bool:
    """Latin words are whole: `would i` cut from `would installs` is no statement."""
    end = p + len(quote)
    before = a.text[p - 1] if p > 0 else ""
    after = a.text[end] if end < len(a.text) else ""
    return (_ascii_word(before) and _ascii_word(quote[0])) or (_ascii_word(after) and _ascii_word(quote[-1]))


def _ascii_word(ch: str) -> bool:
    return bool(ch) and ch.isascii() and ch.isalnum()
