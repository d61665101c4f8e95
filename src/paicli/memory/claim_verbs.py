"""A clause whose predicate is a lexical verb, not a copula (issue 37): `Session tokens expire after 24 hours`,
`The nightly backup now starts at 05:30`, `The mobile app targets iOS 16`, `backup 不再 starts at 02:15`.

The verb is found by its place, not looked up in a list of verbs: a word of no closed class (`FUNCTION`) right
after a noun phrase — with only adverbs, negators or an auxiliary between them — that agrees with the phrase's
head (a verb in -s after a singular head, a bare verb after a plural one or after an auxiliary) and is followed by
a complement that carries the value: a preposition and what follows it (`after 8 hours`), or an object with a
value token in it (`iOS 16`, `pages for 10 minutes`). A plural noun read as a verb (`frontend builds run on …`)
loses to the reading whose complement opens with a preposition; among equals the leftmost verb wins.

What the clause is about is the noun phrase together with its slot: the verb's stem and the words up to its
preposition (`expire after`, `cache pages for`). Two such clauses are about the same thing only when their slots
agree (`starts at 04:00` and `starts on Sundays` are two facts), and a slot never meets a copular subject: the
slot is a subject word marked with `SLOT` (`subject.py` compares the marked words exactly). Subjects and verbs are
compared by stem, so singular and plural, `expires` and `expire`, meet. Such readings are never certain
(`Clause.lexical`): the relation judge may overrule them.
"""

from __future__ import annotations

from paicli.memory import subject_words as w
from paicli.memory.claim_grammar import TRAILING, ending, negator, until_time
from paicli.memory.claim_tokens import Token

SLOT = "~"  # marks the subject word that carries a lexical predicate's slot (`~expir~after`)

# Prepositions that open a verb's complement (`expire after 8 hours`, `fail above 25 MB`, `ship on Fridays`).
PREPOSITIONS = frozenset(
    [
        *("at", "on", "in", "after", "before", "by", "for", "to", "from", "within", "under", "over", "above"),
        *(
            "below",
            "until",
            "till",
            "around",
            "about",
            "with",
            "into",
            "onto",
            "past",
            "beyond",
            "per",
            "every",
        ),
        *("through", "via", "across", "near", "between", "behind", "up", "off", "than", "inside", "outside"),
    ]
)
AUXILIARIES = frozenset(
    ["do", "does", "did", "will", "would", "shall", "should", "can", "could", "may", "might"]
)
# Closed classes that are never the verb: determiners, pronouns, prepositions, conjunctions, auxiliaries and
# be-forms, negators, wh-words and the generic adverbs of the parser.
FUNCTION = (
    PREPOSITIONS
    | AUXILIARIES
    | w.EN_BE
    | w.EN_DETERMINERS
    | w.EN_PRONOUNS
    | w.EN_NEGATORS
    | w.GENERIC
    | w.EN_PERFECT
    | frozenset(
        ["and", "or", "but", "if", "so", "than", "that", "which", "who", "what", "when", "where", "how"]
    )
    | frozenset(["must", "no", "longer", "each", "every", "any", "some", "all", "both", "those", "them"])
)
# takes a verb in -s? (a code-switched clause has its pronoun in Chinese: `我们不再 deploy with A`)
_PRONOUN_NUMBER = {
    "it": True,
    "they": False,
    "we": False,
    "you": False,
    "i": False,
    "我们": False,
    "咱们": False,
}
# Adverbs that stand between a subject and its verb (`now expire`, `once again starts`, `no longer ships`).
_ADVERBS = frozenset(
    [
        *("now", "still", "again", "once", "also", "just", "always", "usually", "already", "ever", "never"),
        *("longer", "no", "not", "then", "today", "anymore", "only", "even", "sometimes", "often", "all"),
    ]
)
# Words a noun phrase never holds: the verb's auxiliaries, be-forms, negators, pronouns and prepositions.
_NOT_NOUN = (
    AUXILIARIES
    | w.EN_BE
    | w.EN_NEGATORS
    | w.EN_PRONOUNS
    | PREPOSITIONS
    | w.EN_PERFECT
    | _ADVERBS
    | w.EN_DETERMINERS
)
_DETERMINERS = frozenset(["the", "a", "an", "our", "my", "their", "its"])
_TIME_NOUNS = frozenset(["days", "weeks", "months", "day", "week", "month", "year", "sprint", "release"])


def singular(word: str) -> str:
    """`tokens` and `token`, `caches` and `cache`, `retries` and `retry`: one form of a noun."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if _plural(word) and len(word) > 3 else word


def stem(word: str) -> str:
    """`expires`, `expire` and `expired`; `pushes` and `push`; `caches` and `cache`: one stem of a verb; the
    -ing form too (`deploying`, `running`: a gerund after `stopped` or `back to` names the same doing)."""
    if len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
        # a consonant doubled before -ing (`running`, `formatting`, `committing`); `adding`, `buzzing`,
        # `installing` and `passing` keep theirs
        last = word[-1]
        doubled = word[-2] == last and (last in "bgmnprt" or (last == "d" and len(word) > 3))
        return word[:-1] if doubled else (word[:-1] if word.endswith("e") else word)
    word = singular(word)
    if len(word) > 4 and word.endswith("ied"):
        return word[:-3] + "y"  # `copied`, `applied`: the stem of `copy`, `apply`
    for suffix in ("ed", "e"):
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _plural(word: str) -> bool:
    return len(word) > 2 and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _word(token: Token) -> bool:
    """A Latin word of no closed class: a noun of the subject or the verb."""
    text = token.text
    return token.latin and text.isalpha() and text not in FUNCTION and not text.endswith("ly")


def _adverb_before(run: list[Token]) -> bool:
    return run[0].text.endswith("ly") and (len(run) == 1 or run[1].text in FUNCTION)


def _object_word(token: Token) -> bool:
    """What may stand between the verb and its preposition: an object (`emails the team at`, `caches pages
    for`) or a particle (`time out after`, `go out on`)."""
    text = token.text
    return (
        _word(token)
        or token.value
        or token.han
        or text in _PARTICLES
        or text in w.EN_DETERMINERS
        or (token.latin and text.isalpha() and text not in _NOT_NOUN)
    )


_PARTICLES = frozenset(["out", "up", "down", "off", "over", "back", "away"])


def _no_head(token: Token) -> bool:
    return token.text.endswith("ly") or token.text in w.ZH_ATTRIBUTIVE or token.text in TRAILING


def _noun_word(token: Token) -> bool:
    return token.han or (token.latin and token.text.isalpha() and token.text not in _NOT_NOUN)


def _adverbial(token: Token) -> bool:
    """What may stand between a subject and its verb: `now`, `once again`, `no longer`, `do not`, 现在, 不再."""
    text = token.text
    if text in _PRONOUN_NUMBER:
        return False  # the subject itself: `they expire after`
    if token.han:
        return text in w.GENERIC or text in w.ZH_NEGATORS
    return token.latin and (
        text in _ADVERBS or text in AUXILIARIES or negator(token) or (text.endswith("ly") and len(text) > 4)
    )


def _subject_run(tokens: list[Token]) -> list[Token]:
    """The noun phrase before the verb: its trailing run of Latin tokens, unless a Han qualifier ending in an
    attributive marker (`支付服务的 retries`) owns it. Leading function words (`the`, `each`, `in this repo the`)
    and a leading `these days` frame are dropped; what is left must be nouns and their qualifiers only."""
    start = len(tokens)
    while start > 0 and (tokens[start - 1].latin or _possessive(tokens, start - 1)):
        start -= 1
    if start == len(tokens):  # a Chinese noun phrase before a Latin verb: `移动端团队 deploy with A`
        while start > 0 and _han_noun(tokens[start - 1]):
            start -= 1
        return tokens[start:]
    owned = start > 0 and tokens[start - 1].text in w.ZH_ATTRIBUTIVE
    head, run = (tokens[:start], tokens[start:]) if owned else ([], tokens[start:])
    while run:
        if len(run) > 2 and run[0].text in ("these", "this", "next") and run[1].text in _TIME_NOUNS:
            run = run[2:]  # `these days S`: a time frame
        elif run[0].text in FUNCTION or _adverb_before(run):
            run = run[
                1:
            ]  # `definitely the S`; not `nightly backup`, where the word in -ly qualifies the noun
        else:
            break
    return [*head, *run]


def _possessive(tokens: list[Token], i: int) -> bool:
    """`the mobile app's crash reporting`: the owner's `'s` inside an English noun phrase."""
    return tokens[i].text == "'s" and 0 < i < len(tokens) - 1 and tokens[i - 1].latin and tokens[i + 1].latin


def _han_noun(token: Token) -> bool:
    text = token.text
    return (
        token.han
        and not token.value
        and text not in TRAILING
        and text not in w.ZH_ATTRIBUTIVE
        and not negator(token)
    )


_OWN_GROUP = frozenset(["team"])  # a group word that, bare, names the speaker's own people


def _agrees(head: Token, verb: Token, auxiliary: bool) -> bool:
    if auxiliary:
        return not _plural(verb.text)  # `does not ship`, never `will runs`
    if head.han or not head.latin:
        return True
    if _plural(
        verb.text
    ):  # `the backup starts`; a head in -s never takes it (`nous utilisons …` is no English)
        return not head.text.endswith("s")
    return _plural(head.text)  # `tokens expire`


def _reading_at(
    tokens: list[Token], v: int
) -> tuple[int, list[Token], list[Token], list[Token], bool] | None:
    """(rank, subject, slot, value, negated) with the verb at `v`; rank 0 when a preposition opens the
    complement, 1 when an object comes before it, 2 for an object alone."""
    verb = tokens[v]
    if not _word(verb) or len(verb.text) < 2:
        return None
    gap = v
    while gap > 0 and _adverbial(tokens[gap - 1]):
        gap -= 1
    subject = _subject_run(tokens[:gap])
    between = tokens[gap:v]
    auxiliary = any(t.text in AUXILIARIES for t in between)
    pronoun = tokens[gap - 1].text if gap > 0 and tokens[gap - 1].text in _PRONOUN_NUMBER else None
    if pronoun is None and not subject and gap > 0 and tokens[gap - 1].text in _OWN_GROUP:
        pronoun = (
            "it" if _plural(verb.text) else "we"
        )  # `the team deploys with A`: the speaker's own, as `we`
    if pronoun is not None:  # `…, they expire after 8 hours`: the clause before names the subject
        if not _agrees(Token("thing" if _PRONOUN_NUMBER[pronoun] else "things"), verb, auxiliary):
            return None
        subject = []
    elif not subject or not all(_noun_word(t) or _possessive(subject, i) for i, t in enumerate(subject)):
        return None  # not a noun phrase: `the CDN does not cache` is no subject of `pages`
    elif _no_head(subject[-1]) or not _agrees(subject[-1], verb, auxiliary):
        return None  # `我们的 mobile …`: an owner with no noun of its own is no subject of `mobile`
    complement = until_time(tokens[v + 1 :])
    while complement and not complement[-1].value and complement[-1].text in TRAILING:
        complement = complement[:-1]
    if not complement:
        return None
    preposition = next((i for i, t in enumerate(complement) if t.value or t.text in PREPOSITIONS), None)
    negated = any(negator(t) for t in between)
    if preposition is not None and not complement[preposition].value:
        value = complement[preposition + 1 :]
        while value and value[0].text in w.EN_DETERMINERS:
            value = value[1:]  # `on the 5th`: the article is no part of the value
        objects = complement[:preposition]
        if not value or not all(_object_word(t) for t in objects):
            return None
        slot = [verb, *(t for t in complement[: preposition + 1] if t.text not in w.EN_DETERMINERS)]
        return (0 if preposition == 0 else 1), subject, slot, value, negated
    if not any(t.value for t in complement) or not _word(complement[0]):
        return (
            None  # an object with no value says too little; a value alone is a label's (`worker replicas 6`)
        )
    return 2, subject, [verb], complement, negated


def without_frame(tokens: list[Token]) -> list[Token]:
    """The clause without a time frame that opens it: `these days …`, `从这周起 …` / `从下个月开始 …` (the
    segmenter may cut the frame in pieces: 从 / 这 / 周起)."""
    if len(tokens) > 3 and tokens[0].text in ("these", "this", "next") and tokens[1].text in _TIME_NOUNS:
        return tokens[2:]
    if len(tokens) > 4 and (tokens[0].text, tokens[1].text) == ("as", "of"):  # `As of today the S is B`
        end = next((i for i in range(3, min(len(tokens) - 1, 7)) if tokens[i].text in _DETERMINERS), None)
        if end is not None:
            return tokens[end:]
    if tokens and tokens[0].text == "从":
        end = next(
            (i for i in range(1, min(4, len(tokens) - 1)) if tokens[i].text.endswith(("起", "开始"))), None
        )
        if end is not None and all(t.han for t in tokens[: end + 1]):
            return tokens[end + 1 :]
    return tokens


def qualifier(tokens: list[Token], i: int) -> bool:
    """`nightly backup`, `weekly report`: a word in -ly right before a noun qualifies it (not `currently the S`)."""
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    return (
        following is not None
        and following.latin
        and following.text not in TRAILING
        and following.text not in w.EN_DETERMINERS
        and not following.text.endswith("ly")
    )


def lexical_reading(tokens: list[Token]) -> tuple[list[Token], list[Token], bool] | None:
    """(subject tokens with the slot as their last word, value tokens, negated), or None when no verb fits."""
    tokens = without_frame(tokens)
    found = [r for v in range(1, len(tokens) - 1) if (r := _reading_at(tokens, v)) is not None]
    if not found:
        return None
    _, subject, slot, value, negated = min(found, key=lambda r: r[0])  # `min` keeps the leftmost of a rank
    # the owner keeps its words; the rest is stemmed, so `sign` meets `signing`
    owned = max((i + 1 for i, t in enumerate(subject) if t.text == "'s"), default=0)
    stems = [*subject[:owned], *(Token(stem(t.text)) if t.latin else t for t in subject[owned:])]
    marked = Token(SLOT + SLOT.join(stem(t.text) if t.latin else t.text for t in slot))
    return [*stems, marked], value, negated


# What may stand right before a gerund that names the doing a clause is about: a verb of ceasing (`stopped`),
# `gave up`, `done`, `no more` (the doing is over) or a preposition of change (`switched to`, `back to`).
_BEFORE_GERUND = frozenset(["up", "done", "more", "to"])


def gerund_reading(tokens: list[Token]) -> tuple[list[Token], list[Token], bool] | None:
    """`We've stopped deploying with A`, `We gave up running the tests with A` (denied), `We switched to deploying
    with B`, `我们改成 deploy with B 了`: the gerund's doing read as the lexical clause `we deploy with A`, so it meets `We deploy with A`;
    (subject, value, negated) as `lexical_reading` gives them."""
    for g in range(1, len(tokens) - 1):
        word, before = tokens[g], tokens[g - 1]
        if not word.latin or word.text in FUNCTION:
            continue
        changed = before.han and (before.text.endswith(w.ZH_RESULTATIVE) or before.text in w.ZH_CHANGE)
        gerund = len(word.text) > 5 and word.text.endswith("ing")
        if not changed and not (gerund and (before.text in _BEFORE_GERUND or ending(before))):
            continue  # `我们改成 deploy with B 了`: a Chinese verb of change before an English doing, too
        found = lexical_reading([Token("we"), *tokens[g:]])
        if found is None:
            return None
        subject, value, _ = found
        over = any(negator(t) or ending(t) or t.text in ("up", "done") for t in tokens[:g])
        return subject, value, over
    return None
