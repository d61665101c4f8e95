"""Token-level grammar of the claim parser (`subject.py`): where a clause's predicate is, which words are verbs,
negators or values. Pure functions over the tokens of `claim_tokens`; the word classes are in `subject_words`."""

from __future__ import annotations

import re

from paicli.memory import subject_words as w
from paicli.memory.claim_tokens import Token

TRAILING = w.GENERIC | w.ZH_ASPECT
TIME_ANCHOR = re.compile(r"^(?:从.{1,6}(?:起|开始)|.{1,4}起)$")  # jieba keeps `从今天起` whole
LEADING = w.GENERIC | w.ZH_ASPECT | w.ZH_COPULAS | w.EN_BE | w.ZH_COMPLEMENTS | w.EN_TARGET | {":"}


def strip(tokens: list[Token], leading: frozenset[str] | set[str]) -> list[Token]:
    start, end = 0, len(tokens)
    while start < end and not tokens[start].value and tokens[start].text in leading:
        start += 1
    while end > start and not tokens[end - 1].value and tokens[end - 1].text in TRAILING:
        end -= 1
    return tokens[start:end]


def verb(token: Token) -> bool:
    text = token.text
    return token.latin and ((len(text) >= 4 and text.endswith("ed")) or text in w.EN_IRREGULAR_VERBS)


def target(tokens: list[Token], verb: int) -> int | None:
    """The preposition after a verb that introduces the new value: to/with/into first, then for, then as
    (`swapped A out for B as the S`)."""
    for targets in (w.EN_TARGET - {"as"}, frozenset(["for"]), frozenset(["as"])):
        found = next((j for j in range(verb + 1, len(tokens)) if tokens[j].text in targets), None)
        if found is not None:
            return found
    return None


def plain_value(token: Token) -> bool:
    """A number, version or path: never a subject (a hyphenated name such as `on-call` may be one)."""
    return token.value and any(ch.isdigit() or ch in "/\\" for ch in token.text)


def verb_with_aspect(token: Token) -> bool:
    return token.han and len(token.text) >= 2 and token.text[-1] in "了过"


def verb_slot(token: Token) -> bool:
    return (token.han or token.latin) and token.text not in TRAILING


def verb_before_target(tokens: list[Token], i: int) -> bool:
    """`now points to B`, `maps to B`: an English word in -s right before a target preposition is a verb."""
    token = tokens[i]
    return (
        i > 0
        and i + 1 < len(tokens)
        and token.latin
        and len(token.text) > 3
        and token.text.endswith("s")
        and not token.text.endswith("ss")
        and tokens[i - 1].text not in w.EN_DETERMINERS
        and tokens[i + 1].text in w.EN_TARGET
    )


def negator(token: Token) -> bool:
    return not token.value and (token.text in w.ZH_NEGATORS or token.text in w.EN_NEGATORS)


def ending(token: Token, following: Token | None = None) -> bool:
    """A verb of ceasing or its participle (`停用`, `deprecated`, `dropped`): the value beside it is over; not
    when a particle of motion follows it (`have gone back to B`)."""
    moving = following is not None and following.text in w.EN_MOTION_PARTICLES
    if token.value or moving:
        return False
    # a verb with the resultative complement 掉 (away) takes its object away: 关掉, 拿掉, 砍掉
    return token.text in w.ENDING or (token.han and len(token.text) >= 2 and token.text.endswith("掉"))


def ending_in(tokens: list[Token]) -> bool:
    return any(ending(t, tokens[i + 1] if i + 1 < len(tokens) else None) for i, t in enumerate(tokens))


def until_time(tokens: list[Token]) -> list[Token]:
    """`B since Monday`, `B these days`, `B from now on`: the value ends where a time adverbial starts."""
    cut = next((i for i, t in enumerate(tokens) if i > 0 and not t.value and t.text in w.EN_TIME_START), None)
    return tokens[:cut] if cut is not None else tokens


def split_value_subject(tokens: list[Token]) -> tuple[list[Token], list[Token]]:
    """(subject, value) of `S 那个 A` / `S 这边 A` / `S A` (a lifted value last) before a verb of ceasing;
    ([], tokens) when no subject stands in front of the value."""
    marker = next((i for i in range(len(tokens) - 1, 0, -1) if tokens[i].text in w.ZH_DEMONSTRATIVE), None)
    if marker is not None and marker + 1 < len(tokens):
        return tokens[:marker], tokens[marker + 1 :]
    if len(tokens) > 1 and tokens[-1].value and content(tokens[:-1]):
        return tokens[:-1], tokens[-1:]
    return [], tokens


def ceasing(predicate: list[Token], after: list[Token]) -> tuple[bool, list[Token]]:
    """`stopped using A`, `moved away from A`: the clause denies A (the verb's particles are no value)."""
    words = [*predicate, *after]
    if not any(ending(t, words[i + 1] if i + 1 < len(words) else None) for i, t in enumerate(predicate[:2])):
        return False, after
    start = 0
    while start < len(after) and after[start].text in w.EN_CESSATION_PARTICLES:
        start += 1
    return True, after[start:]


def find_predicate(tokens: list[Token]) -> tuple[int, int] | None:
    """(first token of the predicate, first token of the value) of the clause's first predicate."""
    for i, token in enumerate(tokens):
        text = token.text
        if token.value or relative_verb(tokens, i):
            continue
        if text in w.ZH_COMPLEMENTS and i > 0 and verb_slot(tokens[i - 1]):
            return i - 1, i + 1  # `调整 为`, `恢复 成`, code-switched `switch 到`
        if text in ("在", "于") and i > 0 and len(tokens[i - 1].text) == 1 and tokens[i - 1].han:
            return i - 1, i + 1  # `跑在`, `放在`
        if text in w.EN_LINKING and _doing_with_object(tokens, i):
            continue  # `we run the tests with A`: a doing with its object and its means, no link
        if text in w.ZH_COPULAS or text in w.EN_BE or text in w.EN_LINKING:
            return i, i + 1
        if text in w.ZH_CHANGE and 0 < i < len(tokens) - 1 and tokens[i + 1].text not in TRAILING:
            return i, i + 1  # `S 换 B` (not `换了个新的`)
        if text in w.EN_CESSATION and i > 0 and i + 1 < len(tokens):
            return i, i + 1
        if text in w.EN_PERFECT and i + 2 < len(tokens) and tokens[i + 1].text in w.EN_CESSATION:
            return i, i + 2  # `has stopped being A`
        if (
            ending(token, tokens[i + 1] if i + 1 < len(tokens) else None)
            and i > 0
            and not particle(tokens, i)
        ):
            return i, i + 1  # `A 已经停用了`, `we deprecated A`
        if text in w.EN_PERFECT and _be_before_value(tokens, i):
            continue  # `has (always) been A`: the be-form is the predicate
        if (
            token.han
            and len(text) >= 2
            and text.endswith(w.ZH_RESULTATIVE)
            and text not in w.ZH_NOT_RESULTATIVE
        ):
            return i, i + 1
        if text in w.ARROWS:
            return i, i + 1  # `A → B for the S`
        if (
            verb(token) and not attributive(tokens, i) and (i > 0 or target(tokens, i) is not None)
        ) or verb_before_target(tokens, i):
            found = target(tokens, i)  # at the start only with a target: `Switched the S to B` (no subject)
            return (i, found + 1) if found is not None else (i, len(tokens))
    fused = next((i for i, t in enumerate(tokens) if i > 0 and fused_complement(tokens[i - 1], t)), None)
    if fused is not None:  # jieba reads `更新成王强` as 更新 / 成王强
        tokens[fused : fused + 1] = [Token(tokens[fused].text[0]), Token(tokens[fused].text[1:])]
        return fused - 1, fused + 1
    change = next((i for i, t in enumerate(tokens) if i > 0 and fused_change(t)), None)
    if change is not None:  # jieba reads `渠道换飞书群` as 渠道 / 换飞 / 书群
        tokens[change : change + 1] = [Token(tokens[change].text[0]), Token(tokens[change].text[1:])]
        return change, change + 1
    inner = next((i for i, t in enumerate(tokens[:-1]) if i > 0 and ends_in_copula(t)), None)
    if inner is not None:  # jieba reads `分支名用小写` as 分支 / 名用 / 小写
        tokens[inner : inner + 1] = [Token(tokens[inner].text[:-1]), Token(tokens[inner].text[-1])]
        return inner + 1, inner + 2
    replacing = next((i for i, t in enumerate(tokens[1:-1], 1) if t.text in w.ZH_REPLACING), None)
    if (
        replacing is not None
    ):  # `B 替代 A 做 S`: with no copula before it, the verb of replacing is the predicate
        return replacing, replacing + 1
    perfective = next((i for i, t in enumerate(tokens[1:-1], 1) if t.text == "了"), None)
    return (perfective - 1, perfective + 1) if perfective is not None else None


def attributive(tokens: list[Token], i: int) -> bool:
    """`the archived logs`, `each cached page`: a participle between a determiner or quantifier and a noun
    qualifies the noun; it is no predicate (`the archive moved to B` has a noun before the participle)."""
    after = tokens[i + 1] if i + 1 < len(tokens) else None
    return (
        i > 0
        and (tokens[i - 1].text in w.EN_DETERMINERS or tokens[i - 1].text in _QUANTIFIERS)
        and after is not None
        and after.latin
        and after.text not in w.GENERIC
        and after.text not in w.EN_TARGET
    )


_QUANTIFIERS = frozenset(["each", "every", "all", "some", "any"])


def particle(tokens: list[Token], i: int) -> bool:
    """`time out after 30 minutes`, `go out on the 1st`: `out` between a verb (no be-form) and a preposition of
    time or place is the verb's particle, not a verb of ceasing (`Jenkins is out`)."""
    before, after = tokens[i - 1] if i > 0 else None, tokens[i + 1] if i + 1 < len(tokens) else None
    return (
        tokens[i].text == "out"
        and before is not None
        and before.latin
        and before.text not in w.EN_BE
        and before.text not in w.GENERIC
        and after is not None
        and after.text in _PARTICLE_OBJECTS
    )


_MEANS = frozenset(["with", "through", "via", "using"])


def _doing_with_object(tokens: list[Token], i: int) -> bool:
    """A linking verb followed by a determined object and then the means it is done with (`run the tests with
    A`, `use the staging cluster through A`): the verb names a doing, its object is part of the subject."""
    rest = [t.text for t in tokens[i + 1 : i + 6]]
    if not rest or rest[0] not in w.EN_DETERMINERS:
        return False
    return any(word in _MEANS for word in rest[2:])


_PARTICLE_OBJECTS = frozenset(
    ["on", "at", "in", "after", "before", "by", "every", "within", "until", "around"]
)


def _be_before_value(tokens: list[Token], i: int) -> bool:
    """`has always been A`, `has become A` (not `has been replaced by B`): a be-form or a linking verb after the
    auxiliary, then no participle."""
    be = next(
        (j for j in range(i + 1, min(i + 3, len(tokens))) if tokens[j].text in w.EN_BE | w.EN_LINKING), None
    )
    return be is not None and be + 1 < len(tokens) and not verb(tokens[be + 1])


def ends_in_copula(token: Token) -> bool:
    return (
        token.han
        and len(token.text) == 2
        and token.text[-1] in "是用在为叫"
        and token.text not in TRAILING
        and token.text not in w.ENDING  # `停用`, `不用`: a verb of ceasing, not a copula
        and token.text not in w.ROLE  # `作为`: a role, not 作 + 为
    )


def fused_complement(verb: Token, token: Token) -> bool:
    text = token.text
    return (
        verb.han
        and len(verb.text) >= 2
        and verb.text not in TRAILING
        and token.han
        and len(text) >= 2
        and text[0] in w.ZH_COMPLEMENTS
        and text not in w.ZH_COMPLEMENT_WORDS
    )


def without_leading_verb(tokens: list[Token]) -> list[Token]:
    """`还是定了 B`: a verb with its aspect particle before the value is part of the predicate."""
    if len(tokens) > 2 and tokens[1].text == "了" and tokens[0].han and not tokens[0].value:
        return tokens[2:]
    if len(tokens) > 1 and tokens[0].text in w.EN_LINKING:  # `is not using A`, `is running on A`
        return strip(tokens[1:], LEADING)
    found = target(tokens, 0) if tokens and verb(tokens[0]) else None
    if found is not None:  # `was changed to B`: the participle and its preposition lead to the value
        return strip(tokens[found + 1 :], LEADING)
    if placing(tokens):  # `is hosted on B`: the participle places the subject at the value
        return strip(tokens[2:], LEADING)
    if by_means(tokens):
        return strip(tokens[2:], LEADING)
    # an English participle phrase is no value; a name in -ed alone or before Chinese is (`S 用 Memcached 替换了 A`)
    return [] if len(tokens) > 1 and verb(tokens[0]) and tokens[1].latin else tokens


def placing(tokens: list[Token]) -> bool:
    """`hosted on B`, `deployed in B`: a participle (not one of ceasing: `retired in May` is an event) with a
    preposition of place and a name after it (`documented in the wiki` says where it is written, not what the
    subject is: a determiner there makes it no value)."""
    return (
        len(tokens) > 2
        and verb(tokens[0])
        and not ending(tokens[0])
        and tokens[1].text in w.EN_PLACE
        and tokens[2].text not in w.EN_DETERMINERS
        and content(tokens[2:])
    )


def by_means(tokens: list[Token]) -> bool:
    """`merged by squashing`, `approved by 周敏`: a passive's means (or agent) is its value; not an ending's
    agent (`retired by the infra team` is an event)."""
    return len(tokens) > 2 and verb(tokens[0]) and tokens[1].text == "by" and not ending(tokens[0])


def starts_with_verb(tokens: list[Token]) -> bool:
    stripped = strip(tokens, LEADING)
    return (
        bool(stripped)
        and not placing(stripped)
        and not by_means(stripped)
        and verb(stripped[0])
        and not any(t.text in w.EN_TARGET for t in stripped)
        and all(t.latin for t in stripped[1:])  # `A was retired (last week)`; not `Memcached 替换了 A`
    )


def content(tokens: list[Token]) -> bool:
    return any(t.value or (t.text not in TRAILING and t.text not in w.EN_PRONOUNS) for t in tokens)


def key(tokens: list[Token]) -> str:
    return "".join(t.text for t in tokens if t.text not in TRAILING).replace(" ", "")


def without_time_frame(tokens: list[Token]) -> list[Token]:
    """`From this release on the S`, `Starting next week the S`: an English time adverbial that opens the clause
    is no part of its subject; it ends at `on` (after `from`) or before the next determiner."""
    if len(tokens) < 3 or tokens[0].text not in w.EN_TIME_START:
        return tokens
    window = range(2, min(len(tokens), 6))
    if tokens[0].text == "from":
        end = next((i + 1 for i in window if tokens[i].text == "on"), None)
    else:
        end = next((i for i in window if tokens[i].text in w.EN_DETERMINERS), None)
    return tokens[end:] if end is not None and end < len(tokens) else tokens


def relative_verb(tokens: list[Token], i: int) -> bool:
    """`The S we picked is B`, `the tool they use runs on B`: a verb right after a personal pronoun that follows
    a noun opens a relative clause when a copula or linking verb comes later; the later one is the predicate."""
    return (
        i >= 2
        and tokens[i].latin
        and tokens[i - 1].text in w.EN_PERSONAL
        and tokens[i - 2].latin
        and tokens[i].text not in w.EN_BE
        and any(t.text in w.EN_BE or t.text in w.EN_LINKING for t in tokens[i + 1 :])
    )


def fused_change(token: Token) -> bool:
    """`换飞`: a verb of changing glued to the first character of its object (not a word such as 换成 or 换掉)."""
    text = token.text
    return token.han and len(text) == 2 and text[0] in w.ZH_CHANGE and text not in w.ZH_CHANGE_WORDS
