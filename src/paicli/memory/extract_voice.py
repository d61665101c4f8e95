"""Whose voice a quote is in, what kind of sentence it is and what the temporary rules read: the label, statement
and frame checks of the hardened extraction rules (`extract_rules`). Pure functions of the text."""

from __future__ import annotations

import re

from paicli.context.estimate import utf16_len
from paicli.memory.claim_grammar import TRAILING, negator
from paicli.memory.claim_tokens import clauses
from paicli.memory.extract_words import (
    FACT_WORDS,
    FOREIGN_LABEL,
    IMPERATIVE,
    INJECTION,
    OLD_VALUE_CLAUSE,
    ORDINAL_LABEL,
    OWN_LEAD_IN,
    OWN_VOICE_LABEL,
    REQUEST,
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
    if own_lead_in(text):
        return True  # `另外说一句：` is the user's own speech act (a closed form), not an introduced source
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
        and not FACT_WORDS.search(rest)
        and not declares(rest)
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
    """A clause opened by a task verb, unless that verb is the start of the subject it states a value for
    (`部署环境不用 A 了`: the subject is 部署环境, nobody is told to deploy)."""
    found = IMPERATIVE.search(part)
    if found is None:
        return False
    readings = claim_of(part).readings
    verb = found.group().strip().lower()
    return not any(
        r.subject is not None
        and r.own
        and len(r.subject.render()) > len(verb)
        and r.subject.render().startswith(verb)
        for r in readings
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
        if subject.han:
            names.append(re.compile(r"\s*".join(map(re.escape, subject.han))))
        if subject.latin:
            names.append(re.compile(r"(?i)" + r"[\s._-]*".join(map(re.escape, subject.latin))))
    spans = [m.span() for name in names for m in name.finditer(text)]
    return any(
        _RELATIVE_TO_NOW.search(m.group())
        or not any(a <= m.start() and m.end() <= b and b - a > m.end() - m.start() for a, b in spans)
        for m in pattern.finditer(text)
    )


# A name that places its thing relative to this moment (`the previous answer`, `上次的结果`) changes referent as
# time goes on, so it never makes a statement durable.
_RELATIVE_TO_NOW = re.compile(r"(?i)\b(?:previous|prior|earlier|just now)\b|上次|上一次|刚才|刚刚")


_CORRECTED_NOW = re.compile(r"现在(?:是|用|改用|换成|改成|改为)")


def _is_correction(quote: str) -> bool:
    """The quote itself states a new value and calls an old one stale (`端口是 9090，之前说的 8080 是旧的`)."""
    clauses = [java_trim(c) for c in re.split(r"[，,；;]", quote) if java_trim(c)]
    old = [c for c in clauses if OLD_VALUE_CLAUSE.search(c)]
    return bool(old) and len(old) < len(clauses) and subject_of(quote) is not None


def correction_frame(quote: str, text: str) -> str:
    return _without_correction_frame(text) if _is_correction(quote) else text


def passing(words: re.Pattern[str], quote: str, text: str, hardened: bool) -> bool:
    """Temporary words outside the correction frame and, hardened, outside the subject's own name."""
    framed = correction_frame(quote, text)
    return outside_subject_names(words, framed, quote) if hardened else words.search(framed) is not None


def _without_correction_frame(text: str) -> str:
    """A correction (`端口现在是 9090，之前说的 8080 是旧的`) states the durable new value: its old-value clauses
    and its `现在是` are the correction's frame, not a sign of a temporary state. Without an old-value clause
    nothing is dropped (`现在是下午三点` stays temporary)."""
    clauses = re.split(r"([，,；;])", text)
    kept = [c for c in clauses if not OLD_VALUE_CLAUSE.search(c)]
    if len(kept) == len(clauses) or not any(java_trim(c) and c not in "，,；;" for c in kept):
        return text
    return _CORRECTED_NOW.sub("是", "".join(kept))
