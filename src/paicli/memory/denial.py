"""Whether a statement says a given value is over, read at the value's own place (issue 37).

The claim parser (`subject.py`) reads a denial through the predicate it finds; many denials have a predicate it
cannot place (`We got rid of Kafka`, `Kafka 那套已经撤了`, `We turned Kafka off`). Asked about one value — the
stored truth's — the clause that holds the value speaks for itself: the value is denied when that clause holds a
word of denial (a negator, a verb of ceasing, a verb with a particle of removal), and the value is not on the
affirmed side of a contrast (`not A but B` affirms B). A negation of exclusivity (`not only A`, `A is no longer
the only …`, `不只 A`) affirms A. A habit told in the past and ended by the sentence itself (`we used to run A,
not anymore`, `builds ran on A until March`, `以前用 A，现在不用了`) denies A too. A question, a plan or a
condition denies nothing. Pure.
"""

from __future__ import annotations

from paicli.memory import change_words as cw
from paicli.memory import subject_words as w
from paicli.memory.change_words import LIGHT
from paicli.memory.claim_grammar import ending, negator, verb
from paicli.memory.claim_tokens import Token, clauses, fold
from paicli.memory.claim_verbs import SLOT, stem
from paicli.memory.role_words import EN_WORDS, ZH_WORDS

# After a verb, these particles take its object away (`turned A off`, `shut A down`, `switched off A`).
_REMOVAL_PARTICLES = frozenset(["off", "down"])
# Words that open a condition: what follows is supposed, not stated.
_CONDITIONS = frozenset(
    ["if", "unless", "suppose", "supposing", "如果", "要是", "假如", "万一", "假设", "若"]
)
_GIVE = frozenset(["give", "gave", "given", "giving", "gives"])
# The auxiliaries of a passive, and the prepositions after its verb that take its subject away from a place.
_PASSIVE = w.EN_BE | {"got", "get", "gets", "getting"}
_AWAY_FROM = frozenset(["from", "out"])
_AGENT = frozenset(["by", "on"])
_NEGATIVE_QUANTIFIERS = frozenset(["nobody", "none"])
# Prepositions of absence (`runs without A`).
_ABSENCE = frozenset(["without", "sans", "除了"])
# Words of exclusivity: a negation that reaches one negates the `only`, not the value (`not only A`).
_ONLY = frozenset(["only", "solely", "exclusively", "just", "只", "仅", "光", "单"])
_ONLY_BETWEEN = frozenset(["longer", "more", "the", "a", "an", "our", "用", "是"])
# Time adverbs that put a clause in the past (`以前`, `formerly`; `used to` is read apart), and the past forms
# of `be` and `have` that carry a habit's time (`was A until March`).
_PAST = frozenset(k for k, kind in (*ZH_WORDS.items(), *EN_WORDS.items()) if kind == "old")
_PAST_AUX = frozenset(["was", "were", "had"])
_PRESENT_AUX = frozenset(["is", "are", "am", "be", "being", "been", "has", "have", "will", "'s"])
_UNTIL = frozenset(["until", "till"])
# A later time the sentence moves to after the past (`后来不用了`); the others are in `w.GENERIC`
_LATER = frozenset(["后来", "later", "since"])


def value_span(tokens: list[Token], value: str) -> tuple[int, int] | None:
    """(first, last) token of `value` in the clause (values are compared with spaces removed)."""
    for start in range(len(tokens)):
        joined = ""
        for end in range(start, len(tokens)):
            joined += tokens[end].text.replace(" ", "")
            if joined == value:
                return start, end
            if not value.startswith(joined):
                break
    return None


def _cue(tokens: list[Token], i: int) -> bool:
    token = tokens[i]
    following = tokens[i + 1] if i + 1 < len(tokens) else None
    if negator(token):
        return not _exclusive(tokens, i)
    if ending(token, following) or token.text in _ABSENCE or _nobody(token):
        return True
    if (
        token.text in _REMOVAL_PARTICLES and not token.value
    ):  # `turned A off`, `switched off A`, `A was shut off`
        if following is not None and following.text in _AGENT:
            return False  # `signed off by A`, `signed off on A`: A approves, nothing is taken away
        before = tokens[max(0, i - 3) : i]
        return any(verb(t) for t in before) or (i > 1 and tokens[i - 2].text in _PASSIVE)
    if token.text == "掉" and i > 0:  # `drop 掉 A`: the resultative 掉 (away) after a code-switched verb
        return True
    if token.text == "up" and i > 0:  # `gave up (on) A`: the one verb of giving that ends what follows
        return tokens[i - 1].text in _GIVE
    return False


def _exclusive(tokens: list[Token], i: int) -> bool:
    """The negator at `i` reaches a word of exclusivity (`not only`, `no longer the only`, `不只`): it denies that
    the value is the only one, which affirms the value."""
    for token in tokens[i + 1 : i + 5]:
        if token.text in _ONLY:
            return True
        if token.text not in _ONLY_BETWEEN:
            return False
    return False


def _past(tokens: list[Token]) -> bool:
    """The clause tells a habit in the past: a past time adverb, `used to`, `was`/`were`/`had`, a verb in -ed."""
    for i, token in enumerate(tokens):
        following = tokens[i + 1].text if i + 1 < len(tokens) else ""
        if token.text in _PAST or token.text in _PAST_AUX or (token.text == "used" and following == "to"):
            return True
        # `served`, `ran`; not `need`, nor a participle after a present auxiliary (`are served until May`)
        participle = any(t.text in _PRESENT_AUX for t in tokens[max(0, i - 2) : i])
        if verb(token) and not token.text.endswith("eed") and not participle:
            return True
    return False


def _ends_bare(tokens: list[Token]) -> bool:
    """A clause that only says something is over, naming nothing (`not anymore`, `现在不用了`, `后来不是了`)."""
    said = [
        t
        for i, t in enumerate(tokens)
        if not (negator(t) or ending(t, tokens[i + 1] if i + 1 < len(tokens) else None))
    ]
    if len(said) == len(tokens) or any(t.value for t in tokens):
        return False
    rest = [
        t
        for t in content_tokens(said)
        if t.text not in LIGHT and t.text not in _LATER and t.text not in w.CONTRAST
    ]
    return not rest


def _ended_habit(parts: list[list[Token]], k: int, last: int) -> bool:
    """Clause `k` tells the value (ending at token `last`) as a past habit and the sentence ends it: `until` a
    time, or a later part that only says it is over (`…, but not anymore`, `…，现在不用了`)."""
    tokens = parts[k]
    if not _past(tokens[: last + 1]):
        return False
    after = tokens[last + 1 :]
    if any(t.text in _UNTIL for t in tokens):  # `ran on A until March`, `Until last quarter we hosted … on A`
        return True
    turn = next((j for j, t in enumerate(after) if t.text in w.CONTRAST), None)
    tails = [after[turn + 1 :]] if turn is not None else []
    return any(_ends_bare(tail) or _now(tail) for tail in [*tails, *parts[k + 1 :]] if tail)


def _now(tokens: list[Token]) -> bool:
    """A later part set in the present by a change marker (`now they come from B`, `现在换成 B 了`), adding
    nothing (`now also B`): the past habit is over."""
    words = [t.text for t in tokens]
    return cw.has_marker(words) and not cw.adds(words)


def _nobody(token: Token) -> bool:
    """A negative quantifier as the doer (`Nobody uses A anymore`, `A 已经没人用了`): the value is out of use."""
    return token.text in _NEGATIVE_QUANTIFIERS or (token.han and token.text.startswith(("没人", "没有人")))


def _affirmed(tokens: list[Token], cues: list[int], first: int, last: int) -> bool:
    """`not A but B`: B is what holds; `B instead of A`: B holds and A is the one replaced."""
    turns = [i for i, t in enumerate(tokens) if t.text in w.CONTRAST]
    if any(cue < turn < first for cue in cues for turn in turns):
        return True
    return any(t.text in w.EN_SUBSTITUTE for t in tokens[last + 1 : last + 3])


def _passive_end(tokens: list[Token], i: int) -> bool:
    """`A was replaced`, `A got pulled from production`: a passive whose grammatical subject is the value and
    whose verb replaces it or takes it away from a place (not one that moves it somewhere: `A was migrated
    from B` brings A in)."""
    token = tokens[i]
    if not verb(token) or not any(t.text in _PASSIVE for t in tokens[max(0, i - 2) : i]):
        return False
    if token.text in w.EN_REPLACING:
        return True
    following = tokens[i + 1].text if i + 1 < len(tokens) else ""
    return following in _AWAY_FROM and not cw.marker_at([token.text], 0)


def denies(text: str, value: str) -> bool:
    """`text` says `value` (folded, spaces removed) no longer holds. A word of addition does not make a denial
    an added fact (`A 也停用了`, `we also dropped A`): the value's own clause still says it is over."""
    if not value:
        return False
    parts = clauses(text)
    words = [t.text for tokens in parts for t in tokens if not cw.adds([t.text])]
    if cw.asks_plans_or_adds(fold(text), words):
        return False
    for k, tokens in enumerate(parts):
        found = value_span(tokens, value)
        if found is None:
            continue
        cues = [i for i in range(len(tokens)) if _cue(tokens, i)]
        cues += [i for i in range(found[1] + 1, len(tokens)) if _passive_end(tokens, i)]
        if cues and not _affirmed(tokens, cues, *found):
            return True
        if not cues and _ended_habit(parts, k, found[1]):
            return True
    return False


def widens(text: str) -> bool:
    """Every negation in `text` negates an exclusivity (`Not only A but also B …`, `A is no longer the only
    place …`, `不只发到 A，也发到 B`): the sentence adds a value beside the stored one and ends none."""
    found = False
    for tokens in clauses(text):
        for i, token in enumerate(tokens):
            if negator(token):
                if not _exclusive(tokens, i):
                    return False
                found = True
            elif _cue(tokens, i):
                return False
    return found


def ended_habit(text: str, value: str) -> bool:
    """`text` denies `value` only by telling it as a past habit it ends (`We used to X through A, not anymore`),
    with no word of denial of its own: the habit's own words say what was ended (`used to have outages with A`
    ends the outages, not A)."""
    parts = clauses(text)
    for k, tokens in enumerate(parts):
        found = value_span(tokens, value)
        if found is None or not _ended_habit(parts, k, found[1]):
            continue
        # a word of denial before the turn to the ending denies the value itself (`moved off A, back to B`)
        turn = next(
            (j for j in range(found[1] + 1, len(tokens)) if tokens[j].text in w.CONTRAST), len(tokens)
        )
        if not any(_cue(tokens, i) for i in range(turn)):
            return True
    return False


def states_nothing(text: str) -> bool:
    """A question or a condition (`Isn't A the S?`, `If we ever drop A, …`, `要是 A 再出问题…`): it changes no
    stored value, however sure its reading."""
    folded = fold(text).rstrip("。.！! ")
    if "?" in folded or "？" in folded or folded.endswith(("吗", "么")):
        return True
    return any(tokens[0].text in _CONDITIONS for tokens in clauses(text))


# Words of a denial's subject that name no thing: its prepositions and determiners (`for the releases`)
_FUNCTION = w.EN_TARGET | w.EN_PLACE | w.EN_SOURCE | w.EN_DETERMINERS | w.EN_PERSONAL | {"for", "by", "of"}
# and the Chinese words of purpose that open it (`不用来构建发布包`: used for building the release packages)
_ZH_PURPOSE = frozenset(["用来", "用于", "来"])


def _pieces(text: str, value: str) -> list[str] | None:
    """The value's words where `text` holds it (Chinese split into characters, so two segmentations of the
    same name still meet); None when the text does not hold it."""
    for tokens in clauses(text):
        found = value_span(tokens, value)
        if found is not None:
            first, last = found
            return [p for t in tokens[first : last + 1] for p in (list(t.text) if t.han else [t.text])]
    return None


def holds_value(text: str, value: str) -> bool:
    """`text` holds `value` as whole words."""
    return bool(value) and _pieces(text, value) is not None


def names_value(stored: str, value: str, denied: str) -> bool:
    """The denied value is the stored value, or a run of its whole words that carries a name (`Buildkite` of
    `Buildkite agents`, `TiDB` of `TiDB 7`, `飞书` of `飞书值班群`): never another version or another part
    (`Postgres 14` is no part of `Postgres 16`, `#oncall channel` none of `#sre channel on Slack`)."""
    if not denied or not value:
        return False
    if denied == value:
        return True
    whole = _pieces(stored, value) or []
    for size in range(1, len(whole)):
        for start in range(len(whole) - size + 1):
            run = whole[start : start + size]
            if "".join(run) == denied:
                named = [p for p in run if p not in w.GENERIC and any(ch.isalnum() for ch in p)]
                # a generic word or one Chinese character is no name
                return bool(named) and not (size == 1 and "\u3400" <= run[0] <= "\u9fff")
    return False


def subject_told_in(words: tuple[str, ...], han: str, owner: str, stored: str) -> bool:
    """Every word the denial names its subject with stands in the stored fact (as a word of the same stem;
    Chinese as written), and so does its owner: the denial names that fact's subject, maybe in another
    shape (`releases` for `are built … for releases`, `formatting` for `we format code`). A word the stored
    fact lacks (`job queue` beside `the cache`, `staging cache`) names another subject."""
    folded = fold(stored).replace(" ", "")
    stems = {stem(t.text) for tokens in clauses(stored) for t in tokens if t.latin}
    content = [stem(part) for word in words for part in word.split(SLOT) if part and part not in _FUNCTION]
    # Chinese by its words, each as written (segmentation differs between the two texts around them)
    chinese = [
        t.text
        for tokens in clauses(han)
        for t in tokens
        if t.text not in _ZH_PURPOSE and t.text not in w.GENERIC
    ]
    if not content and not chinese:
        return False
    told = all(c in stems for c in content) and all(c in folded for c in chinese)
    return told and owner.replace(" ", "") in folded


def content_tokens(tokens: list[Token]) -> list[Token]:
    return [
        t
        for t in tokens
        if t.text not in w.GENERIC
        and t.text not in _FUNCTION
        and t.text not in w.EN_BE
        and t.text not in w.ZH_ASPECT
        and any(ch.isalnum() for ch in t.text)
    ]


def tells_all_of(incoming: str, stored: str) -> bool:
    """Every content word of `stored` stands in `incoming` (English by stem, Chinese as written): for a stored
    fact the parser could not read, the denial says everything it says (`Nightly jobs are scheduled by A` and
    `We stopped scheduling nightly jobs with A`), and names no owner of its own (`The Lyra project …`)."""
    folded = fold(incoming).replace(" ", "")
    stems = {stem(t.text) for tokens in clauses(incoming) for t in tokens if t.latin}
    words = [t for tokens in clauses(stored) for t in content_tokens(tokens)]
    return bool(words) and all(stem(t.text) in stems if t.latin else t.text in folded for t in words)


def subject_named_in(latin: tuple[str, ...], han: str, owner: str, text: str) -> bool:
    """Every word of a stored subject outside its verb's slot, and its owner, stands in `text`: a fact whose
    subject keeps a word the denial lacks (`The Draco project signs commits with A`, `Lyra 项目用 A 打包`) is
    about another thing that happens to share the value."""
    folded = fold(text).replace(" ", "")
    stems = {stem(t.text) for tokens in clauses(text) for t in tokens if t.latin}
    words = [stem(word) for word in latin if not word.startswith(SLOT) and word not in _FUNCTION | w.GENERIC]
    chinese = [t.text for tokens in clauses(han) for t in content_tokens(tokens) if t.text not in _ZH_PURPOSE]
    told = all(word in stems for word in words) and all(word in folded for word in chinese)
    return told and owner.replace(" ", "") in folded
