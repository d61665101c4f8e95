"""A return to an earlier value (issue 37): after `A`, then `B`, a fact that goes back to `A` supersedes `B`, the
current truth, and it is read through the value's own history, not through the current truth's wording.

A new fact returns from a stored truth T when, for a superseded fact E whose chain of supersession ends at T:

1. one clause of the new fact holds a value slot (`change_values`) that E held and T does not: the value the
   chain moved away from. The clause carries a word of return (`change_words.returns`: `again`, `back to`,
   又, 还是, 改回) or a change marker;
2. that clause shares a word with E or with T — any content word, a verb too, since the returning value
   already ties them (`we publish to X again` after `packages are published to X`) — and neither side keeps a
   word naming a thing the other lacks (`测试机还是 4 核` is not about `构建机`);
3. the statement neither asks nor plans (`should we go back to X?`, `we might use X again`), and the clause
   adds nothing (`X also handles it again`). Only the returning clause is read, so `B moved to another team;
   A approves deploys again` returns to A.

A bare return names no thing but the value and its words of return (`We're back on A`, `又切回 A 了`, `reverted
to A`): it ties weakly (score 1) to a chain whose earlier fact held that value, as a name slot or as a word the
current truth lacks. When two truths are returned from equally well the return is a guess: neither. Pure.
"""

from __future__ import annotations

from collections.abc import Sequence

from paicli.memory import change_words as cw
from paicli.memory import marked_change as mc
from paicli.memory.change_values import Slot
from paicli.memory.claim_tokens import fold
from paicli.memory.subject_words import EN_IRREGULAR_VERBS


def returning(text: str) -> bool:
    """Cheap first test (most writes fail it): a word of return or a change marker anywhere."""
    words = mc.words_of(text)
    return cw.returns(words) or cw.has_marker(words)


def score(earlier: str, current: str, incoming: str) -> int:
    """How well `incoming` returns from `current` to the value `earlier` held (0: not at all)."""
    whole = mc.whole(incoming)
    if cw.asks(fold(incoming)) or cw.unsure_or_intended(whole.raw):
        return 0
    old, now = mc.whole(earlier), mc.whole(current)
    gone = [slot for slot in old.slots if not _held(slot, now)]
    best = 0
    for window in mc.windows(incoming):
        if not (cw.returns(window.raw) or cw.has_marker(window.raw)) or cw.adds(window.raw):
            continue
        back = [slot for slot in gone if _held(slot, window)]
        if back:
            kinds = frozenset(kind for kind, _ in back)
            best = max(best, _tied(old, window, kinds), _tied(now, window, kinds))
        if not best and _bare(old, now, window):
            best = 1
    return best


def _bare(old: mc.Part, now: mc.Part, window: mc.Part) -> bool:
    """The window names only a value `old` held and `now` lacks, besides its words of return or change."""
    content = list(window.content)
    said = [
        word
        for i, word in enumerate(content)
        if not (
            cw.returns([word])
            or cw.has_marker([word])
            or word in EN_IRREGULAR_VERBS
            or (i + 1 < len(content) and cw.returns([word + content[i + 1]]))  # `又切` `回`
        )
    ]
    said += list(window.names)
    mine, theirs = (*old.content, *old.names), (*now.content, *now.names)
    gone = [a for a in mine if not any(cw.same_word(a, b) for b in theirs)]
    return bool(said) and all(any(cw.same_word(word, a) for a in gone) for word in said)


def pick(histories: Sequence[tuple[str, str, str]], incoming: str) -> str | None:
    """`histories`: (earlier fact, the truth its chain ends at, that truth's id). The id of the one truth
    `incoming` returns from; None when none, or when two are returned from equally well."""
    if not histories or not returning(incoming):
        return None
    best: dict[str, int] = {}
    for earlier, current, truth in histories:
        found = score(earlier, current, incoming)
        if found:
            best[truth] = max(best.get(truth, 0), found)
    if not best:
        return None
    top = max(best.values())
    winners = [truth for truth, found in best.items() if found == top]
    return winners[0] if len(winners) == 1 else None


def _held(slot: Slot, part: mc.Part) -> bool:
    """`part` holds the value: the same slot, or a name written in another form (`赵敏来` for `赵敏`)."""
    if slot in part.slots:
        return True
    kind, value = slot
    if kind != "name":
        return False
    return any(cw.same_word(value, word) for word in (*part.names, *part.content))


def _tied(old: mc.Part, new: mc.Part, kinds: frozenset[str]) -> int:
    """How many words the two share, verbs included; 0 when each names a thing the other lacks. One Chinese
    character is no tie: it is often a head the segmenter cut off another compound (`测试` `机` beside `打包机`)."""
    mine = [w for w in (*old.content, *old.units) if _whole_word(w)]
    theirs = [w for w in (*new.content, *new.units) if _whole_word(w)]
    shared = sum(1 for a in mine if any(cw.same_word(a, b) for b in theirs))
    if not shared or mc.contrasted(old, new, kinds):
        return 0
    return shared


def _whole_word(word: str) -> bool:
    return word.isascii() or len(word) > 1
