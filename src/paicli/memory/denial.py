"""Whether a statement says a given value is over, read at the value's own place (issue 37).

The claim parser (`subject.py`) reads a denial through the predicate it finds; many denials have a predicate it
cannot place (`We got rid of Kafka`, `Kafka 那套已经撤了`, `We turned Kafka off`). Asked about one value — the
stored truth's — the clause that holds the value speaks for itself: the value is denied when that clause holds a
word of denial (a negator, a verb of ceasing, a verb with a particle of removal), and the value is not on the
affirmed side of a contrast (`not A but B` affirms B). A question, a plan or a condition denies nothing. Pure.
"""

from __future__ import annotations

from paicli.memory import change_words as cw
from paicli.memory import subject_words as w
from paicli.memory.claim_grammar import ending, negator, verb
from paicli.memory.claim_tokens import Token, clauses, fold

# After a verb, these particles take its object away (`turned A off`, `shut A down`, `switched off A`).
_REMOVAL_PARTICLES = frozenset(["off", "down"])
# Words that open a condition: what follows is supposed, not stated.
_CONDITIONS = frozenset(
    ["if", "unless", "suppose", "supposing", "如果", "要是", "假如", "万一", "假设", "若"]
)
_GIVE = frozenset(["give", "gave", "given", "giving", "gives"])
# Prepositions of absence (`runs without A`).
_ABSENCE = frozenset(["without", "sans", "除了"])


def _span(tokens: list[Token], value: str) -> tuple[int, int] | None:
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
    if negator(token) or ending(token, following) or token.text in _ABSENCE:
        return True
    if token.text in _REMOVAL_PARTICLES and not token.value:  # `turned A off`, `switched off A`
        return any(verb(t) for t in tokens[max(0, i - 3) : i])
    if token.text == "掉" and i > 0:  # `drop 掉 A`: the resultative 掉 (away) after a code-switched verb
        return True
    if token.text == "up" and i > 0:  # `gave up (on) A`: the one verb of giving that ends what follows
        return tokens[i - 1].text in _GIVE
    return False


def _affirmed(tokens: list[Token], cues: list[int], first: int, last: int) -> bool:
    """`not A but B`: B is what holds; `B instead of A`: B holds and A is the one replaced."""
    turns = [i for i, t in enumerate(tokens) if t.text in w.CONTRAST]
    if any(cue < turn < first for cue in cues for turn in turns):
        return True
    return any(t.text in w.EN_SUBSTITUTE for t in tokens[last + 1 : last + 3])


def denies(text: str, value: str) -> bool:
    """`text` says `value` (folded, spaces removed) no longer holds."""
    if not value:
        return False
    parts = clauses(text)
    if cw.asks_plans_or_adds(fold(text), [t.text for tokens in parts for t in tokens]):
        return False
    for tokens in parts:
        found = _span(tokens, value)
        if found is None:
            continue
        cues = [i for i in range(len(tokens)) if _cue(tokens, i)]
        if cues and not _affirmed(tokens, cues, *found):
            return True
    return False


def states_nothing(text: str) -> bool:
    """A question or a condition (`Isn't A the S?`, `If we ever drop A, …`, `要是 A 再出问题…`): it changes no
    stored value, however sure its reading."""
    folded = fold(text).rstrip("。.！! ")
    if "?" in folded or "？" in folded or folded.endswith(("吗", "么")):
        return True
    return any(tokens[0].text in _CONDITIONS for tokens in clauses(text))
