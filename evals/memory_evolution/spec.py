"""The vocabulary of the generated cases: subjects, phrasing families and the parts of a half.

A half is subjects x phrasing families x turn wrappers x questions; the dev half and the test half share none
of them. Templates use these placeholders:

- `{S}` the subject term (the language's full or short form), `{Scap}` the same with a capital first letter;
- `{V}` the value the statement gives, `{O}` the value it says is no longer true (the current truth's);
- `{BE}` / `{NOT}` the subject's Chinese verb and its negation (是 / 不是, 在 / 不在, 用 / 不用);
- `{EBE}` / `{ENOT}` / `{EIT}` the English ones (is / is not / it's; is in / is not in / it's in);
- `{Q}` (neighbour templates only) the other component or other project the neighbour fact is about.

Languages: `zh` (Chinese frame and terms), `en` (English), `mix` (code-switched: the English subject term with
Chinese values, in a Chinese or an English frame).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

Lang = Literal["zh", "en", "mix"]
# `aside`: a statement on the subject that changes nothing (a question, another component, a hypothetical, a
# denial of a value never held); `restate`: the current value said again beside a value it never was
Kind = Literal["state", "update", "update_old", "return", "negate", "negate_replace", "aside", "restate"]
LANGS: tuple[Lang, ...] = ("zh", "en", "mix")


@dataclass(frozen=True)
class Subject:
    key: str
    zh: str
    zh_alt: str  # a shorter or otherwise different way to name it (the head, a common abbreviation)
    en: str
    en_alt: str
    zh_be: str
    zh_not: str
    en_be: str
    en_not: str
    en_it: str
    values: tuple[tuple[str, str], ...]  # (Chinese form, English form); at least three
    others: tuple[tuple[str, str], ...]  # near-duplicate owners: another component, another project
    q_zh: str
    q_en: str
    q_mix: str
    # A subject of another frame (`role`: a thing someone is responsible for, its values people) is told only in
    # the families of its frame and gets its bystanders from subjects of its frame; "" is the plain `S is V` frame.
    frame: str = ""
    # Statements that must stay true through the chain (bystanders of this subject; `{A}` is the chain's first
    # value): (zh, en, mix) templates.
    lookalikes: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True)
class Family:
    id: str
    kind: Kind
    lang: Lang
    text: str
    frame: str = ""


@dataclass(frozen=True)
class Half:
    name: str
    subjects: tuple[Subject, ...]
    families: tuple[Family, ...]
    wrappers: dict[Lang, tuple[str, ...]]  # how a statement sits in a user's turn (`{X}` is the statement)
    remember: dict[Lang, str]  # the turn that asks the model to save it (the save_memory path)
    neighbour: dict[Lang, str]  # a near-duplicate fact about another component or project
    # The grid is generated `passes` times; with `spread`, each (language, kind) takes its families in turn
    # instead of by the case's index, so a half with more families than steps of a kind still runs every one.
    passes: int = 1
    spread: bool = False
    # a near-duplicate fact per frame other than "" (`{Q}` there is the whole look-alike subject)
    frame_neighbour: dict[str, dict[Lang, str]] = field(default_factory=dict)
    # the chain shapes this half runs (`cases.SHAPES` keys; empty: the original eight) and its write-path
    # patterns (empty: `cases.PATH_PATTERNS`)
    shapes: tuple[str, ...] = ()
    paths: tuple[tuple[str, ...], ...] = ()

    def families_of(self, lang: Lang, kind: Kind, frame: str = "") -> tuple[Family, ...]:
        return tuple(f for f in self.families if f.lang == lang and f.kind == kind and f.frame == frame)

    def neighbour_of(self, frame: str, lang: Lang) -> str:
        return self.frame_neighbour[frame][lang] if frame else self.neighbour[lang]
