"""Which current truth a denial retires when it names the value alone or first (issue 37).

The pairwise relation (`relation.py`) reads a denial against one stored fact through the subject the parser finds
in both. Many denials give no subject (`We gave up on A`, `A 下线了`), put the value where the subject goes (`A is
no longer our review tool`, `A got retired; the S is B now`), or name a broader subject than the stored one with
the value as a verb's object (`前端不用 A 了` after `前端的打包工具是 A`). Such a denial is decided against the
scope's current truths as a whole: first which truths hold a value the denial says is over (in their value, never
in their subject; a bare name of a stored versioned value, never another version), then how the denial's other
words meet each holder's subject:

- a denial whose parsed subject none of a holder's words tell is about another thing (`We don't use A for logs`
  beside `the search index uses A`): that holder is out;
- holders whose own words the denial's other words name (a fact about another component or project only when
  the denial names that owner: `后端不用 A 了` for `后端的构建工具是 A`, never `构建不用 A 了`, which may be about
  ours beside theirs): the one such holder is retired; of two or more, the one whose every subject word the denial names,
  else nothing;
- none named: the one holder of the value about our own thing is retired; two or more such holders make the
  denial ambiguous and nothing is retired;
- no holder about our own thing: a fact about one of our components (`后端的构建工具是 A`, then `构建不走 A 了`)
  is retired when it is the scope's only holder of the value and no other truth of the scope is on its subject
  (ours or another component's beside it, which the denial may be about). Another project's fact (`For the
  Vela project, …`, `Vega 项目那边…`) is retired only by a denial that names that project.

A habit the denial tells in the past and ends (`we used to have outages with A, not anymore`) is about the
holder only when the habit's words name the holder's (`denial.ended_habit`).

A question, a plan or a condition retires nothing (`denies` and `states_nothing`). Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from paicli.memory import subject_words as w
from paicli.memory.change_values import values
from paicli.memory.change_words import CATEGORY, LIGHT
from paicli.memory.claim_grammar import ending, negator
from paicli.memory.claim_tokens import Token, clauses, fold
from paicli.memory.claim_verbs import SLOT, stem
from paicli.memory.denial import (
    content_tokens,
    denies,
    ended_habit,
    holds_value,
    names_value,
    states_nothing,
    subject_named_in,
    subject_told_in,
    value_span,
)
from paicli.memory.subject import Claim, Subject, claim_of

_NAME_KINDS = ("name", "path")
# What follows an owner that is another project, not one of our components (`Vega 项目`, `the Vela project`)
_PROJECT = ("项目", "project", "repo", "仓库")
_SLOT_FUNCTION = w.EN_TARGET | w.EN_PLACE | w.EN_SOURCE | w.EN_DETERMINERS | {"for", "by", "of", "through"}


@dataclass(frozen=True)
class _Holder:
    id: str
    named: bool  # the denial's other words name this truth's own words
    owned: bool  # the truth is about another component or project (its subject has an owner)
    whole: bool  # the denial names every word of the truth's subject and its owner
    owner_named: bool  # the denial names the truth's owner (`后端不用 A 了` beside `后端的构建工具是 A`)
    elsewhere: bool  # the denial ends a habit its words tell as another (`had outages with A`)
    content: str
    subjects: tuple[Subject, ...]  # the truth's own subjects (its plain readings)


@dataclass(frozen=True)
class Weighed:
    holders: frozenset[str]  # the truths that hold a value the denial says is over
    retired: tuple[str, ...]  # those of them it retires


def retired(truths: Sequence[tuple[str, str]], incoming: str) -> list[str]:
    """The ids among `truths` ((id, content) of the scope's current truths) that `incoming` retires."""
    return list(weigh(truths, incoming).retired)


def weigh(truths: Iterable[tuple[str, str]], incoming: str) -> Weighed:
    """Which of `truths` hold a value `incoming` denies, and which of them it retires (see the module). The
    truths are walked only when `incoming` denies a name, and parsed only when their text holds one."""
    if states_nothing(incoming):
        return Weighed(frozenset(), ())
    denial = claim_of(incoming)
    candidates = _candidates(incoming, denial)
    if not candidates:
        return Weighed(frozenset(), ())
    holders: list[_Holder] = []
    needles = [candidate.lower() for candidate in candidates]
    said = fold(incoming).replace(" ", "")
    others: list[tuple[str, str]] = []  # every truth's (id, folded text): who else is on a holder's subject
    for id_, content in truths:
        flat = fold(content).replace(" ", "")
        others.append((id_, flat))
        if not any(needle in flat for needle in needles):
            continue
        value = _held_value(content, incoming, candidates)
        if value is None or _for_another(denial, content):
            continue
        stored = claim_of(content)
        owned = any(r.subject is not None and r.subject.owner for r in stored.readings if not r.reverse)
        whole = any(
            r.subject is not None
            and subject_named_in(r.subject.latin, r.subject.han, r.subject.owner, incoming)
            for r in stored.readings
            if not r.reverse
        )
        owners = [r.subject.owner for r in stored.readings if r.subject is not None and r.subject.owner]
        told = any(owner.replace(" ", "") in said for owner in owners)
        rest_named = _names_rest(content, incoming, value)
        elsewhere = (
            not rest_named and ended_habit(incoming, value) and _habit_elsewhere(incoming, value, content)
        )
        own = tuple(r.subject for r in stored.readings if r.subject is not None and not r.reverse)
        holders.append(_Holder(id_, rest_named, owned, whole, told, elsewhere, content, own))
    ids = frozenset(h.id for h in holders)
    holders = [h for h in holders if not h.elsewhere]
    # a fact about another component or project is named only with its owner (`Poseidon 项目 那边 …`)
    named = [h for h in holders if h.named and (h.owner_named or not h.owned)]
    if len(named) > 1:  # the one whose every subject word the denial names (`Draco` keeps its fact out)
        named = [h for h in named if h.whole]
        return Weighed(ids, (named[0].id,) if len(named) == 1 else ())
    if named:
        return Weighed(ids, (named[0].id,))
    ours = [h for h in holders if not h.owned]
    if ours:
        return Weighed(ids, (ours[0].id,) if len(ours) == 1 else ())
    if len(ids) == 1 and len(holders) == 1 and _alone(holders[0], others):
        return Weighed(ids, (holders[0].id,))
    return Weighed(ids, ())


def _alone(holder: _Holder, others: list[tuple[str, str]]) -> bool:
    """The holder is about one of our components (not another project), and no other truth of the scope is on
    its subject, whoever owns it: nothing else the denial may be about."""
    flat = fold(holder.content).replace(" ", "")
    owners = {s.owner.replace(" ", "") for s in holder.subjects if s.owner}
    if not holder.subjects or any(owner + word in flat for owner in owners for word in _PROJECT):
        return False
    heads = {(s.han or "".join(s.latin)).lower() for s in holder.subjects}
    for id_, text in others:
        if id_ == holder.id or not any(head and head in text for head in heads):
            continue
        for reading in claim_of(text).readings:
            theirs = reading.subject
            if theirs is None or reading.reverse:
                continue
            if any(_unowned(theirs).match(_unowned(mine)) for mine in holder.subjects):
                return False
    return True


def _unowned(subject: Subject) -> Subject:
    return replace(subject, owner="", whole="")


def _habit_elsewhere(incoming: str, value: str, stored: str) -> bool:
    """The ended habit's clause has words besides the value and its words of denial or time, and none of them
    stands in the stored fact (English by stem, Chinese as written): it ended another thing (`had outages
    with A` beside `tickets are handled in A`)."""
    folded = fold(stored).replace(" ", "")
    stems = {stem(t.text) for tokens in clauses(stored) for t in tokens if t.latin}
    for tokens in clauses(incoming):
        found = value_span(tokens, value)
        if found is not None:
            rest = _words([t for i, t in enumerate(tokens) if not found[0] <= i <= found[1]])
            told = [t for t in rest if (stem(t.text) in stems if t.latin else t.text in folded)]
            return bool(rest) and not told
    return False


def _for_another(denial: Claim, stored: str) -> bool:
    """The denial names a subject of its own by a noun (not only by its verb, `stopped paying for A`) and the
    stored fact tells none of it (`We don't use A for logs` beside `the search index uses A`)."""
    named = [
        r.subject
        for r in denial.readings
        if r.negated and not r.reverse and r.own and r.subject is not None and _noun(r.subject)
    ]
    return bool(named) and not any(subject_told_in(s.latin, s.han, s.owner, stored) for s in named)


def _noun(subject: Subject) -> bool:
    """A subject named by a noun, not by a verb's slot, nor by a time adverbial the parser read as one (`Until
    June we served … from A`)."""
    if subject.latin and subject.latin[0] in w.EN_TIME_START:
        return False
    return bool(subject.han) or any(not word.startswith(SLOT) or _object_in(word) for word in subject.latin)


def _object_in(slot: str) -> bool:
    """A verb's slot that holds its object too (`~document~cli~in` of `no longer document the CLI in A`)."""
    parts = [part for part in slot.split(SLOT) if part and part not in _SLOT_FUNCTION]
    return len(parts) > 1


def _candidates(incoming: str, denial: Claim) -> list[str]:
    """What the denial may say is over: its names (`values`), and what its parser reads on either side of a
    negation; longest first, so the whole of a name is tried before a part of it."""
    found = {normal.replace(" ", "") for kind, normal in values(incoming).slots if kind in _NAME_KINDS}
    found |= {v.replace(" ", "") for v in denial.denied}
    for reading in denial.readings:
        if reading.negated:
            found.add(reading.value.replace(" ", ""))
            if reading.subject is not None:
                found.add(reading.subject.han + "".join(reading.subject.latin))
    kept = [c for c in found if _a_name(c) and denies(incoming, c)]
    return sorted(kept, key=len, reverse=True)


def _a_name(candidate: str) -> bool:
    if len(candidate) < 2 or candidate in LIGHT or candidate in CATEGORY or candidate in w.GENERIC:
        return False
    return any(ch.isalnum() for ch in candidate) and not candidate.startswith(SLOT)


def _held_value(stored: str, incoming: str, candidates: list[str]) -> str | None:
    """The first candidate `stored` holds as its value (not in its subject), and no other version of it."""
    claim = claim_of(stored)
    held = [r.value.replace(" ", "") for r in claim.readings if not r.negated and not r.reverse and r.value]
    folded = fold(stored).replace(" ", "")
    slots = {n.replace(" ", "") for kind, n in values(stored).slots if kind in _NAME_KINDS}
    for candidate in candidates:
        if not (holds_value(stored, candidate) or (_han(candidate) and candidate in folded)):
            continue
        if held:
            if not any(candidate in v or names_value(stored, v, candidate) for v in held):
                continue
        elif candidate not in slots and not folded.rstrip("。.！!").endswith(candidate):
            continue  # a fact the parser could not read holds its value as a name or at its end
        if _another_version(incoming, candidate, stored):
            continue
        return candidate
    return None


def _another_version(incoming: str, candidate: str, stored: str) -> bool:
    """`Postgres 14` in the denial beside a stored `Postgres 16`: the number after the name is not the stored
    one's."""
    for tokens in clauses(incoming):
        for i in range(len(tokens) - 1):
            if tokens[i].text.replace(" ", "") == candidate and _number(tokens[i + 1]):
                return not holds_value(stored, candidate + tokens[i + 1].text.replace(" ", ""))
    return False


def _number(token: Token) -> bool:
    return token.text[:1].isdigit() or (token.text[:1] == "v" and token.text[1:2].isdigit())


def _names_rest(stored: str, incoming: str, value: str) -> bool:
    """A word of the denial besides the value, its words of denial and light words stands in the stored fact
    (English by stem; Chinese by runs of such words, since segmentation differs between the two texts: `后端` of
    `后端的构建工具`): the denial names that fact's subject, maybe a part of it (`crash reports` of `Crash
    reports go to A`)."""
    kept: list[list[Token]] = []
    for tokens in clauses(stored):
        found = value_span(tokens, value)
        kept.append([t for i, t in enumerate(tokens) if found is None or not found[0] <= i <= found[1]])
    stems = {stem(t.text) for tokens in kept for t in _words(tokens) if t.latin}
    theirs = [run for tokens in kept for run in _han_runs(tokens)]
    for tokens in clauses(incoming):
        if any(stem(t.text) in stems for t in _words(tokens) if t.latin and t.text not in value):
            return True
        for run in _han_runs(tokens):
            if any(run in other or other in run for other in theirs):
                return True
    return False


def _words(tokens: list[Token]) -> list[Token]:
    """The clause's words that may name a subject: no word of denial, no light or category word."""
    content = content_tokens(tokens)
    return [
        t
        for i, t in enumerate(tokens)
        if t in content
        and not negator(t)
        and not ending(t, tokens[i + 1] if i + 1 < len(tokens) else None)
        and t.text not in LIGHT | CATEGORY
    ]


def _han_runs(tokens: list[Token]) -> list[str]:
    """Chinese words next to each other, joined (two characters at least)."""
    words = {id(t) for t in _words(tokens)}
    runs: list[str] = []
    current = ""
    for token in tokens:
        if token.han and id(token) in words:
            current += token.text
            continue
        runs.append(current)
        current = ""
    runs.append(current)
    return [run for run in runs if len(run) >= 2]


def _han(text: str) -> bool:
    return any("\u3400" <= ch <= "\u9fff" for ch in text)
