"""Whose voice a quote is in, what kind of sentence it is and what the temporary rules read: the label, statement
and frame checks of the hardened extraction rules (`extract_rules`). Pure functions of the text."""

from __future__ import annotations

import re

from paicli.context.estimate import utf16_len
from paicli.memory.claim_grammar import TRAILING, negator
from paicli.memory.claim_tokens import clauses
from paicli.memory.extract_framing import framing_label
from paicli.memory.extract_words import (
    ATTENTION,
    FACT_WORDS,
    FOREIGN_LABEL,
    IMPERATIVE,
    INJECTION,
    INTERROGATIVE,
    OLD_VALUE_CLAUSE,
    ORDINAL_LABEL,
    OWN_LEAD_IN,
    OWN_VOICE_LABEL,
    REQUEST,
    STARTING_POINT,
    THIRD_PARTY,
    TRAILING_END,
)
from paicli.memory.quote_context import INTRODUCER
from paicli.memory.subject import claim_of, subject_of


def java_trim(text: str) -> str:
    """Java's String.trim(): strips code points <= U+0020 only."""
    start, end = 0, len(text)
    while start < end and text[start] <= " ":
        start += 1
    while end > start and text[end - 1] <= " ":
        end -= 1
    return text[start:end]


def asks(text: str) -> bool:
    """A question: a question mark or word, or a sentence-final particle of doubt. A final 吧 asks only when
    what it closes is a guess or a suggestion (`测试框架是 Vitest 吧`, `要不改回 npm 吧`); after a settled
    choice (`那测试框架就用 Vitest 吧`, `还是改回 npm 吧`) it closes a decision."""
    if INTERROGATIVE.search(text):
        return True
    found = _FINAL_BA.search(text)
    if found is None:
        return False
    closed = text[: found.start()]
    return _SUGGESTION.search(closed) is not None or _CHOICE.search(closed) is None


_FINAL_BA = re.compile(r"吧[\s。.！!…)）]*$")
# A choice made: a particle of settling (就, 还是, 干脆, 统一) right before a verb of choosing or changing.
_CHOICE = re.compile(
    r"(?:就|还是|那就|干脆|统一|一律|以后|今后)\s*(?:用|改用|改回|换成|换回|定|选|改成|改为|按|走|交给)"
)
_SUGGESTION = re.compile(r"要不|不如|或者|是不是|对|好|行")


def declares(text: str) -> bool:
    """A statement that gives something a value (`发布审批人是周敏`, `Release approver: Zhou Min`), whoever it
    names: durable facts need no we/our/project in them."""
    claim = claim_of(text)
    if not any(reading.subject is not None for reading in claim.readings):
        return False
    if claim.stated:
        return True
    # `Release approver: Zhou Min`: a note that names a subject and gives it a short value declares it too
    if not claim.colon_subject or not _NOTE_COLON.search(text):
        return False
    if claim.readings[0].negated:
        text = _denial_as_value(text)  # `CI platform: not Jenkins anymore` gives the value it denies
    parts = re.split(r"[：:]", text)  # after the user's own label too: `Heads-up: Release approver: Zhou Min`
    return any(
        subject_label(parts[i]) and not _NOT_A_NAME.search(parts[i]) and colon_statement(":".join(parts[i:]))
        for i in range(len(parts) - 1)
        if all(acceptable_label(label) for label in parts[:i])
    )


def _denial_as_value(note: str) -> str:
    """`S: not A anymore, B instead` -> `S: A`: the note's first clause after its last colon without its negation
    and the words that say nothing, so the value checks of a plain note apply to what it denies."""
    label, _, rest = note.rpartition(":") if ":" in note else note.rpartition("：")
    first = clauses(rest)[:1]
    kept = [
        t.text for clause in first for t in clause if not negator(t) and (t.value or t.text not in TRAILING)
    ]
    return f"{label}: {' '.join(kept)}" if kept else note


# A note's colon is prose punctuation: full-width, or ASCII followed by a space (not `build.js:10`, `10:21`);
# its label is words, not a quoted key or code (`"language": "Rust"`).
_NOTE_COLON = re.compile(r"：|:\s")
_NOT_A_NAME = re.compile(r"[\"'`{}\[\]<>()=]")


def acceptable_label(label: str) -> bool:
    """Whether `label：` introduces the user's own statement (`团队约定：`) rather than foreign material."""
    text = java_trim(label)
    if not text:
        return True
    if own_lead_in(text) or ATTENTION.fullmatch(text) or framing_label(text):
        return (
            True  # `另外说一句：`, `Please note:`, `To close the loop:`: the user's own framing, not a source
        )
    own_voice = OWN_VOICE_LABEL.match(text) is not None
    return (
        (FACT_WORDS.search(text) is not None or own_voice)
        and not INTRODUCER.search(text + "：")
        and (own_voice or not FOREIGN_LABEL.search(text))  # `Quick note:` is the user's; `note below:` is not
        and not REQUEST.search(text)
        and (own_voice or not IMPERATIVE.search(text))  # `Update —` announces, it asks nobody to update
        and not INJECTION.search(text + "：")
    )


def own_lead_in(before: str) -> bool:
    """The words before a statement in its sentence are only the user's own speech act (`顺便说下，`)."""
    return bool(java_trim(before)) and OWN_LEAD_IN.match(before) is not None


def after_own_lead_in(sentence: str, lead: str) -> str:
    """The sentence without its opening words when they are only the user's own speech act (`顺便说下，`), before
    the quote (`lead`) or inside it."""
    if sentence.startswith(lead) and own_lead_in(lead):
        sentence = sentence[len(lead) :]
    first = _FIRST_CLAUSE.match(sentence)
    return sentence[first.end() :] if first and own_lead_in(first.group()) else sentence


_FIRST_CLAUSE = re.compile(r"[^，,：:—–。；;]*[，,：:—–]")


def colon_statement(sentence: str) -> bool:
    """`代码审查人：陈静。`: a colon between a subject and a short value, not a label before a statement."""
    rest = TRAILING_END.sub("", java_trim(re.split(r"[：:]", sentence, maxsplit=1)[-1]))
    return (
        bool(rest)
        and len(rest.split()) <= 3
        and utf16_len(rest) <= 24
        and not re.search(r"[，,；;：:]", rest)
        and not FACT_WORDS.search(_IDENTIFIER.sub(" ", rest))  # `us-east-2` is a value, not `us`
        and not declares(rest)
    )


# a hyphenated identifier (`us-east-2`, `our-api`) is one value, whatever English words its parts spell
_IDENTIFIER = re.compile(r"[\w.]+(?:-[\w.]+)+")


def adverb_lead_in(before: str, quote: str) -> bool:
    """`Honestly we're not using X anymore`: a sentence adverb opens the user's own sentence when the quote after
    it starts with its own determiner or pronoun; before a bare noun it may be the noun's adjective (`Nightly
    builds run on X`), and a quote cut after it would lose part of its subject. Hedges are the speculation rule's."""
    return _SENTENCE_ADVERB.fullmatch(before) is not None and _OWN_START.match(quote) is not None


_SENTENCE_ADVERB = re.compile(r"(?i)[a-z]{3,}ly,?")
_OWN_START = re.compile(
    r"(?i)(?:the|a|an|our|my|we|we['’](?:re|ve|ll|d)|i|i['’](?:m|ve|d)|its|their|they|this|these|those|all|every)\b"
)


def names_its_subject(label: str, quote: str) -> bool:
    """`Release approver: Li Na is out, Wang Qiang is in`, `Heads up about the S: A is not used anymore`: the
    label inside the quote is nothing but the subject the statement after it gives a value (and words that say
    nothing), so it is no foreign material's label."""
    if ORDINAL_LABEL.match(label) or INJECTION.search(label + "：") or THIRD_PARTY.search(label):
        return False
    if FACT_WORDS.search(quote[quote.find(label) + len(label) :]):
        return False  # `张三：我们项目都用 tabs`: a statement with a subject of its own, under someone's name
    readings = [r for r in claim_of(quote).readings if r.subject is not None and not r.reverse]
    if not readings or readings[0].subject is None:
        return False
    subject = readings[0].subject
    tokens = [t for clause in clauses(label) for t in clause if t.text not in TRAILING]
    han = "".join(t.text for t in tokens if t.han)
    latin = [part for t in tokens if not t.han for part in t.text.replace("-", ".").split(".") if part]
    return bool(tokens) and han == subject.han and set(latin) == set(subject.latin)


def retires_value(label: str) -> bool:
    """`No more Graylog:`, `不再用 Consul 了：`: a label that takes a value away is a clause of the user's own
    (the first half of a change they report), not a speaker or a source whose words follow it."""
    text = TRAILING_END.sub("", java_trim(label))
    return (
        _RETIRING.match(text) is not None
        and not THIRD_PARTY.search(text)
        and not INJECTION.search(text + "：")
    )


# Opens with a negation of a value or a verb of ceasing: a change, never a name.
_RETIRING = re.compile(
    r"(?i)^(?:no (?:more|longer)\b|not\b(?! (?:sure|certain)\b)|(?:不再|别再|不用|不是|停用|弃用|废弃|告别))"
)


def subject_label(label: str) -> bool:
    text = java_trim(label)
    return bool(text) and not (
        ORDINAL_LABEL.match(text)
        or INTRODUCER.search(text + "：")
        or FOREIGN_LABEL.search(text)
        or REQUEST.search(text)
        or IMPERATIVE.search(text)
        or INJECTION.search(text + "：")
        or THIRD_PARTY.search(text)
    )


def denies_own_subject(part: str) -> bool:
    """`CI 不再用 Jenkins`: a clause that takes a value away from a subject it names. A verb-first clause after it
    (`改成 GitLab CI`) gives that subject its new value; nobody is asked to do anything. `不要再用 A` names no
    subject of its own: that one is a request."""
    return any(r.subject is not None and r.own and r.negated for r in claim_of(part).readings)


def imperative(part: str) -> bool:
    """A clause opened by a task verb, unless that verb names the subject a statement gives a value: the verb is
    the start of a longer subject (`部署环境不用 A 了`), or the clause goes on to a predicate of its own
    (`部署用的是 A`, `生成接口文档改用 A 了`: the doing is the topic, nobody is told to do it). An order puts its
    object or goal right after the verb and stops (`部署到预发环境`, `检查一下代码风格`, `发布一下 staging`)."""
    text = java_trim(part)
    if OWN_VOICE_LABEL.fullmatch(text):
        return False  # `Update, the S is B`: the label alone announces; an order names what to act on
    found = IMPERATIVE.search(text)
    if found is None:
        return (
            _ACTION_SHAPE.match(text) is not None
            and not own_lead_in(text)
            and not OWN_VOICE_LABEL.match(text)
        )
    readings = claim_of(text).readings
    verb = found.group().strip().lower()
    if any(
        r.subject is not None
        and r.own
        and len(r.subject.render()) > len(verb)
        and r.subject.render().startswith(verb)
        for r in readings
    ):
        return False
    return not (_HAN_VERB.fullmatch(found.group()) and _TOPIC_PREDICATE.match(text, found.end()))


# A bare Chinese content verb at the clause's start (no 请/帮我/把 before it): the only kind that can be a topic.
_HAN_VERB = re.compile(
    r"(?!把|给|告诉|改成|改为|改写|改一下|修一下|看|请|你|先|再|然后|并且|帮|麻烦)[\u4e00-\u9fff]{2,3}"
)
# After the topic verb and its object, in the same clause: a predicate that states how the doing is done. An
# order's markers right after the verb (一下, 到, a demonstrative, a classifier) end the topic reading.
_TOPIC_PREDICATE = re.compile(
    r"(?!\s*(?:一下|下|到|这个|那个|这些|那些|一个|个|掉|好|完))[^，,。；;：:！!？?]{0,16}?"
    r"(?:的是|(?<!是)是(?!否|不是)|改用|改成|改为|换成|换回|改回|切到|迁到|不用|不再|弃用|停用|废弃|由|归|交给|跑在|用)"
    r"\s*[^\s，,。；;：:！!？?]"
)
# `发布一下 staging`, `打个镜像`: a verb with the aspect of a quick action (一下) or a classifier (个) is an order,
# whatever the verb; demonstratives, quantifiers and numerals before 个 are no verbs (`每个服务`, `整个仓库`).
_ACTION_SHAPE = re.compile(
    r"(?:(?:请|你|先|再|然后|并且|顺便)\s*)*(?:[\u4e00-\u9fff]{1,2}一下|(?![这那每整各哪某几两一二三四五六七八九十半上下本])[\u4e00-\u9fff]个)"
)


_DASH_LABEL = re.compile(r"^(.{1,40}?)\s*(?:[—–]|\s-)\s*")


def after_own_label(part: str) -> str:
    """`Update — the S is B`: a dash after the user's own label ends the label (it announces, asks nothing); the
    clause to read for a task verb is what follows it."""
    text = java_trim(part)
    found = _DASH_LABEL.match(text)
    if found is None or not acceptable_label(found.group(1)):
        return text
    return java_trim(text[found.end() :])


def outside_subject_names(pattern: re.Pattern[str], text: str, quote: str) -> bool:
    """Whether `pattern` (temporary words) matches `text` outside the name of the thing `quote` gives a value:
    `线上告警渠道是飞书群`, `The temp directory is /tmp/x` name a durable subject that holds such a word, so it
    says nothing about how long the statement holds. A match counts unless it lies inside the subject's name
    and the name is more than the match (`Right now we are debugging` keeps its `right now`)."""
    names: list[re.Pattern[str]] = []
    for reading in claim_of(quote).readings:
        subject = reading.subject
        if subject is None or reading.reverse or not reading.own or not reading.value:
            continue
        for han, latin in ((subject.han, subject.latin), _thing_words(subject.thing, subject.latin)):
            if han:
                names.append(re.compile(r"\s*".join(map(re.escape, han))))
            if latin:
                names.append(re.compile(r"(?i)" + r"[\s._-]*".join(map(re.escape, latin))))
    spans = [m.span() for name in names for m in name.finditer(text)]
    spans += [m.span() for m in _COMPOUND_WORD.finditer(text)]
    return any(
        _RELATIVE_TO_NOW.search(m.group())
        or not any(a <= m.start() and m.end() <= b and b - a > m.end() - m.start() for a, b in spans)
        for m in pattern.finditer(text)
    )


def _thing_words(thing: str, latin: tuple[str, ...]) -> tuple[str, tuple[str, ...]]:
    """The thing a duty is held over, as it is written: a duty's subject adds its verb (`alert routing handled`,
    `告警规则管理`), which the sentence puts elsewhere (`Alert routing is handled by X`, `告警规则由 X 管理`)."""
    han = "".join(_HAN_CHAR.findall(thing))
    rest = _HAN_CHAR.sub("", thing)
    for start in range(len(latin)):
        for end in range(start + 1, len(latin) + 1):
            if "".join(latin[start:end]) == rest:
                return han, latin[start:end]
    return han, ()


_HAN_CHAR = re.compile(r"[\u3400-\u9fff]")
# A word joined to others by a hyphen (`the today's-picks widget`, `a temp-files cleaner`) is part of a name: the
# time word inside it dates nothing.
_COMPOUND_WORD = re.compile(r"[\w'’]+(?:-[\w'’]+)+")


# A name that places its thing relative to this moment (`the previous answer`, `上次的结果`) changes referent as
# time goes on, so it never makes a statement durable.
_RELATIVE_TO_NOW = re.compile(r"(?i)\b(?:previous|prior|earlier|just now)\b|上次|上一次|刚才|刚刚")


_CORRECTED_NOW = re.compile(r"现在(?:是|用|改用|换成|改成|改为)")


def _is_correction(quote: str) -> bool:
    """The quote itself states a new value and calls an old one stale (`端口是 9090，之前说的 8080 是旧的`)."""
    clauses = [java_trim(c) for c in re.split(r"[，,；;：:]", quote) if java_trim(c)]
    old = [c for c in clauses if OLD_VALUE_CLAUSE.search(c)]
    return bool(old) and len(old) < len(clauses) and subject_of(quote) is not None


def correction_frame(quote: str, text: str) -> str:
    return _without_correction_frame(text) if _is_correction(quote) else text


def opened(text: str) -> str:
    """A starting point (`From this sprint`, `从这个迭代开始`) opens a value that holds on: the time words inside
    it bound nothing. An end point (`until Friday`, `到周五为止`) still does, wherever it is."""
    return STARTING_POINT.sub(" ", text)


def passing(words: re.Pattern[str], quote: str, text: str, hardened: bool) -> bool:
    """Temporary words outside the correction frame and, hardened, outside the subject's own name."""
    framed = correction_frame(quote, text)
    return outside_subject_names(words, framed, quote) if hardened else words.search(framed) is not None


def _without_correction_frame(text: str) -> str:
    """A correction (`端口现在是 9090，之前说的 8080 是旧的`) states the durable new value: its old-value clauses
    and its `现在是` are the correction's frame, not a sign of a temporary state. Without an old-value clause
    nothing is dropped (`现在是下午三点` stays temporary)."""
    clauses = re.split(r"([，,；;：:])", text)  # `不再用 A 了：S 现在是 B`: the label is a clause too
    kept = [c for c in clauses if not OLD_VALUE_CLAUSE.search(c)]
    if len(kept) == len(clauses) or not any(java_trim(c) and c not in "，,；;：:" for c in kept):
        return text
    return _CORRECTED_NOW.sub("是", "".join(kept))
