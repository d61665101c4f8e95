"""The words of a responsibility statement in their classes (`role_words`), for `claim_roles`; and the normal
form of a thing held, shared with the general parser's subjects (`subject.py`).

Chinese runs are cut at the words of the lexicon, longest first, not by jieba: its cut glues a marker to a name
(`表由`, `陈晨管`, `不归`). English multi-word duties (`looks after`, `took over`) are one item; a base or -ing form
is a verb only after an auxiliary or negator (elsewhere `review` is a noun).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from paicli.memory import role_words as r
from paicli.memory.claim_tokens import Token
from paicli.memory.subject_words import EN_DETERMINERS

_ZH_LEXICON: dict[str, tuple[r.Kind | None, str]] = {
    **{word: ("duty", duty) for word, duty in r.ZH_DUTY.items()},
    **{word + suffix: ("agent", duty) for word, duty in r.ZH_DUTY.items() for suffix in r.ZH_AGENT_SUFFIXES},
    **{word: ("task", "") for word in r.ZH_TASK},
    **{word: ("take", "") for word in r.ZH_TAKE},
    **{word: ("give", "") for word in r.ZH_GIVE},
    **{word: ("change", "") for word in r.ZH_CHANGE},
    **{word: ("neg", "") for word in r.ZH_NEGATORS},
    **{word: (kind, "") for word, kind in r.ZH_WORDS.items()},
    **{word: (None, "") for word in r.ZH_LEXICAL},
}
_ZH_LONGEST = max(len(word) for word in _ZH_LEXICON)
_ZH_LONGEST = max(len(word) for word in _ZH_LEXICON)


@dataclass(frozen=True)
class Item:
    token: Token
    kind: r.Kind | None = None  # None: a content word (part of a thing or a name)
    duty: str = ""


def _zh_items(run: str) -> list[Item]:
    """A run of Han text cut at the words of the lexicon (longest first); what lies between is content. jieba's
    cut is not used here: it glues a marker to a name (`表由`, `陈晨管`, `不归`)."""
    items: list[Item] = []
    content = ""
    i = 0
    while i < len(run):
        found = next(
            (
                run[i : i + n]
                for n in range(min(_ZH_LONGEST, len(run) - i), 0, -1)
                if run[i : i + n] in _ZH_LEXICON
            ),
            None,
        )
        kind: r.Kind | None = None
        duty = ""
        if found is None and run[i] in r.ZH_CLITICS and i + 1 < len(run) and _zh_word_at(run, i + 1):
            found, kind = run[i], "aux"  # `还管着`, `在管`, `来审批`: right before a word of the lexicon
        elif found is not None:
            kind, duty = _ZH_LEXICON[found]
        if found is None or kind is None:
            content += found or run[i]
            i += len(found or run[i])
            continue
        if content:
            items.append(Item(Token(content)))
            content = ""
        items.append(Item(Token(found), kind, duty))
        i += len(found)
    if content:
        items.append(Item(Token(content)))
    return items


def _zh_word_at(run: str, i: int) -> bool:
    return any(
        run[i : i + n] in _ZH_LEXICON and _ZH_LEXICON[run[i : i + n]][0] is not None
        for n in range(1, _ZH_LONGEST + 1)
    )


def _en_item(tokens: list[Token], i: int) -> tuple[Item, int]:
    """The item at `i` and how many tokens it takes (multi-word duties: `looks after`, `took over`)."""
    words = tuple(t.text for t in tokens[i : i + 3])
    for phrase, duty in r.EN_DUTY_PHRASES:
        if words[: len(phrase)] == phrase:
            return Item(Token(" ".join(phrase)), "duty", duty), len(phrase)
    if words[:2] in r.EN_TAKE_PHRASES:
        return Item(Token(" ".join(words[:2])), "take"), 2
    if words[:2] == ("used", "to"):
        return Item(Token("used to"), "old"), 2
    word = tokens[i].text
    before = tokens[i - 1].text if i > 0 else ""
    verb_form = word.endswith(("s", "ed", "en", "wrote")) or before in r.EN_VERB_LEADS
    if word in r.EN_DUTY and verb_form:
        return Item(tokens[i], "duty", r.EN_DUTY[word]), 1
    if word == "runs" and i + 1 < len(tokens) and tokens[i + 1].text in EN_DETERMINERS:
        return Item(tokens[i], "duty", r.OWN), 1
    if word in r.EN_AGENT:
        return Item(tokens[i], "agent", r.EN_AGENT[word]), 1
    if word in r.EN_BELONG and i + 1 < len(tokens) and tokens[i + 1].text == "to":
        return Item(Token(word + " to"), "belong"), 2
    if (word in r.EN_TASK and before == "'s") or word in r.EN_DUTY_NOUNS:
        return Item(tokens[i], "task"), 1
    if word in r.EN_GIVE and any(t.text == "to" for t in tokens[i + 1 :]):
        return Item(tokens[i], "give"), 1
    kind = r.EN_WORDS.get(word)
    return Item(tokens[i], kind), 1


def items_of(tokens: list[Token]) -> list[Item]:
    items: list[Item] = []
    i = 0
    while i < len(tokens):
        if tokens[i].han and not tokens[i].value:
            j = i
            while j < len(tokens) and tokens[j].han and not tokens[j].value:
                j += 1
            items.extend(_zh_items("".join(t.text for t in tokens[i:j])))
            i = j
            continue
        item, taken = (Item(tokens[i]), 1) if tokens[i].value else _en_item(tokens, i)
        items.append(item)
        i += taken
    return items


def agent_subject(
    han: str, latin: tuple[str, ...], owner: str, owner_tokens: list[Token]
) -> tuple[str, str] | None:
    """(thing, owner) when a subject the general parser read names the holder of a duty over a thing (`值班
    负责人`, `发布审批人`, `payment service owner`, `owner` of `the payment service`); None otherwise (a bare `审批人`
    names no thing)."""
    thing_han, thing_latin = han, latin
    if latin and latin[-1] in r.EN_AGENT:
        thing_latin = latin[:-1]
    else:
        agent = next((w + s for w in r.ZH_DUTY for s in r.ZH_AGENT_SUFFIXES if han.endswith(w + s)), None)
        if agent is None:
            return None
        thing_han = han[: -len(agent)]
    thing = held_thing(thing_han, thing_latin)
    if thing:
        return thing, owner
    if not owner:
        return None
    spelled = [t.text for t in owner_tokens if not t.han and t.text not in EN_DETERMINERS]
    words = tuple(part for text in spelled for part in re.split(r"[-./]", text) if part.isalnum())
    owner_han = "".join(ch for ch in owner if "\u3400" <= ch <= "\u9fff")
    return held_thing(owner_han, words), owner  # `the reviewer of the mobile app`: the owner is the thing


def match_held(a: tuple[str, str, str], b: tuple[str, str, str]) -> Literal["exact", "contains"] | None:
    """How two (owner, thing, duty) holdings meet: the same duty, owners alike (an owner that is the thing itself
    is none), and the same thing or one ending in the other (`docs` in `API docs`, `发布` in `后端发布`)."""
    if a[2] != b[2] or _qualifier(a[0], a[1]) != _qualifier(b[0], b[1]):
        return None
    head, held = sorted((a[1], b[1]), key=len)
    return "exact" if head == held else "contains" if head and held.endswith(head) else None


def _qualifier(owner: str, thing: str) -> str:
    return "" if thing_key(owner).startswith(thing) else owner  # `security review 的 owner`: its own thing


def held_thing(han: str, latin: tuple[str, ...]) -> str:
    """The key of a thing held, without a duty named after it as a noun (`发布审批` is 发布's approval, `security
    review` the security's review): `发布审批人`, `管发布审批` and `发布由 A 审批` are one thing."""
    duty = next((w for w in r.ZH_DUTY if han.endswith(w) and len(han) > len(w)), None)
    han = han[: -len(duty)] if duty is not None else han
    if len(latin) > 1 and latin[-1] in r.EN_DUTY_NOUN_TAILS:
        latin = latin[:-1]
    return thing_key(han + "".join(latin))


def thing_key(text: str) -> str:
    """The thing's Han characters, then its letters and digits (`on-call rota` and `oncallrota` are one thing)."""
    han = "".join(ch for ch in text if "\u3400" <= ch <= "\u9fff")
    return han + "".join(ch for ch in text if ch.isascii() and ch.isalnum())
