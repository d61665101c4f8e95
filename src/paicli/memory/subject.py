"""Claims: which thing a fact is about, which value it gives it, and which values it says are no longer true.

A deterministic parser over grammar, not phrases. Each clause is split at its predicate: a copula or linking verb
(是, 在, 用, is, uses, runs on), a verb with a resultative complement (换成, 调整为, 切到, 改回), an English verb
with a target preposition (changed to, replaced … with, went back to), a colon between a label and a value, or
the perfective 了 (定了 X). What precedes the predicate is the subject (owner qualifiers such as `移动端的` or `of
the mobile app` kept apart); what follows is the value. Source prepositions (由 A, 从 A, from A, off A) and negated
clauses (不是 A, not A, no longer A) give values the fact denies. A clause without a subject of its own (`是 B`,
`it's B`, `换成 B`) continues the subject before it. A copular sentence whose value comes first (`Hangzhou is our
data center`, `李娜已经不是审批人了`) also gets the reversed reading; comparisons pick the reading that fits. A
clause with no such predicate may have a lexical verb found by its place (`claim_verbs.py`: `session tokens expire
after 8 hours`): its subject carries the verb's slot, which must agree exactly, and a change it finds is never
certain. A leading condition clause (`When the build breaks,`, `发布失败时，`) is the fact's condition, kept on its
subject; the verb of a passive or a means clause (`scanned with`, `用 X 检查`) is kept on its reading
(`subject_forms`).

Two claims are about the same subject when their subjects are equal, or when one holds the other (`审查人` in
`代码审查人`, `pool size` in `connection pool size`) and their owners agree. What the parser cannot place is left
to the relation judge: such relations come back as not certain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal

from paicli.memory import claim_roles, role_items, role_words
from paicli.memory import subject_words as w
from paicli.memory.claim_clause import parse_clause
from paicli.memory.claim_grammar import (
    LEADING,
    TIME_ANCHOR,
    TRAILING,
    content,
    key,
    negator,
    plain_value,
    strip,
    verb_with_aspect,
    without_time_frame,
)
from paicli.memory.claim_tokens import Token, clauses, fold
from paicli.memory.claim_verbs import SLOT, qualifier
from paicli.memory.subject_forms import condition_of, doing_of, sheds_modifier

Match = Literal["exact", "contains"]
Kind = Literal["same", "changed", "corrects", "none"]


@dataclass(frozen=True)
class Subject:
    han: str  # the subject's Han characters (attributive 的 dropped), in order
    latin: tuple[str, ...]  # its Latin words, identifiers split into their parts
    owner: str = ""  # whose subject it is when the fact names another component or project
    whole: str = ""  # owner and subject run together: `测试环境的端口` and `测试环境端口` are one subject
    thing: str = ""  # a duty's subject (`claim_roles`): the thing held, whatever frame named it
    duty: str = ""  # and the duty held over it; "" for any other subject
    condition: str = ""  # a leading `When …,` / `…时，` clause: the fact holds under it (`subject_forms`)

    def match(self, other: Subject) -> Match | None:
        if self.condition != other.condition:
            return None  # `when the build fails, X` and `when a deploy fails, X` are two facts
        if self.duty and other.duty:  # one holder of a duty over one thing, in any frame
            return role_items.match_held(
                (self.owner, self.thing, self.duty), (other.owner, other.thing, other.duty)
            )
        if {self.duty or role_words.COARSE, other.duty or role_words.COARSE} != {role_words.COARSE}:
            return None  # a duty contrasted with another on its thing is named only by that duty
        if self.whole and self.whole == other.whole:
            return "exact"
        if self.owner != other.owner:
            # `构建超时` and `夜间构建的超时`: one holds the other with part of its modifier dropped
            shed = sheds_modifier(self, other) or sheds_modifier(other, self)
            return "contains" if shed and _slots(self) == _slots(other) else None
        if _slots(self) != _slots(other):
            return None  # `starts at` and `starts on`, or a lexical slot and a copula: two different facts
        if (self.han, self.latin) == (other.han, other.latin):
            return "exact"
        small, large = sorted((self, other), key=lambda s: (len(s.han) + len(s.latin), s.han, s.latin))
        if _holds_han(large.han, small.han) and set(small.latin) <= set(large.latin):
            return "contains"
        return None

    def render(self) -> str:
        return " ".join(part for part in (self.han, *self.latin) if part)


def _slots(subject: Subject) -> tuple[str, ...]:
    return tuple(word for word in subject.latin if word.startswith(SLOT))


def _with_slot(context: Subject, slot: Subject) -> Subject:
    latin = (*(word for word in context.latin if not word.startswith(SLOT)), *slot.latin)
    return Subject(context.han, latin, context.owner, context.owner + context.han + "".join(latin))


def _holds_han(large: str, small: str) -> bool:
    """`代码评审人` holds `评审人`; so does `代码评审` when the segmenter glued the last character to the verb
    (`代码评审 / 人切 / 到`): a head of three or more characters may lose its last one at that boundary."""
    return small in large or (len(small) >= 3 and large.endswith(small[:-1]))


@dataclass(frozen=True)
class Reading:
    subject: Subject | None
    value: str  # folded, spaces removed ("" when the reading states none)
    negated: bool = False  # the reading says the subject is NOT `value`
    reverse: bool = False  # the other way round of a copular sentence (`V is our S`)
    own: bool = True  # the subject stands in the reading's own clause (not carried over or guessed)
    # read at a lexical verb found by its place (`claim_verbs`): a change it finds is never certain
    lexical: bool = False
    # the verb linking a bare subject to its value (`subject_forms.doing_of`): part of the slot
    doing: str = ""


@dataclass(frozen=True)
class Claim:
    readings: tuple[Reading, ...]
    denied: frozenset[str] = frozenset()  # values the fact says are not, or no longer, true
    mentioned: frozenset[str] = frozenset()
    parsed: bool = False  # a predicate was found (else the readings are empty)
    stated: bool = False  # a verb or copula links a subject to a value (not only a `key: value` colon)
    colon_subject: bool = False  # the first statement is `subject: value`


@dataclass(frozen=True)
class Relation:
    kind: Kind
    certain: bool = False
    # the parser reads two facts on one subject that set different slots of it (its tool, its time): no local
    # rule may call it a change; the relation judge, or the stored fact's own history, still may
    apart: bool = False
    # the new fact's subject holds the stored one and more (`the admin session timeout` after `the session
    # timeout`): a narrower thing, apart unless the stored fact's own history named it that way
    narrower: bool = False


def noun_subject(tokens: list[Token], owner: list[Token]) -> Subject | None:
    han: list[str] = []
    latin: list[str] = []
    tokens = without_time_frame(tokens)
    while tokens and (
        tokens[-1].text in w.ZH_TRAILING_ADVERBS
        or tokens[-1].text in w.ZH_LOCATIVE
        or verb_with_aspect(tokens[-1])
    ):
        tokens = tokens[:-1]  # `default branch 默认是 main`, `连接池大小改了，现在是 32`
    for i, token in enumerate(tokens):
        text = w.SYNONYMS.get(token.text, token.text)
        if text in w.ZH_LOCATIVE:
            han.append(text)  # `线上` may come as 线 / 上: a locative inside a name is part of it
            continue
        if text in TRAILING or text in w.EN_DETERMINERS or text in (":", "=") or TIME_ANCHOR.match(text):
            continue
        if token.latin and len(text) > 4 and text.endswith("ly") and not qualifier(tokens, i):
            continue  # an English adverb (`definitely`, `currently`) says nothing about which thing it is
        if token.han:
            han.append(text)
        else:
            latin.extend(part for part in text.replace("/", ".").replace("-", ".").split(".") if part)
    if not han and not latin:
        return None
    owner_key = key([t for t in owner if t.text not in w.EN_DETERMINERS])
    whole = owner_key + "".join(han) + "".join(latin)
    held = role_items.agent_subject("".join(han), tuple(latin), owner_key, owner)  # `值班负责人`, `X owner`
    if held is not None:
        return Subject("".join(han), tuple(latin), held[1], whole, held[0], role_words.COARSE)
    return Subject("".join(han), tuple(latin), owner_key, whole)


def value_text(tokens: list[Token]) -> str:
    return fold(" ".join(t.text for t in tokens)).replace(" ", "")


def _named_value(subject: Subject | None, value: list[Token]) -> tuple[Subject | None, list[Token]]:
    """`项目用 Java 17`: with no subject of its own, the names before the last value join the subject."""
    if subject is not None or len(value) < 2 or not value[-1].value:
        return subject, value
    names = [t for t in value[:-1] if not t.value]
    return (noun_subject(names, []) if names else None), value[-1:]


def _held(roles: claim_roles.Roles, text: str) -> Claim:
    """The claim of a responsibility statement: one reading per holder, its subject the thing and the duty."""
    readings: list[Reading] = []
    for h in sorted(roles.holders, key=lambda h: h.negated):
        thing, surface = (
            noun_subject(list(h.thing), []),
            noun_subject([*h.thing, Token(h.head)], list(h.owner)),
        )
        if thing is not None and surface is not None:
            held = role_items.held_thing(thing.han, thing.latin)
            readings.append(
                Reading(replace(surface, thing=held, duty=h.duty), value_text(list(h.person)), h.negated)
            )
    denied = {r.value for r in readings if r.negated} | {value_text(list(p)) for p in roles.denied}
    mentioned = {t.text.replace(" ", "") for tokens in clauses(text) for t in tokens if t.value}
    return Claim(tuple(readings), frozenset(denied - {""}), frozenset(mentioned), True, True)


@lru_cache(maxsize=65536)
def claim_of(text: str) -> Claim:
    roles = claim_roles.read(text)
    if roles is None:
        return _claim(text)
    held = _held(roles, text)
    if not roles.weak:
        return held
    plain = _claim(text)  # `X is back on Y`: the plain reading first, the duty's as a second, unsure one
    second = tuple(replace(r, reverse=True) for r in held.readings)
    return replace(plain, readings=plain.readings + second, denied=plain.denied | held.denied)


def _claim(text: str) -> Claim:
    """A leading condition clause with a fact of its own subject after it holds the fact's condition; without
    one (`部署的时候，用 Helm`) it is read as any other clause, the subject the rest continues."""
    parts = clauses(text)
    condition = condition_of(parts[0]) if len(parts) > 1 else ""
    if condition:
        rest = _read(parts[1:])
        if rest.readings and all(r.own and r.subject is not None for r in rest.readings if not r.reverse):
            conditioned = tuple(
                replace(r, subject=replace(r.subject, condition=condition)) if r.subject else r
                for r in rest.readings
            )
            named = {t.text.replace(" ", "") for t in parts[0] if t.value}
            return replace(rest, readings=conditioned, mentioned=rest.mentioned | named)
    return _read(parts)


def _read(parts: list[list[Token]]) -> Claim:
    readings: list[Reading] = []
    ranks: list[tuple[bool, bool, int]] = []  # (negated, reversed, later clauses first)
    denied: set[str] = set()
    mentioned: set[str] = set()
    context: Subject | None = None
    context_owner: list[Token] = []
    parsed = stated = colon_subject = False
    for tokens in parts:
        mentioned.update(t.text.replace(" ", "") for t in tokens if t.value)
        if _role_clause(tokens) and any(r.subject is None for r in readings):
            context, readings[:] = _role(tokens[1:], context_owner, readings)  # `B 取代了 A，成为新的 S`
            continue
        clause = parse_clause(tokens)
        if not clause.predicate:
            if negator(tokens[0]) and context is not None and not readings:  # `The S — no longer A.`
                gone = value_text([t for t in tokens[1:] if t.text not in TRAILING])
                if gone:
                    readings.append(Reading(context, gone, True, own=False))
                    ranks.append((True, False, -len(ranks)))
                    stated = True
            bare = _bare(tokens) if not readings and context is None else None
            if bare is not None:  # `连接池大小 50`: a label and its value with no verb between them
                readings.append(bare)
                ranks.append((False, False, -len(ranks)))
                context = bare.subject
                continue
            context, context_owner = _frame(tokens, context, context_owner, denied)
            continue
        parsed = True
        owner = clause.owner or context_owner
        denied.update(d for d in clause.denied if d)
        if any(plain_value(t) for t in clause.subject) and all(
            t.value or t.text in TRAILING for t in clause.subject
        ):
            gone = value_text([t for t in clause.subject if t.value])  # a clause about a value, not a subject
            named = noun_subject(clause.value, owner)
            if clause.negated:  # `17 已经不用了`, `21 已经不是后端 JDK 版本了`
                denied.add(gone)
            if named is not None:  # `21 is the JDK version`, `17 已经不是 JDK 版本了`
                readings.append(Reading(named, gone, clause.negated, reverse=True, own=False))
                ranks.append((clause.negated, True, -len(ranks)))
                stated = stated or not clause.colon  # the value is linked to a subject by a verb
            continue
        subject = noun_subject(clause.subject, owner)
        if (
            clause.lexical
            and context is not None
            and subject is not None
            and subject.latin == _slots(subject)
        ):
            subject = _with_slot(context, subject)  # `…, they expire after 8 hours`: the subject named before
        value = clause.value
        own = subject is not None
        if subject is None and context is not None:
            subject = context  # `…，是 B`, `it's B`
        elif subject is None:
            subject, value = _named_value(subject, value)
            own = subject is not None  # `项目用 Java 17`: the name stands in the clause itself
            if subject is None and context_owner and not clause.owner:
                subject = noun_subject(
                    context_owner, []
                )  # `For the S, A no longer applies`: the frame names it
        context = subject
        found = value_text(value)
        if not found:
            continue
        if clause.negated:
            denied.add(found)
        stated = stated or not clause.colon
        colon_subject = colon_subject or (clause.colon and not readings)
        doing = "" if clause.lexical else doing_of(tokens[len(clause.subject) :])
        readings.append(Reading(subject, found, clause.negated, own=own, lexical=clause.lexical, doing=doing))
        ranks.append((clause.negated, False, -len(ranks)))
        flip = (clause.reversible or clause.negated) and not clause.lexical
        reverse = noun_subject(clause.value, owner) if flip else None
        if reverse is not None and key(clause.subject):
            readings.append(Reading(reverse, key(clause.subject), clause.negated, reverse=True, own=False))
            ranks.append((clause.negated, True, -len(ranks)))
    order = sorted(range(len(readings)), key=lambda i: ranks[i])
    return Claim(
        tuple(readings[i] for i in order),
        frozenset(denied),
        frozenset(mentioned),
        parsed,
        stated,
        colon_subject,
    )


def _bare(tokens: list[Token]) -> Reading | None:
    """A clause of a subject's words followed by one bare number or version and nothing else (`数据库连接池大小
    50`): the subject has that value. Not a statement (`stated` stays false) and not the reading's own subject
    (the label may open with a verb: `运行 echo … 8080` is a task, not a subject `运行…`), so never certain."""
    if len(tokens) < 2 or not _BARE_NUMBER.match(tokens[-1].text) or any(t.value for t in tokens[:-1]):
        return None
    if any(negator(t) for t in tokens):
        return None
    found = noun_subject(tokens[:-1], [])
    return Reading(found, value_text(tokens[-1:]), own=False) if found is not None else None


_BARE_NUMBER = re.compile(r"^v?\d+(?:\.\d+)*$")


def _role(
    tokens: list[Token], owner: list[Token], readings: list[Reading]
) -> tuple[Subject | None, list[Reading]]:
    """A clause `as the S` / `作为 S`: the subject of the readings before it that had none of their own."""
    role = noun_subject(strip(tokens, LEADING), owner)
    patched = [
        Reading(role, r.value, r.negated, r.reverse, own=True) if r.subject is None else r for r in readings
    ]
    return role, patched


def _role_clause(tokens: list[Token]) -> bool:
    """`成为新的 S`, `作为 S`, `as the S` (an English `as` only before a determiner: not `as agreed`)."""
    first = tokens[0]
    return first.text in w.ROLE and content(tokens[1:]) and (first.han or tokens[1].text in w.EN_DETERMINERS)


def _frame(
    tokens: list[Token], context: Subject | None, owner: list[Token], denied: set[str]
) -> tuple[Subject | None, list[Token]]:
    """A clause without a predicate: an owner (`For the data team,`), a denial (`not A`), or a subject that the
    next clause continues (`S 那条 A 过时了，新的是 B`)."""
    if tokens[0].text in w.EN_OWNER_PREPOSITIONS:
        return context, tokens[1:]
    if len(tokens) > 2 and (tokens[0].text, tokens[1].text) in (("as", "for"), ("as", "to")):
        return noun_subject(tokens[2:], owner) or context, owner  # `As for the S, it's B`: the topic
    if negator(tokens[0]):
        denied.add(value_text([t for t in tokens[1:] if t.text not in TRAILING]))
        return context, owner
    end, named = len(tokens), False
    for i, token in enumerate(tokens):  # the subject runs to the first value after a word of its own
        if token.value and named:
            end = i
            break
        named = named or (not token.value and token.text not in TRAILING)
    return noun_subject(tokens[:end], owner) or context, owner


def subject_of(text: str) -> Subject | None:
    """The subject of the fact's main statement, if the parser found one."""
    readings = claim_of(text).readings
    return readings[0].subject if readings else None
