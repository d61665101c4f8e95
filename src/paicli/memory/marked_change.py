"""A correction in a frame the claim grammar has never seen: the marked-change rule (issue 37).

Where the grammar reads a new fact and a stored truth as unrelated, this rule still calls the new fact a change
of the stored one when all of these hold for one clause of the new fact (with the clause before it when it names
nothing itself: `…Stripe Billing; Chargebee does it`):

1. it carries a change marker (`change_words.has_marker`), or does the stored fact's verb again (`rewrote`);
   and the statement neither asks, plans nor adds (`should we…?`, `we might…`, `we also…`, 要不要, 可能, 也);
2. it shares the stored fact's subject (and names its owner, if the parser found one, in any word form): a
   content word that is not a bare verb form (lemmas, stems, a verb and the noun made from it, a word written
   in two, a small abbreviation table, Chinese heads and the compounds a word opens), a name, or the unit a
   number counts (`8 workers`); and never while each side keeps a word of its own that the other lacks
   (`frontend` / `backend`, `logs` / `metrics`, `Webhook retries` / `Email retries` stay apart). The grammar's
   subject key plays no part: a paraphrase (`retry limit for webhooks`, `webhook retries are capped at`) is
   read by its words;
3. it has a value slot the stored fact does not have, of a type the stored fact has a slot of
   (`change_values`: times, days, spans of time in any unit, numbers with their unit or bare, paths, names),
   and not two new and two old values of one type (which of them is the subject's would be a guess). Where
   a number or a time changes, a name beside it is a subject word (`Android` in `the Android app`), unless
   it is the product of a version value (`MySQL 8`).

Among the stored truths that pass, the one sharing the most words is the change; a tie is left alone. The
verdict is never certain, so a relation judge's verified verdict overrules it. Pure.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from paicli.memory import change_words as cw
from paicli.memory.change_values import Slot, values
from paicli.memory.claim_tokens import fold
from paicli.memory.subject import subject_of
from paicli.memory.tokenize import segment

_CLAUSE = re.compile(r"[，,；;。！!？?\n]+|\s[—–-]{1,2}\s|—+|\.(?=\s|$)")
_WORD = re.compile(r"[a-z][a-z0-9'+-]*|[\u3400-\u9fff]+")


@dataclass(frozen=True)
class Part:
    raw: tuple[str, ...]  # every word, markers and light words included
    content: tuple[str, ...]  # the words that may name a subject
    slots: frozenset[Slot]
    verbs: frozenset[str] = (
        frozenset()
    )  # words a personal pronoun opens (`we keep`): a verb, whatever the lexicon
    text: str = ""  # the clause as written (lower-cased)

    def verbal(self, word: str) -> bool:
        return word in self.verbs or (cw.verb_form(word) and not self._modifier(word))

    def _modifier(self, word: str) -> bool:
        """`Deploy approvals are …`: the clause's first word before a noun qualifies that noun; it is no verb."""
        words = [w for w in self.raw if w not in cw.LIGHT]
        return len(words) > 1 and words[0] == word and "NOUN" in cw.parts_of_speech(words[1])

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(value for kind, value in self.slots if kind == "name")

    @property
    def units(self) -> tuple[str, ...]:
        """The words a number counts (`8 workers`): they name the subject as much as a content word."""
        found = (kind[7:] for kind, _ in self.slots if kind.startswith("number:"))
        return tuple(unit for unit in found if unit.isascii() and unit.isalpha() and len(unit) > 2)

    def subject_names(self) -> tuple[str, ...]:
        """The names that are not a product-and-version value (`MySQL 8`, written once, right before a number):
        `Android` in `the Android app`, `iOS` in `the iOS app … iOS 16`."""
        found = []
        for name in self.names:
            seen = re.findall(rf"(?<![\w.]){re.escape(name)}(?![\w])(\s*v?\d)?", self.text)
            if not (len(seen) == 1 and seen[0]):
                found.append(name)
        return tuple(found)


def _words(masked: str) -> list[str]:
    found: list[str] = []
    for run in _WORD.findall(masked):
        found.extend(segment(run) if not run.isascii() else [run.removesuffix("'s")])
    return [word.strip() for word in found if word.strip()]


@lru_cache(maxsize=4096)
def parts(text: str) -> tuple[Part, ...]:
    """The clauses of `text`, each with its words and value slots."""
    found: list[Part] = []
    for clause in _CLAUSE.split(text):
        if not clause.strip():
            continue
        read = values(clause)
        raw = cw.with_abbreviations(_words(read.masked))
        content = tuple(w for i, w in enumerate(raw) if w not in cw.LIGHT and not cw.marker_at(raw, i))
        verbs = frozenset(w for before, w in pairwise(raw) if before in cw.PERSONAL) | _predicate(raw)
        found.append(Part(tuple(raw), content, read.slots, verbs, fold(clause)))
    return tuple(found)


_BE = frozenset(["is", "are", "was", "were", "be", "been"])
# a preposition or particle right after a verb (`starts at`, `kicks off`, `land in`, `posted to`)
_PARTICLES = frozenset(["at", "in", "on", "to", "off", "out", "up", "into", "by", "with", "from", "over"])
_ADVERB_PARTICLES = frozenset(["off", "out", "up", "over"])  # part of the verb itself (`kicks off`)
# `用 X 打包`, `由 X 生成`, `在 X 开始`: the clause's last word, after a means or a time, is its verb
_ZH_BEFORE_VALUE = frozenset(
    ["用", "由", "靠", "通过", "使用", "采用", "在", "凌晨", "上午", "下午", "晚上", "每天"]
)


def _predicate(raw: Sequence[str]) -> frozenset[str]:
    """The clause's predicate verb (with its particle): it tells how the subject gets its value, not which thing
    the subject is, so another verb for the same slot (`starts at` / `kicks off at`) names no other thing. The
    verb is the first word after a subject word that the lexicon reads as a verb and that follows a form of
    `be`, takes a particle, or is no noun; in Chinese, the last word after a means or a time (`用 X 打包`)."""
    words = [w for w in raw if w]
    if len(words) >= 3 and not words[-1].isascii() and words[-2] in _ZH_BEFORE_VALUE:
        # only after a subject of the clause's own (`由 B 审核` alone names nothing it does it to)
        named_first = any(w not in cw.LIGHT for w in words[:-2])
        return frozenset(words[-1:]) if named_first else frozenset()
    named = False
    for i, word in enumerate(words):
        if i and words[i - 1] in cw.PERSONAL:
            return frozenset()  # `we compress images with A`: the pronoun's verb is the predicate
        after = words[i + 1] if i + 1 < len(words) else ""
        speech = cw.parts_of_speech(word) if named and word not in cw.LIGHT else frozenset()
        if "VERB" in speech and (words[i - 1] in _BE or after in _PARTICLES or "NOUN" not in speech):
            return frozenset([word, after] if after in _ADVERB_PARTICLES else [word])
        named = named or (word not in cw.LIGHT and word not in cw.PERSONAL)
    return frozenset()


def whole(text: str) -> Part:
    pieces = parts(text)
    return Part(
        tuple(w for p in pieces for w in p.raw),
        tuple(w for p in pieces for w in p.content),
        frozenset(s for p in pieces for s in p.slots),
        frozenset(v for p in pieces for v in p.verbs),
        " ".join(p.text for p in pieces),
    )


def windows(text: str) -> list[Part]:
    """Each clause of the new fact; a clause that names nothing borrows the words of the one before it."""
    pieces = parts(text)
    found: list[Part] = []
    for i, piece in enumerate(pieces):
        if not piece.content and i > 0:
            before = pieces[i - 1]
            piece = Part(
                before.raw + piece.raw,
                before.content,
                piece.slots,
                before.verbs | piece.verbs,
                f"{before.text} {piece.text}",
            )
        found.append(piece)
    return found


def _shared(old: Part, new: Part, kinds: frozenset[str] = frozenset()) -> int:
    """How many subject words the two share (0 when they name different things). A name is a subject word
    too where the change is of another kind (`Webhook retries` beside `Email retries`, both capped at a number)."""
    mine = [*old.content, *old.names, *old.units]
    theirs = [*new.content, *new.names, *new.units]
    matched = [a for a in mine if any(cw.same_word(a, b) for b in theirs)]
    nominal = [
        a
        for a in matched
        if not old.verbal(a) or not all(new.verbal(b) for b in theirs if cw.same_word(a, b))
    ]
    if not nominal or contrasted(old, new, kinds):
        return (
            0  # each names a thing the other lacks: `frontend builds` beside `backend builds` is another one
        )
    return len(nominal)


def contrasted(old: Part, new: Part, kinds: frozenset[str]) -> bool:
    """Each side keeps a word of its own that names a thing the other lacks."""
    mine = [*old.content, *old.names, *old.units]
    theirs = [*new.content, *new.names, *new.units]
    named = bool(kinds - {"name"})  # a change of a number, a time…: a name beside it is a subject word
    own_old = [
        a for a in (*old.content, *(old.subject_names() if named else ())) if _own(a, old, theirs, new)
    ]
    own_new = [b for b in (*new.content, *(new.subject_names() if named else ())) if _own(b, new, mine, old)]
    return bool(own_old and own_new)


def _own(word: str, part: Part, other: Sequence[str], other_part: Part) -> bool:
    """A word only one side has that names a thing (not a verb, not the value's kind); a word the other side
    writes in two (`timeout`, `time out`, `on-call`, `on call`) is shared."""
    if word in cw.CATEGORY or part.verbal(word) or (len(word) == 1 and not word.isascii()):
        return False  # one Chinese character is often what the segmenter left over (`库是` beside `库`)
    joined = word.replace("-", "")  # `on-call` beside `on call`
    if any(joined == a + b for a, b in pairwise(other_part.raw)):
        return False
    if any(
        word in compound.split("-") for compound in (*other_part.raw, *other_part.names) if "-" in compound
    ):
        return False
    return not any(cw.same_word(word, b) for b in other)


def _new_value(old: Part, new: Part) -> frozenset[str]:
    """The kinds of value `new` holds anew where `old` holds one of that kind (empty: no new value)."""
    old_words = [*old.content, *old.names]
    fresh = [y for y in new.slots if y not in old.slots and not any(cw.same_word(y[1], w) for w in old_words)]
    new_names = new.names
    found: set[str] = set()
    for kind in {y[0] for y in fresh}:
        if not any(_same_kind(x[0], kind) for x in old.slots):
            continue
        # a name the other side writes in another form (`Hotfixes`, `hotfix`) is neither gone nor new
        gone = [
            x
            for x in old.slots
            if _same_kind(x[0], kind)
            and x not in new.slots
            and not (x[0] == "name" and any(cw.same_word(x[1], n) for n in new_names))
        ]
        if sum(1 for y in fresh if _same_kind(y[0], kind)) >= 2 and len(gone) >= 2:
            continue  # two new values and two old ones of one kind: which is the subject's is a guess
        found.add(kind)
    return frozenset(found)


def _same_kind(a: str, b: str) -> bool:
    """One kind of value; a bare number is one kind with a counted one (`pool size 40`, `20 connections`)."""
    return a == b or (a.startswith("number:") and b.startswith("number:") and "number:" in (a, b))


def score(stored: str, incoming: str) -> int:
    """How well `incoming` reads as a marked change of `stored` (0: not at all)."""
    read = whole(incoming)
    if cw.asks_plans_or_adds(incoming.lower(), read.raw):
        return 0
    if not _owner_named(stored, incoming, read):
        return 0  # the stored fact is about another owner's subject (`for the billing service, …`)
    old = whole(stored)
    best = 0
    for window in windows(incoming):
        if not (cw.has_marker(window.raw) or cw.redoes(window.raw, old.raw)):
            continue
        kinds = _new_value(old, window)
        if not kinds:
            continue
        best = max(best, _shared(old, window, kinds))
    return best


def _owner_named(stored: str, incoming: str, read: Part) -> bool:
    """The stored subject's owner, if any, is named by the new fact, in any word form (`for webhooks`,
    `webhook retries`)."""
    found = subject_of(stored)
    if found is None or not found.owner or found.owner in fold(incoming).replace(" ", ""):
        return True
    words = [w for w in (*read.content, *read.names) if len(w) >= 3]
    return any(w in found.owner or cw.same_word(found.owner, w) for w in words)  # the owner has no spaces


def words_of(text: str) -> list[str]:
    return _words(fold(text))


def marked(text: str, stored: Sequence[str]) -> bool:
    """Cheap first test: a change marker, or a `re-` word that may redo a stored verb (most writes have neither).
    No value slots here: reading names would load the lexicon for every write."""
    words = _words(fold(text))
    if cw.has_marker(words):
        return True
    again = {w[2:4] for w in words if w.startswith("re") and len(w) > 4}
    return bool(again) and any(w[:2] in again for text in stored for w in _words(fold(text)))


def asked(text: str) -> bool:
    """A question by its punctuation or cue, or a fact said to be added (`also`, 另外): never a replacement,
    whatever the parser read (`change_words.asks_or_adds_plainly`)."""
    return cw.asks_or_adds_plainly(fold(text), _words(fold(text)))


def hedged(text: str) -> bool:
    """A question, a possibility or an added fact (`change_words.asks_or_adds`)."""
    return cw.asks_or_adds(fold(text), _words(fold(text)))


def pick(stored: Sequence[str], incoming: str) -> int | None:
    """The index of the one stored truth `incoming` changes by this rule; None when none or a tie."""
    if not stored or not marked(incoming, stored):
        return None
    scores = [score(text, incoming) for text in stored]
    best = max(scores)
    if best == 0 or scores.count(best) > 1:
        return None
    return scores.index(best)
