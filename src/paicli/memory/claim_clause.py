"""One clause of a claim split at its predicate: subject, owner qualifier, value, denied values (`subject.py`
turns clauses into readings). Pure functions over the tokens of `claim_tokens`."""

from __future__ import annotations

from dataclasses import dataclass, field

from paicli.memory import subject_words as w
from paicli.memory.claim_grammar import (
    LEADING,
    TRAILING,
    ceasing,
    content,
    ending,
    ending_in,
    find_predicate,
    key,
    negator,
    split_value_subject,
    starts_with_verb,
    strip,
    until_time,
    verb,
    without_leading_verb,
)
from paicli.memory.claim_tokens import Token
from paicli.memory.claim_verbs import gerund_reading, lexical_reading, without_frame


@dataclass
class Clause:
    subject: list[Token] = field(default_factory=list)
    owner: list[Token] = field(default_factory=list)
    value: list[Token] = field(default_factory=list)
    negated: bool = False
    denied: list[str] = field(default_factory=list)
    predicate: bool = False
    colon: bool = False  # the predicate is a colon (`key: value`)
    reversible: bool = False  # a copula with a determiner after it: `V is our S`
    lexical: bool = False  # the predicate is a lexical verb found by its place (`claim_verbs`): never certain


def parse_clause(tokens: list[Token]) -> Clause:
    tokens = without_frame(tokens)  # `从这周起 S run on B`: the time frame is no part of the subject
    colon = next((i for i, t in enumerate(tokens) if t.text == ":"), None)
    if colon is not None and 0 < colon < len(tokens) - 1:
        rest = tokens[colon + 1 :]
        if find_predicate(list(rest)) is not None:
            inner = parse_clause(rest)  # `团队约定：分支名用小写`: the label frames a statement
            if not content(inner.subject) and not inner.owner:
                inner.subject = tokens[:colon]  # `代码审查人：A → B`: the label is the subject
            return inner
        clause = _split(tokens[:colon], tokens[colon : colon + 1], tokens[colon + 1 :])
        clause.colon = True
        return clause
    role = next((i for i, t in enumerate(tokens) if i > 0 and t.han and t.text in w.ROLE), None)
    if (
        role is not None and content(tokens[role + 1 :]) and find_predicate(tokens[:role]) is None
    ):  # `A 不再作为 S`: A is (no longer) the S; not `S 用 B 作为默认`, whose predicate comes first
        value = strip([t for t in tokens[:role] if not negator(t)], LEADING)
        if content(value):
            subject, owner = owner_of(strip(tokens[role + 1 :], LEADING))
            negated = any(negator(t) for t in tokens[:role])
            return Clause(subject, owner, value, negated=negated, predicate=True)
    gerund = gerund_reading(tokens)
    if gerund is not None:  # `we've stopped deploying with A`: the doing after the verb is what is over
        subject, value, negated = gerund
        return Clause(subject, [], value, negated=negated, predicate=True, lexical=True)
    found = find_predicate(tokens)
    if found is None and negator(tokens[0]):  # `No longer A for the S`: a denial that names its subject
        value, tail = owner_tail(strip([t for t in tokens if not negator(t)], LEADING))
        if tail and content(value):
            subject, owner = owner_of(tail)
            return Clause(subject, owner, value, negated=True, predicate=True)
    lead = strip(tokens, LEADING)
    if found is None and lead and any(t.text == "to" for t in tokens[: len(tokens) - len(lead)]):
        value, tail = owner_tail(lead)  # `Back to B for the S`: a verbless change names its subject after for
        if tail and content(value):
            subject, owner = owner_of(tail)
            return Clause(subject, owner, value, predicate=True)
    back = next(
        (i for i in range(1, len(tokens) - 2) if (tokens[i].text, tokens[i + 1].text) == ("back", "to")), None
    )
    if found is None and back is not None and content(tokens[:back]):  # `S back to B 了`: a verbless return
        value, tail = owner_tail(strip(tokens[back + 2 :], LEADING))
        if content(value) and not tail:
            subject, owner = owner_of(strip(tokens[:back], LEADING))
            return Clause(subject, owner, value, predicate=True)
    lexical = lexical_reading(tokens) if found is None else None
    if lexical is not None:  # `Session tokens now expire after 8 hours`, `The app doesn't target iOS 15`
        subject, value, negated = lexical
        subject, owner = owner_of(subject)
        return Clause(subject, owner, value, negated=negated, predicate=True, lexical=True)
    denial = next((i for i, t in enumerate(tokens) if i > 0 and negator(t)), None)
    if found is None and denial is not None and content(tokens[:denial]):
        rest = [t for t in tokens[denial:] if not negator(t) and t.text not in TRAILING]
        plain = tokens[denial].text not in ("not", "n't") and not tokens[denial].han
        if len(rest) <= 1 and all(t.latin for t in rest) and plain:  # `A no longer applies`: intransitive
            return Clause(value=strip(tokens[:denial], LEADING), negated=True, predicate=True)
        if content(rest) and not plain:  # `S 并非 A`, `S not A`: a verbless denial of A for S
            subject, owner = owner_of(strip(tokens[:denial], LEADING))
            return Clause(subject, owner, rest, negated=True, predicate=True)
    if found is None:
        return Clause(subject=tokens)
    start, value_at = found
    return _split(tokens[:start], tokens[start:value_at], tokens[value_at:])


def _split(before: list[Token], predicate: list[Token], after: list[Token]) -> Clause:
    clause = Clause(predicate=True)
    agent = next(
        (i for i, t in enumerate(predicate) if t.text == "by" and predicate[i - 1].text in w.EN_REPLACING),
        None,
    )
    if agent is not None and content(before):  # `A has been replaced by B as the S`: B is new, A is gone
        clause.denied.append(key(strip(before, LEADING)))
        value = [t for t in predicate[agent + 1 :] if t.text not in w.EN_TARGET]
        clause.subject, clause.owner = owner_of(strip(after, LEADING))
        clause.value = strip(value, LEADING)
        return clause
    if predicate[0].text in w.ARROWS:
        clause.denied.append(key(before))
        after, tail = owner_tail(strip(after, LEADING))
        clause.subject, clause.owner = owner_of(tail)
        clause.value = after
        return clause
    ceased, after = ceasing(predicate, after)
    clause.negated = ceased or any(negator(t) for t in [*before[-3:], *predicate, *after[:2]])
    before = [t for t in before if not negator(t)]
    after = [t for t in after if not negator(t)]
    disposal = next((i for i, t in enumerate(before) if t.text in w.ZH_DISPOSAL), None)
    topic: list[
        Token
    ] = []  # `S 把 A 换成 B`, `S 这边把 A 撤掉了`: a subject before 把 makes its object the old value
    if disposal is not None:  # `我们把 X 换成 Y`: X is the subject
        topic, before = strip(before[:disposal], LEADING), before[disposal + 1 :]
        if content(topic) and content(before) and not over_before(predicate, after):
            clause.denied.append(key(strip(before, LEADING)))
            before = topic
    source = next((i for i, t in enumerate(before) if t.text in w.ZH_SOURCE), None)
    if source is not None:  # `X 由 A 改成 B`
        clause.denied.append(key(before[source + 1 :]))
        before = before[:source]
    middle = [t for t in predicate[1:] if t.text not in w.EN_TARGET and t.text != "for" and not t.han]
    while middle and (verb(middle[0]) or middle[0].text in TRAILING or ending(middle[0])):
        middle = middle[1:]  # `we've moved the S to B`, `we got rid of A`: auxiliaries and the verb itself
    from_at = next((i for i, t in enumerate(middle) if t.text in w.EN_SOURCE), None)
    left: list[Token] = []  # `moved off A` with no new value: the clause denies A
    if from_at is not None:  # `changed from A to B`, `moved off A`
        clause.denied.append(key(middle[from_at + 1 :]))
        if not any(t.text in w.EN_TARGET for t in predicate):  # Han values too: `moved off 周敏 了`
            rest = [t for t in predicate[1:] if t.text != "for"]
            left = strip(rest[next(i for i, t in enumerate(rest) if t.text in w.EN_SOURCE) + 1 :], LEADING)
        middle = middle[:from_at]
    # `V is (now) the S`: an adverb between the copula and the determiner leaves the sentence reversible
    lead = next(
        (t for t in after if t.text in w.EN_DETERMINERS or (t.text not in TRAILING and t.text != "as")), None
    )  # `B is back as the S` too
    clause.reversible = lead is not None and lead.text in w.EN_DETERMINERS
    over = ending_in([*predicate, *after])
    after, tail = owner_tail(strip(after, LEADING))
    source = next((i for i, t in enumerate(after) if i > 0 and t.text == "from"), None)
    if over and not tail and source is not None and content(after[source + 1 :]):
        after, tail = after[:source], after[source + 1 :]  # `A was removed from the S`
    if (
        content(before)
        and (tail or over or clause.negated)
        and all(verb(t) or t.text in TRAILING or ending(t) for t in after)
    ):  # passive: `Jenkins is (no longer) used for the CI`, `A has been dropped`, `A 已经停用了`
        subject, clause.value = (
            ([], strip(before, LEADING)) if tail else split_value_subject(strip(before, LEADING))
        )
        if content(topic) and not tail:
            subject, clause.value = topic, strip(before, LEADING)
        clause.subject, clause.owner = owner_of(tail or subject)
        clause.negated = clause.negated or over
        return clause
    role_target = predicate[-1].text in ("as", "for") and not tail
    replacing = any(t.text in w.REPLACING for t in predicate)
    if replacing and predicate[-1].text == "with" and content(before) and content(middle):
        clause.denied.append(key(middle))  # `the S replaced A with B`: the S is the subject, B the value
    elif content(before) and (role_target or replacing):  # `B took over as the S`, `B 取代了 A`
        # `B replaced A as the S`, `B took over from A as the S`: A is the value left behind
        gone = [] if over else middle if role_target else strip(after, LEADING) if replacing else []
        role_at = next((i for i, t in enumerate(gone) if i > 0 and t.han and t.text in w.ROLE), None)
        if role_at is not None:  # `B 替代 A 做 S`: the role names the subject
            gone, after, role_target = gone[:role_at], gone[role_at + 1 :], True
        if content(gone):
            clause.denied.append(key(gone))
        clause.negated = clause.negated or over  # `A has been dropped as the S`
        clause.subject, clause.owner = owner_of(after if role_target else [])
        clause.value = strip(before, LEADING)
        phrase = None if role_target else subject_phrase(clause.value)
        if phrase is not None:  # `B of the S replaced A`: the subject stands in a phrase after the new value
            clause.value, (clause.subject, clause.owner) = (
                clause.value[:phrase],
                owner_of(clause.value[phrase + 1 :]),
            )
        return clause
    if not content(before) and (tail or predicate[0].text in ("replaced", "swapped")):
        clause.denied.append(key(middle))  # `we replaced A with B as the S`
        if not tail and content(middle):
            before = middle  # `we replaced the old S A with B`: the subject's words are in there, with A
    elif not content(before) and middle and role_target:
        before, after = after, middle  # `we settled on B as the S`
    elif not content(before) and middle and (after or content(left)):
        before = middle  # `we switched the S to B`, `we migrated the S off A`
    clause.subject, clause.owner = owner_of(tail or before)
    clause.value = until_time(without_leading_verb(strip(after, LEADING)))
    if not content(clause.value) and content(left):  # a change that names only where it left: A is over
        clause.value, clause.negated = left, True
    role = next((i for i, t in enumerate(clause.value) if i > 0 and t.han and t.text in w.ROLE), None)
    if role is not None:  # `S 用 B 作为默认`: the value ends at its role
        clause.value = clause.value[:role]
    replacer = next((i for i, t in enumerate(clause.value) if i > 0 and t.text in w.REPLACING), None)
    if replacer is not None:  # `S 用 B 替换了 A`
        clause.denied.append(key(strip(clause.value[replacer + 1 :], LEADING)))
        clause.value = strip(clause.value[:replacer], LEADING)
    substitute = next((i for i, t in enumerate(clause.value) if i > 0 and t.text in w.EN_SUBSTITUTE), None)
    if substitute is not None and not clause.negated:  # `B instead of A`, `B rather than A`: A is replaced
        clause.denied.append(key(strip(clause.value[substitute + 2 :], LEADING)))
        clause.value = clause.value[:substitute]
    contrast = next((i for i, t in enumerate(clause.value) if t.text in w.CONTRAST), None)
    if clause.negated and contrast is not None:  # `is no longer A but B`, `不是 A 而是 B`
        clause.denied.append(key(clause.value[:contrast]))
        clause.value = strip(clause.value[contrast + 1 :], LEADING)
        clause.negated = False
    if predicate[0].text in w.EN_BE and strip(after, LEADING)[:1] and starts_with_verb(after):
        clause.value = []  # `A was retired`: an event, no value
    means = instrument(predicate, clause.value) if not content(clause.subject) and not clause.owner else None
    if means is not None:  # `我们用 A 部署`: the doing after the means is the subject
        clause.subject, clause.value = means
    return clause


def instrument(predicate: list[Token], value: list[Token]) -> tuple[list[Token], list[Token]] | None:
    """(subject, value) of `我们用 A 部署`, `现在我们不再用 A 部署了`: in a clause with no subject of its own, a
    verb of means (用) whose Latin object is followed by a Chinese verb names that doing as the subject and the
    object as the value (not `用的是 A`, nor `用 B 替换了 A`)."""
    if any(t.text in ("的", "是") or t.text in w.REPLACING for t in value):
        return None
    if value[:1] and value[0].text in _MEANS:  # `我们停止用 A 签名提交了`, `我们没在用 A 打包了`
        value = value[1:]
    elif predicate[-1].text not in _MEANS:
        return None
    tail = len(value)
    while tail > 0 and value[tail - 1].han and not value[tail - 1].value:
        tail -= 1
    doing = [t for t in value[tail:] if t.text not in TRAILING]
    if not doing or not content(value[:tail]) or any(t.han for t in value[:tail]):
        return None
    return doing, value[:tail]


_MEANS = frozenset(["用", "使用", "采用"])


def subject_phrase(tokens: list[Token]) -> int | None:
    """Where `of the S` / `for the S` starts after a value (`v3 of the public API`): a preposition of owning and
    a determiner, with words on both sides."""
    return next(
        (
            i
            for i in range(1, len(tokens) - 2)
            if tokens[i].text in w.EN_OWNER_PREPOSITIONS and tokens[i + 1].text in w.EN_DETERMINERS
        ),
        None,
    )


def over_before(predicate: list[Token], after: list[Token]) -> bool:
    """`S 把 A 撤掉了`: a verb of ceasing with nothing after it ends the object before it."""
    return any(ending(t) for t in predicate) and not content(strip(after, LEADING))


def duration(tokens: list[Token]) -> bool:
    """`for a while`, `for now`, `for two weeks`: a span of time after `for` names no subject."""
    words = [
        t.text for t in tokens if t.text not in w.EN_DETERMINERS and t.text not in ("long", "some", "good")
    ]
    return bool(words) and all(t in w.EN_DURATION or t.isdigit() or t in w.EN_NUMBER_WORDS for t in words)


def owner_tail(after: list[Token]) -> tuple[list[Token], list[Token]]:
    """`B for the S` / `B as the S`: the words after `for`/`as` name the subject."""
    for i, token in enumerate(after):
        if i > 0 and token.text == "for" and (i == len(after) - 1 or duration(after[i + 1 :])):
            return after[:i], []  # `B for a while`: the value ends at its duration
        if i > 0 and token.text in ("for", "as") and content(after[i + 1 :]):
            return after[:i], after[i + 1 :]
    return after, []


def owner_of(tokens: list[Token]) -> tuple[list[Token], list[Token]]:
    """(subject, owner): `移动端的代码审查人` -> (代码审查人, 移动端); `the reviewer of the mobile app` likewise."""
    relative = next(
        (
            i
            for i in range(1, len(tokens) - 1)
            if tokens[i].text in w.EN_PERSONAL and tokens[i - 1].latin and tokens[i + 1].latin
        ),
        None,
    )
    if relative is not None:  # `the S we picked`: the relative clause is no part of the subject
        tokens = tokens[:relative]
    tokens = [t for t in tokens if t.text not in w.EN_PRONOUNS or t.value]
    while tokens and tokens[-1].text in ("的", "之") and len(tokens) > 1:
        tokens = tokens[:-2]  # `定的是`: 的 right before the copula nominalises; no owner
    for i in range(len(tokens) - 2, -1, -1):
        if tokens[i].text in w.ZH_ATTRIBUTIVE or tokens[i].text == "'s":
            if all(t.text in w.GENERIC for t in tokens[:i]):
                return tokens[i + 1 :], []  # `我们的 S`: the speaker's own project is no other owner
            return tokens[i + 1 :], tokens[:i]
    for i, token in enumerate(tokens):
        if i > 0 and token.text in w.EN_OWNER_PREPOSITIONS:
            return tokens[:i], tokens[i + 1 :]
    return tokens, []
