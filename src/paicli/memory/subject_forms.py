"""A subject or a value said in another form.

A subject said in a shorter form: the modifier (`夜间构建的`, `the code freeze window's`) dropped in part.

`构建超时` names the same slot as `夜间构建的超时时间` when every word of the short form comes from the long one,
in order, some of them from its modifier and some from its head: the short form keeps the head and a part of the
modifier that tells it apart. A short form with a word the long one lacks (`单测超时`, `图片缓存过期时间`) names
another thing, and so does one with none of the modifier (`超时时间` alone may be any component's).

A limit has a direction: the upper bound (`maximum`, `at most`, `capped at`, `上限`, `最多`) and the lower one
(`minimum`, `at least`, `下限`, `至少`) of one thing are two slots, whatever else the two facts share.

A value said as a verb: `Pull requests are merged by squashing`, `Go dependencies are vendored` hold a doing
(the passive's participle, or the means after `by`); `we stopped squashing`, `we stopped vendoring Go
dependencies` deny that doing in its -ing form. The two meet when the stems agree and the words after the gerund,
if any, are the stored subject (`vendoring JavaScript packages` is about other packages).
"""

from __future__ import annotations

import re
from typing import Protocol

from paicli.memory import subject_words as w
from paicli.memory.claim_clause import parse_clause
from paicli.memory.claim_grammar import LEADING, content, key, strip, verb
from paicli.memory.claim_tokens import Token, clauses
from paicli.memory.claim_verbs import singular, stem


class _Named(Protocol):
    @property
    def han(self) -> str: ...
    @property
    def latin(self) -> tuple[str, ...]: ...
    @property
    def owner(self) -> str: ...


# the closed class of degree words that give a limit its direction (`min` is left out: `30 min` is a span)
UPPER = re.compile(r"\b(?:max|maximum|at most|up to|capped|no more than)\b|最多|最大|上限|不超过|最高|封顶")
LOWER = re.compile(r"\b(?:minimum|at least|no less than)\b|最少|最小|下限|至少|不少于|最低")


def opposite_bounds(stored: str, incoming: str) -> bool:
    """One fact gives only an upper bound and the other only a lower one: two slots of one thing."""
    mine, theirs = _bounds(stored), _bounds(incoming)
    return len(mine) == 1 and len(theirs) == 1 and mine != theirs


def _bounds(text: str) -> set[str]:
    low = text.lower()
    return {name for name, found in (("upper", UPPER), ("lower", LOWER)) if found.search(low)}


_PIECE = 2  # a Han piece shorter than a word could match anywhere


def sheds_modifier(long: _Named, short: _Named) -> bool:
    """`short` (no modifier of its own) is `long` (head `han`/`latin`, modifier `owner`) with part of its
    modifier dropped."""
    if not long.owner or short.owner or not (short.han or short.latin):
        return False
    from_modifier = False
    for word in short.latin:
        if word in long.latin:
            continue
        if word not in long.owner:
            return False
        from_modifier = True
    pieces = _pieces(short.han, long.owner + long.han)
    if pieces is None:
        return False
    edge = len(long.owner)
    from_modifier = from_modifier or any(start < edge for start, _ in pieces)
    head = any(end > edge for _, end in pieces) or bool(set(short.latin) & set(long.latin))
    return from_modifier and head


def _pieces(short: str, long: str) -> list[tuple[int, int]] | None:
    """Where the pieces of `short` stand in `long`, in order, each the longest that fits at least `_PIECE`
    characters long; None when some part of `short` is not found."""
    found: list[tuple[int, int]] = []
    at, start = 0, 0
    while at < len(short):
        best: tuple[int, int] | None = None
        for size in range(len(short) - at, _PIECE - 1, -1):
            where = long.find(short[at : at + size], start)
            if where >= 0:
                best = (where, where + size)
                break
        if best is None:
            return None
        found.append(best)
        at += best[1] - best[0]
        start = best[1]
    return found


def doings(text: str) -> list[tuple[str, str]]:
    """(subject key, stem) for each doing an English passive clause holds: its participle and, after `by`,
    its means (`Hotfix branches are merged by fast-forward`: `merg`, `fast-forward`)."""
    found: list[tuple[str, str]] = []
    for tokens in clauses(text):
        clause = parse_clause(tokens)
        if not content(clause.subject) or clause.owner or clause.negated:
            continue
        rest = strip(tokens[len(clause.subject) :], LEADING)
        if not rest or not verb(rest[0]):
            continue
        subject = _noun_key(strip(clause.subject, LEADING))
        found.append((subject, stem(rest[0].text)))
        if len(rest) > 2 and rest[1].text == "by" and not rest[2].han:
            found.append((subject, stem(rest[2].text)))
    return found


def doing_denied(done: tuple[str, str], denied: frozenset[str]) -> bool:
    """A denied value is the doing `done` in another inflection, alone or with the stored subject after it."""
    return "" in _objects(done[1], denied, done[0])


def doing_elsewhere(value: str, subject: str, denied: frozenset[str]) -> bool:
    """Every denial of the doing `value` names an object that is not `subject` (`we stopped polling the status
    page` beside `Translations are synced by polling`): it is about another thing done that way."""
    # the value unchanged before a noun is its modifier (`trunk-based branching`), no doing; a gerund stays one
    denied_doings = frozenset(gone for gone in denied if value.endswith("ing") or not gone.startswith(value))
    found = _objects(stem(value), denied_doings, _noun_key_of(subject))
    return bool(found) and "" not in found


def _objects(root: str, denied: frozenset[str], subject: str) -> set[str]:
    """For each denied value that is the doing `root` inflected: the words after it, "" when none or when they
    are `subject`."""
    found: set[str] = set()
    if len(root) < 3:
        return found
    for gone in denied:
        if not gone.startswith(root):
            continue
        rest = gone[len(root) :]
        if not rest.isascii():
            continue  # `Pulsar 那套`: no English doing with its object
        for inflection in ("ing", "ed", "es", "s", "e", ""):
            if rest.startswith(inflection):
                after = _noun_key_of(rest[len(inflection) :])
                if inflection or not after:  # a word that only starts with the root is no form of it
                    found.add("" if after in ("", subject) else after)
                break
    return found


def _noun_key(tokens: list[Token]) -> str:
    return _noun_key_of(key(tokens))


def _noun_key_of(joined: str) -> str:
    return singular(joined.removeprefix("the"))


# the closed classes of words that open or close a condition clause (`When the build breaks,`, `发布失败时，`)
_EN_CONDITION = frozenset(["when", "whenever", "if", "unless"])
_ZH_CONDITION_OPEN = frozenset(["如果", "假如", "要是", "每当", "一旦", "若"])
_ZH_CONDITION_CLOSE = frozenset(["时", "时候", "的时候"])


def condition_of(tokens: list[Token]) -> str:
    """The key of a condition clause (without its conjunction), or "" when the clause is none."""
    if not tokens:
        return ""
    words = [t.text for t in tokens]
    if words[0] in _EN_CONDITION or words[0] in _ZH_CONDITION_OPEN:
        words = words[1:]
    elif tokens[-1].han and words[-1] in _ZH_CONDITION_CLOSE:
        words = words[:-1]
    else:
        return ""
    kept = [word.replace(" ", "") for word in words if word not in LEADING and word != "的"]
    return "".join(kept)


# how a passive clause or a Chinese means clause says the thing is done: `are scanned with X`, `用 X 检查`
_MEANS_PREPOSITIONS = frozenset(["with", "by", "via", "using", "through", "in", "on", "from", "at"])
_ZH_MEANS = frozenset(["用", "使用", "采用", "通过", "靠"])
# the closed class of verbs of making: each names the one slot of what makes the subject (`built with` A,
# `generated by` B, `用 A 构建`, `用 B 生成`), unlike a verb done to a subject that exists (`scanned`, `linted`)
_MAKING_EN = frozenset(
    ["build", "built", "generate", "produce", "compile", "bundle", "render", "create", "make", "made"]
)
_MAKING_ZH = frozenset(["构建", "生成", "打包", "编译", "产出", "制作", "渲染", "创建"])
MAKING = "make"


def doing_of(tokens: list[Token]) -> str:
    """The verb that links a bare subject to its value (`tokens`: the clause after its subject), or "": the
    participle of `are scanned with X` (not of `is set to X`: `to` is the target of a change verb), or the
    Chinese verb after the means and a name in `用 X 检查`; a verb of making is `MAKING` in any of its words.
    Two facts on one subject with different doings set two slots of it."""
    rest = [t for t in tokens if t.value or t.text not in w.GENERIC]
    if len(rest) >= 3 and rest[0].text in w.EN_BE and rest[2].text in _MEANS_PREPOSITIONS:
        done = rest[1]
        if not done.latin or done.value or done.text in w.EN_BE:
            return ""
        return MAKING if stem(done.text) in _MAKING_STEMS else stem(done.text)
    for i, token in enumerate(rest):
        if token.text in _ZH_MEANS and not token.value:
            after = [t for t in rest[i + 1 :] if t.text not in w.ZH_ASPECT]
            if len(after) < 2 or not after[-1].han or after[-1].value or any(t.han for t in after[:-1]):
                return ""  # `用的是 X`, `用 X`: no verb after a name
            return MAKING if after[-1].text in _MAKING_ZH else after[-1].text
    return ""


_MAKING_STEMS = frozenset(stem(word) for word in _MAKING_EN)
