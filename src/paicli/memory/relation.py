"""How a new fact relates to a stored one, from the two claims `subject.py` reads: the same statement, a changed
value of the same subject, a correction that names only the old value, or nothing the parser can place (left to
the relation judge as not certain). Two values of different kinds on one subject (its tool, then its time)
set two slots: the pair is `apart`, which no word-reading rule overrides; only the relation judge may. So do one
subject under two conditions and one bare subject with two verbs (`scanned with` / `built with`); a bound said as
a noun and as a clause is one slot (`slot_bounds`)."""

from __future__ import annotations

from dataclasses import replace

from paicli.memory.change_values import values
from paicli.memory.claim_grammar import TRAILING, negator, verb
from paicli.memory.claim_tokens import Token, clauses
from paicli.memory.denial import (
    denies,
    ended_habit,
    holds_value,
    names_value,
    subject_named_in,
    subject_told_in,
    tells_all_of,
)
from paicli.memory.slot_bounds import same_bound
from paicli.memory.subject import Claim, Kind, Reading, Relation, Subject, claim_of, noun_subject, value_text
from paicli.memory.subject_forms import doing_denied, doing_elsewhere, doings, opposite_bounds


def _compare(old: Reading, new: Reading, new_claim: Claim, incoming: str, stored: str) -> Kind:
    # a habit the new fact tells in the past and ends is its value denied (`CI used to run on A, not anymore`)
    if new.negated or (new.value != old.value and ended_habit(incoming, new.value)):
        if old.negated:
            return "same" if new.value == old.value else "none"
        return "changed" if new.value == old.value else "none"
    if old.negated:
        return "changed"
    if new.value == old.value and old.value not in new_claim.denied and not denies(incoming, new.value):
        # not when the value's own clause says it is over (`A has been turned off for the S`), nor when the stored
        # fact told it as a habit it ended (`以前用 A，现在不用了`, then `又用 A 了`)
        return "changed" if ended_habit(stored, old.value) else "same"
    return "changed"


def relation(stored: str, incoming: str, narrowing: bool = True) -> Relation:
    """How `incoming` relates to the stored fact `stored` (`_relation`); a bound said as a noun on one side
    and as a clause on the other (`slot_bounds`) is a change the subjects alone do not show, never certain."""
    found = _relation(stored, incoming, narrowing)
    if found.kind == "none" and not found.apart and same_bound(stored, incoming):
        return Relation("changed")
    return found


def _relation(stored: str, incoming: str, narrowing: bool) -> Relation:
    """How `incoming` relates to the stored fact `stored` (see the module docstring). A duplicate must say no
    more and no less than the stored fact: `构建工具是 Gradle` is not a duplicate of `主语言是 Kotlin，构建工具是
    Gradle` (nor the other way round), so neither write loses a fact. `narrowing`: a subject that adds a
    qualifier is a narrower thing (`Relation.narrower`); off where the store's history named it that way."""
    if opposite_bounds(stored, incoming):
        return Relation("none", apart=True)  # `the maximum worker count` and `at least 2 workers`
    old, new = claim_of(stored), claim_of(incoming)
    if not old.readings:
        old = _label_against(stored, new)
    same_old: set[int] = set()
    same_new: set[int] = set()
    changed: list[bool] = []  # one certainty per pair that says changed
    look_alike = False  # `the CDN caches …` beside `the image CDN caches …`: a short form, or another CDN
    apart = False  # another slot of the same subject (`Relation.apart`)
    narrower = False  # the new subject adds a qualifier to the stored one (`Relation.narrower`)
    for i, ro in enumerate(old.readings):
        for j, rn in enumerate(new.readings):
            match = rn.subject.match(ro.subject) if rn.subject and ro.subject else None
            if match is None and _other_condition(ro.subject, rn.subject):
                apart = True  # one subject under two conditions: two facts, whatever their words share
                continue
            if match == "contains" and (ro.lexical or rn.lexical):
                look_alike = True  # only the judge can tell; the local rules never supersede it
                continue
            if match is None or rn.subject is None or ro.subject is None:
                continue
            if (
                narrowing
                and match == "contains"
                and not (ro.reverse or rn.reverse or rn.negated)  # a denial may name its subject in full
                and _narrows(ro.subject, rn.subject, ro.value)
            ):
                narrower = True  # `the admin session timeout` is not `the session timeout` said again
                continue
            kind = _compare(ro, rn, new, incoming, stored)
            if kind == "changed" and ro.doing and rn.doing and ro.doing != rn.doing:
                apart = True  # `scanned with A` and `built with B`: two things done to one subject
                continue
            if kind == "changed" and _other_slot(stored, ro.subject, incoming, rn.subject):
                apart = True  # the build's tool, then the build's time: two facts of one subject
                continue
            if kind == "changed":
                changed.append(match == "exact" and _sure(ro) and _sure(rn))
            elif kind == "same":
                same_old.add(i)
                same_new.add(j)
    if changed:
        return Relation("changed", any(changed))
    if same_new:
        whole = all(i in same_old for i, r in enumerate(old.readings) if not r.reverse) and all(
            j in same_new for j, r in enumerate(new.readings) if not r.reverse
        )
        return Relation("same" if whole else "none", whole)
    if apart or narrower:
        return Relation("none", apart=True, narrower=narrower and not apart)
    if look_alike:
        return Relation("none")
    if old.readings and _denied_alone(old.readings[0], incoming, new):
        return Relation("corrects")  # `我们不再用 Jenkins 了`, `We got rid of Jenkins`
    if _denied_by_name(stored, old, incoming, new):
        return Relation("corrects")  # `We no longer use Buildkite for CI` after `CI moved to Buildkite …`
    # `we stopped vendoring Go dependencies` after `Go dependencies are vendored`
    if any(doing_denied(done, new.denied) for done in doings(stored)):
        return Relation("corrects")
    sure = [r for r in (*old.readings, *new.readings) if not r.reverse]
    owners = {r.subject.owner for r in sure if r.subject is not None}
    certain = bool(old.readings and new.readings) and all(r.subject for r in sure)
    return Relation("none", certain and (len(owners) > 1 or all(r.own for r in sure)))


def _other_condition(old: Subject | None, new: Subject | None) -> bool:
    if old is None or new is None or old.condition == new.condition:
        return False
    return new.match(replace(old, condition=new.condition)) is not None


def same_subject(stored: str, incoming: str) -> bool:
    """Some plain reading of each names one subject, exactly or one held by the other and not narrower."""
    old, new = claim_of(stored), claim_of(incoming)
    for ro in old.readings:
        for rn in new.readings:
            if ro.reverse or rn.reverse or ro.subject is None or rn.subject is None:
                continue
            match = rn.subject.match(ro.subject)
            if match == "exact" or (match == "contains" and not _narrows(ro.subject, rn.subject, ro.value)):
                return True
    return False


def _narrows(old: Subject, new: Subject, value: str) -> bool:
    """The new subject holds the stored one and adds an English qualifier: a narrower thing. A correction says
    its subject the same way or shorter (`the gateway timeout` after `the public API gateway timeout`); one
    that adds a word is about a part or a kind of the stored thing (`the admin session timeout`). The stored
    value among the added words is no qualifier (`the old session store Redis`), and neither are Han
    characters: the segmenter leaves adverbs and particles inside a Chinese subject (`平台后来`, `给镜像签名`)."""
    if new.owner != old.owner or new.duty or old.duty:
        return False  # a duty's holder is matched by its own frames (`role_items`)
    # a participle the parser kept in the subject (`removed as the on-call owner`) is no qualifier
    return any(word not in old.latin and word not in value and not verb(Token(word)) for word in new.latin)


def _other_slot(stored: str, old: Subject, incoming: str, new: Subject) -> bool:
    """The two facts give values of different kinds (a time and a tool, a place and a day) and none of a kind
    in common, no amount among them: each sets another slot of the subject. Names that are the subject's own
    words do not count."""
    mine, theirs = _kinds(stored, old), _kinds(incoming, new)
    if "amount" in mine | theirs:
        return False  # `4 spaces` and `tabs`: an amount and a word are often two answers to one question
    return bool(mine and theirs) and not mine & theirs


_QUANTITY = ("number:", "duration")  # a count, a size and a span of time are one kind of slot: an amount


def _kinds(text: str, subject: Subject) -> frozenset[str]:
    words = (subject.whole or subject.owner + _words_of(subject)).lower()
    found = set()
    for kind, normal in values(text).slots:
        if kind == "name" and normal.replace(" ", "") in words:
            continue
        found.add("amount" if kind.startswith(_QUANTITY) else kind)
    return frozenset(found)


def _denied_alone(old: Reading, incoming: str, new: Claim) -> bool:
    """The new fact says the stored value is over and names no subject but that value (`Kafka is not in use
    anymore`: the value is the clause's grammatical subject). Only for a stored fact about our own thing: `we
    dropped Kafka` says nothing of another project's or component's fact."""
    if old.subject is not None and old.subject.owner:
        return False
    if any(
        r.subject is not None and _words_of(r.subject) != old.value for r in new.readings if not r.reverse
    ):
        return False
    if old.subject is not None and doing_elsewhere(old.value, _words_of(old.subject), new.denied):
        return False  # `we stopped polling the status page`: that doing, for another thing
    return old.value in new.denied or denies(incoming, old.value)


def _denied_by_name(stored: str, old: Claim, incoming: str, new: Claim) -> bool:
    """The new fact denies a value on a subject of its own, the stored fact holds that value (whole, or as the
    name among its words), and each names every word of the other's subject: the denial is about the stored
    fact, whatever shape either gives the subject (passive or active, a verb or its noun, a lexical verb or a
    copula). A stored fact about another component or project keeps its owner out of the denial."""
    held = [r for r in old.readings if not r.negated and not r.reverse and r.value]
    for reading in new.readings:  # either way round: `Tekton 不再用来构建发布包` names the subject last
        subject = reading.subject
        if not reading.negated or subject is None:
            continue
        if not subject_told_in(subject.latin, subject.han, subject.owner, stored):
            continue
        for old_reading in held:
            own = old_reading.subject
            if own is not None and not subject_named_in(own.latin, own.han, own.owner, incoming):
                continue
            if names_value(stored, old_reading.value, reading.value):
                return True
        if not held and holds_value(stored, reading.value) and tells_all_of(incoming, stored):
            return True  # a stored fact the parser could not read, said again as a whole and denied
    return False


def denies_for_another(stored: str, incoming: str) -> bool:
    """The new fact denies a value for subjects of its own and the stored fact tells none of them (`移动端团队不用
    A 部署` beside `我们用 A 部署`, `We don't use A for the job queue` beside `the cache is A`): it is about
    another thing that shares the value."""
    named = [
        r.subject
        for r in claim_of(incoming).readings
        if r.negated and not r.reverse and r.subject is not None and r.own
    ]
    return bool(named) and not any(subject_told_in(s.latin, s.han, s.owner, stored) for s in named)


def denial_only(text: str) -> bool:
    """The fact only says values are over (`We no longer run Postgres 14`): it gives no value of its own, so a
    value it names that the stored fact lacks is no new value for it."""
    claim = claim_of(text)
    said = [r for r in claim.readings if not r.reverse]
    denied = bool(claim.denied) or any(r.negated for r in said)
    return denied and not any(r.value and not r.negated for r in said)


def subjectless_denial(text: str) -> bool:
    """A denial that names no subject of its own (`We got rid of Kafka`, `Kafka is not in use anymore`)."""
    claim = claim_of(text)
    denied = claim.denied | {r.value for r in claim.readings if r.negated and not r.reverse}
    named = [r.subject for r in claim.readings if r.subject is not None and not r.reverse]
    return bool(denied - {""}) and all(_words_of(s) in denied for s in named)


def _words_of(subject: Subject) -> str:
    return subject.han + "".join(subject.latin)


def _label_against(stored: str, new: Claim) -> Claim:
    """A stored bare label with a word value (`default branch trunk`, `值班负责人 张伟`): where the subject ends
    is not in the text itself, so the new fact's subject marks it. The longest head of the stored clause that
    names the same subject is the subject and the one word left is its value (never certain: `own` is false).
    More than one word left is a sentence the parser could not read (`The payments team deploys on Fridays`),
    not a label: it is left alone."""
    parts = clauses(stored)
    subjects = [r.subject for r in new.readings if r.subject is not None and not r.reverse]
    if len(parts) != 1 or not subjects or any(negator(t) for t in parts[0]):
        return claim_of(stored)
    tokens = parts[0]
    for end in range(len(tokens) - 1, 0, -1):
        head = noun_subject(tokens[:end], [])
        rest = [t for t in tokens[end:] if t.text not in TRAILING]
        if len(rest) == 1 and head is not None and any(_label_of(head, other) for other in subjects):
            return Claim((Reading(head, value_text(rest), own=False),))
    return claim_of(stored)


def _label_of(head: Subject, other: Subject) -> bool:
    """The head names `other`'s subject: the same, held by it, or ending in it with qualifiers in front
    (`default branch` for `branch`); not with words after it (`payments team deploys on` is no label)."""
    match = head.match(other)
    if match is None:
        return False
    small = len(head.han) + len(head.latin) <= len(other.han) + len(other.latin)
    return match == "exact" or small or head.render().endswith(other.render())


def _sure(reading: Reading) -> bool:
    return reading.own and not reading.reverse and not reading.lexical
