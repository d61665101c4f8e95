"""Who holds which duty: one normal form for a responsibility statement, from every frame (issue 37).

A person or team responsible for a thing is said in many frames: cleft (`负责 X 的是 P`, `the one who looks after
X is P`), agentive (`X 由 P 维护`, `X 归 P 管`, `X is maintained by P`), active (`P 负责 X`, `P owns X`),
possessive (`X 的负责人是 P`, `P is the new owner of X`, `X is P's job`), and handovers that name both people or
only the new one (`A 把 X 交给了 B`, `X 交接给 B`, `A handed X over to B`, `B took over X from A`, `X 换人了，现在是
B`, `A 不再负责 X`). Each clause is cut into the word classes of `role_words` and its frame is read from the order
of those classes around the content words: which side of the duty verb a name stands, after which marker (由, 归,
by: the agent; 给, to: the recipient; 把: the thing; 从, from: the previous holder). The result is one normal form
per clause, (thing, duty, person, negated), with the people a handover takes the duty from as denied values.

A clause without a thing of its own (`…，是 B`, `…; Omar does`, `B 接手`) continues the thing before it. A text
that is not a responsibility statement in every clause is left to the general parser (`subject.py`), and so is a
possessive with the duty noun before its predicate (`X 的负责人是 P`, `X owner is P`) when it stands alone: the
general parser reads it, and `role_items.agent_subject` gives its subject the same normal form. Duties are coarse
unless one text contrasts two of them on one thing (`A writes the docs, B reviews them`). Pure functions over
`claim_tokens` tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from paicli.memory import role_words as r
from paicli.memory.claim_clause import owner_of
from paicli.memory.claim_tokens import Token, clauses
from paicli.memory.role_items import Item, items_of

_HEADS = frozenset(["duty", "agent", "task", "take", "give", "change", "belong"])
_LATER_PREDICATES = frozenset(["change", "by", "give", "take", "belong", "be", "hold"])
_NOMINAL_BEFORE = frozenset(["of", "be", "by", "to", "change", "from", "give", "take", "hold", "belong"])


@dataclass(frozen=True)
class Holder:
    thing: tuple[Token, ...]  # the thing, without its owner qualifier
    owner: tuple[Token, ...]  # `Orion 项目的`, `the Orion project's`
    duty: str  # the fine class (`role_words`); COARSE unless the text contrasts two duties
    head: str  # the word that named the duty: the subject's surface
    person: tuple[Token, ...]
    negated: bool = False


@dataclass(frozen=True)
class Roles:
    holders: tuple[Holder, ...]
    denied: tuple[tuple[Token, ...], ...]  # people a handover or a past clause says no longer hold the duty
    weak: bool = False  # a head that reads either way round (`X is back on Y`): a second, unsure reading


@dataclass
class _Clause:
    holders: list[tuple[list[Item], Item | None, list[Item], bool]]  # (thing, head, person, negated)
    denied: list[list[Item]]
    topic: list[Item]  # the thing a later clause continues
    possessive: bool = False  # `X 的负责人是 P`: a frame the general parser reads when it stands alone


def _first(
    items: list[Item], kinds: frozenset[str] | set[str], start: int = 0, stop: int | None = None
) -> int | None:
    end = len(items) if stop is None else stop
    return next((i for i in range(start, end) if items[i].kind in kinds), None)


def _person(items: list[Item]) -> list[Item]:
    """The first run of content words: a name (`Zhao Lei`, `李娜`), ending at a time word or marker."""
    start = next((i for i, item in enumerate(items) if item.kind is None), None)
    if start is None:
        return []
    end = start
    while end < len(items) and items[end].kind is None:
        end += 1
    return items[start:end]


def _thing(items: list[Item]) -> list[Item]:
    """Content words, duty words inside a name (`安全评审`) and the possessive markers between them (a noun of
    the duty itself, `ownership of`, is none of them)."""
    kept = [item for item in items if item.kind in (None, "duty", "of")]
    while kept and kept[-1].kind == "of":
        kept = kept[:-1]
    while kept and kept[0].kind == "of":
        kept = kept[1:]
    return [Item(item.token) for item in kept]


def _holding(items: list[Item]) -> bool:
    return any(item.token.text in r.ZH_HOLDING_PLACES for item in items)


def _has_content(items: list[Item]) -> bool:
    return any(item.kind is None for item in items)


def _read(items: list[Item]) -> _Clause | None:  # one frame per branch, in order of precedence
    """The frame of one clause; None when it is no responsibility statement (or a possessive the general
    parser reads)."""
    found = _Clause([], [], [])
    negated = any(item.kind == "neg" for item in items)

    def hold(thing: list[Item], head: Item | None, person: list[Item]) -> _Clause | None:
        if not person:
            return None  # the frame names no holder: not this frame
        if head is not None and head.token.text in r.ZH_GIVE_TO_PLACE and not _holding(items):
            return None  # `X 回到了 B` is a value coming back; `X 回到 B 手里` a duty
        found.holders.append((thing, head, person, negated))
        found.topic = thing
        return found

    heads = [i for i, item in enumerate(items) if item.kind in _HEADS]
    swap = _first(items, {"replace"})
    head = _first(items, {"duty", "agent"}, swap + 1) if swap is not None else None
    if swap is not None and head is not None:  # `B 顶替 A 负责 X`, `B replaced A as the owner of X`
        found.denied.append(_person(items[swap + 1 : head]))
        after = head + 1 < len(items) and items[head + 1].kind == "of" and items[head].kind == "agent"
        return hold(_thing(items[head + (2 if after else 1) :]), items[head], _person(items[:swap]))
    by = _first(items, {"by", "to", "belong"})
    if by is not None:
        duty = _first(items, {"duty"}, by + 1)
        if duty is not None and _has_content(items[by + 1 : duty]):  # `X 由 P 负责`, `X 交回给 P 负责`
            start = _first(items, {"give"}, 0, by)
            return hold(
                _thing(items[: start if start is not None else by]),
                items[duty],
                _person(items[by + 1 : duty]),
            )
        verb = _first(items, {"duty"}, 0, by)
        if verb is not None and items[by].kind == "by":  # `X is maintained by P`
            return hold(_thing(items[:verb]), items[verb], _person(items[by + 1 :]))
        if items[by].kind == "belong":  # `X 现在归 P 了`, `X belongs to P`
            return hold(_thing(items[:by]), items[by], _person(items[by + 1 :]))
    who = _first(items, {"who"})
    lead = next((i for i, item in enumerate(items) if item.kind not in ("skip", "aux", "neg", "old")), None)
    cleft = (
        who if who is not None else (lead - 1 if lead is not None and items[lead].kind == "duty" else None)
    )
    if cleft is not None:  # `负责 X 的是 P`, `the one who looks after X is P`, `审核是周敏`
        duty = _first(items, {"duty"}, cleft + 1)
        be = _first(items, {"be"}, (duty or 0) + 1) if duty is not None else None
        if duty is not None and be is not None and _cleft(items, duty, be, who is not None):
            return hold(_thing(items[duty + 1 : be]), items[duty], _person(items[be + 1 :]))
    hand = _first(items, {"hold"})
    give = _first(items, {"give"})
    if hand is not None and give is not None and hand < give:  # `A 把 X 交给了 B`
        found.denied.append(_person(items[:hand]))
        return hold(_thing(items[hand + 1 : give]), items[give], _person(items[give + 1 :]))
    source = _first(items, {"from"})
    if give is not None:
        to = _first(items, {"to"}, give + 1)
        via = _first(items, {"from"}, give + 1, to) if to is not None else None
        if to is not None and via is not None:  # `X was reassigned from A to B`
            found.denied.append(_person(items[via + 1 : to]))
            return hold(_thing(items[:give]), items[give], _person(items[to + 1 :]))
        if to is not None and _has_content(items[give + 1 : to]):  # `A handed X over to B`
            found.denied.append(_person(items[:give]))
            return hold(_thing(items[give + 1 : to]), items[give], _person(items[to + 1 :]))
        before = _first(items, {"from", "by"}, 0, give)  # `X 从 A 手里转给了 B`, `X 由 A 移交给 B`
        if before is not None:
            found.denied.append(_person(items[before + 1 : give]))
        end = before if before is not None else give
        return hold(_thing(items[:end]), items[give], _person(items[(to if to is not None else give) + 1 :]))
    take = _first(items, {"take"})
    if take is not None:  # `B 接手了 X`, `B took over X from A`, `B 从 A 那里接过了 X`
        if source is not None:
            stop = take if source < take else len(items)
            found.denied.append(_person(items[source + 1 : stop]))
        end = source if source is not None and source > take else len(items)
        person = _person(items[: source if source is not None and source < take else take])
        return hold(_thing(items[take + 1 : end]), items[take], person)
    be = _first(items, {"be"})
    agent = _first(items, {"agent", "task"})
    if agent is not None and be is not None and be < agent:
        if items[agent].kind == "task":  # `X is not O's job anymore`
            return hold(_thing(items[:be]), items[agent], _person(items[be + 1 : agent]))
        after = (
            agent + 1 < len(items) and items[agent + 1].kind == "of"
        )  # `P is the owner of X`, `P 是 X 的负责人`
        thing = items[agent + 2 :] if after else items[be + 1 : agent]
        return hold(_thing(thing), items[agent], _person(items[:be]))
    if agent is not None:  # `X 的负责人(原来)是 P`, `X owner used to be P`, `the owner of X is P`
        found.possessive = True  # read here only beside another frame; alone, the general parser reads it
        link = _first(items, {"be", "change"}, agent + 1)
        if link is None:
            return None
        owned = items[agent + 1].kind == "of" and link > agent + 2
        thing = items[agent + 2 : link] if owned else items[:agent]
        return hold(_thing(thing), items[agent], _person(items[link + 1 :]))
    verbs = [i for i in heads if items[i].kind == "duty" and not _nominal(items, i)]
    last = verbs[-1] if verbs else None
    if (
        last is not None and be is not None and _agentive(items, be, last)
    ):  # `X 这块是 P 在管`, `X 不是 A 负责了`
        return hold(_thing(items[:be]), items[last], _person(items[be + 1 : last]))
    duty = next((i for i in verbs if _has_content(items[:i]) and _has_content(items[i + 1 :])), None)
    if duty is not None and be == duty - 1 and _PARTICIPLE.fullmatch(items[duty].token.text):
        return None  # `X are managed in Y`: a passive with no `by` names no doer; where it is done is a value
    if duty is not None:
        of = _first(items, {"of"}, 0, duty)
        if of is not None and be is not None and duty < be:  # `接口文档的编写是赵磊`: the duty as a noun
            return hold(_thing(items[:of]), items[duty], _person(items[be + 1 :]))
        return hold(_thing(items[duty + 1 :]), items[duty], _person(items[:duty]))  # `P 负责 X`, `P owns X`
    if last is not None:  # `X 以后 P 负责`; `P 负责`, `P reviews them`: the thing of the clause before
        end = max((i + 1 for i in range(last) if items[i].kind is None), default=0)
        start = end
        while start > 0 and items[start - 1].kind is None:
            start -= 1
        return hold(_thing(items[:start]), items[last], items[start:end])
    change = _first(items, {"change"})
    if change is not None and not _has_content(items[change + 1 :]):  # `X 换人了`: the next clause names B
        found.topic = _thing(items[:change])
        return found
    carry = change if change is not None else be if be is not None else _first(items, {"does", "it"})
    if carry is not None and heads == ([change] if change is not None else []):
        if not _has_content(items[:carry]):  # `…，现在是 B`, `…，换成 B 了`
            return hold([], None, _person(items[carry + 1 :]))
        if items[carry].kind in ("does", "it"):  # `…; Omar does`, `…, Omar has it now`
            return hold([], None, _person(items[:carry]))
    return None


_PARTICIPLE = re.compile(r"[a-z]+(?:ed|en|wn)")


def _cleft(items: list[Item], duty: int, be: int, relative: bool) -> bool:
    """`负责 X 的是 P` (the thing ends at 的), `审核是 P` (no thing: the one before); not `运维手册的编写是 P`."""
    return relative or not _has_content(items[duty + 1 : be]) or items[be - 1].kind == "of"


def _agentive(items: list[Item], be: int, last: int) -> bool:
    """`X 是 P 在管`: the thing, a copula, the holder, and the duty verb last."""
    return (
        be < last
        and not _has_content(items[last + 1 :])
        and _has_content(items[:be])
        and _has_content(items[be + 1 : last])
    )


def _nominal(items: list[Item], i: int) -> bool:
    """`安全评审换人了`, `code reviews are done by P`: a duty word right after a content word, before a marker or
    a later predicate, is part of the thing's name, not the clause's verb."""
    after = items[i + 1].kind if i + 1 < len(items) else None
    later = any(item.kind in _LATER_PREDICATES for item in items[i + 1 :])  # `代码评审流程换人了`
    return i > 0 and items[i - 1].kind is None and (after in _NOMINAL_BEFORE or later)


def _statements(items: list[Item]) -> list[list[Item]]:
    """`A writes the docs and B reviews them`: a coordination between two statements of duty splits them."""
    cut = next(
        (
            i
            for i, item in enumerate(items)
            if item.kind == "and"
            and _first(items, _HEADS, 0, i) is not None
            and _first(items, _HEADS, i) is not None
        ),
        None,
    )
    return [items] if cut is None else [items[:cut], *_statements(items[cut + 1 :])]


@lru_cache(maxsize=16384)
def read(text: str) -> Roles | None:
    """The responsibility statement `text` makes, or None when it makes none (or not in every clause)."""
    parts = [statement for tokens in clauses(text) for statement in _statements(items_of(tokens))]
    read_parts = [_read(items) for items in parts]
    if not parts or any(part is None for part in read_parts):
        return None
    framed = [
        part for part, items in zip(read_parts, parts, strict=True) if any(i.kind in _HEADS for i in items)
    ]
    if all(part is not None and part.possessive for part in framed):
        return None  # no frame, or only possessives: the general parser reads them (and `agent_subject`)
    topic: list[Item] = []
    duty = ""
    rows: list[tuple[list[Item], Item | None, list[Item], bool]] = []
    denied: list[tuple[Token, ...]] = []
    for part, items in zip(read_parts, parts, strict=True):
        assert part is not None
        past = any(item.kind == "old" for item in items)
        for thing, head, person, negated in part.holders:
            thing = thing if _has_content(thing) else topic
            head = head or Item(Token(""), "duty", duty)
            duty = head.duty or duty
            if past:  # `X 原来是 A 负责`: A held it before
                denied.append(tuple(item.token for item in person))
            elif _has_content(thing):
                rows.append((thing, head, person, negated))
            topic = thing
        denied.extend(tuple(item.token for item in p) for p in part.denied if p)
        if _has_content(part.topic):
            topic = part.topic
    if not rows:
        return None
    duties = {(_key(thing), head.duty) for thing, head, _, _ in rows if head is not None and head.duty}
    fine = len({d for _, d in duties}) > 1 and len({t for t, _ in duties}) == 1
    weak = any(head is not None and head.token.text in r.WEAK_HEADS for _, head, _, _ in rows)
    return Roles(tuple(_holder(row, fine) for row in rows), tuple(denied), weak)


def _key(items: list[Item]) -> str:
    return "".join(item.token.text for item in items if item.kind is None)


def _holder(row: tuple[list[Item], Item | None, list[Item], bool], fine: bool) -> Holder:
    thing, head, person, negated = row
    subject, owner = owner_of([item.token for item in thing])
    word = head.token.text if head is not None and head.token.text else ""
    duty = (head.duty if head is not None else "") if fine else r.COARSE
    return Holder(
        tuple(subject), tuple(owner), duty or r.COARSE, word, tuple(item.token for item in person), negated
    )
