"""Case generation: subjects x values x phrasing families x languages x chain shapes x write paths.

Deterministic (no randomness): everything rotates on the case's index, so a run is reproducible and each family,
wrapper and path is used about equally often. A case lives in its own project: a few facts of other subjects
(bystanders) and, for every other case, near-duplicates on the same subject about another component or project
(neighbours) are saved first with /save, then the chain of statements, then the question.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from evals.memory_evolution.spec import LANGS, Half, Kind, Lang, Subject

Path = Literal["save", "tool", "auto"]
Role = Literal["chain", "neighbour", "bystander"]

# (kind, index of the value it states; None for a negation); the value a step drops is the current truth's
SHAPES: dict[str, tuple[tuple[Kind, int | None], ...]] = {
    "return": (("state", 0), ("update", 1), ("return", 0)),
    "three": (("state", 0), ("update", 1), ("update", 2)),
    "old": (("state", 0), ("update_old", 1), ("update", 2)),
    "old2": (("state", 0), ("update", 1), ("update_old", 2)),
    "negate": (("state", 0), ("negate", None), ("update", 1)),
    "negrep": (("state", 0), ("negate_replace", 1), ("return", 0)),
    "long": (("state", 0), ("update", 1), ("update_old", 2), ("return", 0)),
    "negend": (("state", 0), ("update", 1), ("negate", None)),
    # look-alikes of a negation that must leave the current truth alone (round 12): the last step is `aside`
    # (its value slot holds the one value the chain never states) or `restate` (the truth again, beside that value)
    "aside": (("state", 0), ("update", 1), ("aside", 2)),
    "contrast": (("state", 0), ("update", 1), ("restate", 1)),
}
DEFAULT_SHAPES = ("return", "three", "old", "old2", "negate", "negrep", "long", "negend")
ASIDE = "~aside"  # the owner of an aside statement's meaning: never the chain's topic
PATH_PATTERNS: tuple[tuple[Path, ...], ...] = (("save",), ("tool",), ("auto",), ("save", "auto", "tool"))

_V, _V_END, _O, _O_END, _N, _N_END = "\x01", "\x02", "\x03", "\x04", "\x05", "\x06"
_MARKS = re.compile("[\x01-\x06]")
_HAN = "\u3400-\u9fff"


@dataclass(frozen=True)
class Meaning:
    """What a statement says, for the oracle: the same (topic, value, negated) is the same fact."""

    subject: str
    owner: str  # "" for this project's own subject; the other component or project for a neighbour
    value: str
    negated: bool
    span: str  # the exact words that carry the value (for a negation: from the negation to the value)

    @property
    def topic(self) -> tuple[str, str]:
        return self.subject, self.owner


@dataclass(frozen=True)
class Statement:
    text: str  # the fact as the user states it: saved by /save and save_memory, quoted by the extractor
    turn: str  # the user's turn that carries it (auto: a remark in a turn; tool: a request to remember)
    path: Path
    role: Role
    family: str
    meaning: Meaning
    expect: Meaning | None = None  # what must hold after it when that is not its own meaning (an aside)

    @property
    def expected(self) -> Meaning:
        return self.expect or self.meaning


@dataclass(frozen=True)
class Case:
    id: str
    half: str
    lang: Lang
    subject: str
    shape: str
    project: str
    setup: tuple[Statement, ...]
    chain: tuple[Statement, ...]
    question: str

    @property
    def final(self) -> Meaning:
        return self.chain[-1].expected

    @property
    def paths(self) -> set[Path]:
        return {s.path for s in self.chain}


def _term(subject: Subject, lang: Lang, short: bool) -> str:
    if lang == "zh":
        return subject.zh_alt if short else subject.zh
    return subject.en_alt if short else subject.en


def _value(subject: Subject, lang: Lang, index: int) -> str:
    zh, en = subject.values[index % len(subject.values)]
    return en if lang == "en" else zh


def _space_han_ascii(text: str) -> str:
    """`用PostgreSQL 15` -> `用 PostgreSQL 15` (how many people type mixed text; markers stay where they were)."""
    text = re.sub(rf"([{_HAN}])([\x01-\x06]*)([A-Za-z0-9/])", r"\1 \2\3", text)
    return re.sub(rf"([A-Za-z0-9/.])([\x01-\x06]*)([{_HAN}])", r"\1\2 \3", text)


def render(template: str, fields: dict[str, str], spaced: bool) -> tuple[str, str, str]:
    """(text, value span, negated-value span) with the markers removed."""
    marked = template.format(
        **{
            **fields,
            "V": _V + fields.get("V", "") + _V_END,
            "O": _O + fields.get("O", "") + _O_END,
            "NOT": _N + fields.get("NOT", "") + _N_END,
            "ENOT": _N + fields.get("ENOT", "") + _N_END,
        }
    )
    if spaced:
        marked = _space_han_ascii(marked)
    text = _MARKS.sub("", marked)
    value = _between(marked, _V, _V_END)
    negation_start = marked.find(_N)
    old_end = marked.find(_O_END)
    negated = ""
    if negation_start >= 0 and old_end > negation_start:
        negated = _MARKS.sub("", marked[negation_start:old_end])
    elif old_end >= 0 and "{V}" not in template:  # `{O} is no longer the {S}`
        negated = _between(marked, _O, _O_END)
    return text, value, negated


def _between(marked: str, start: str, end: str) -> str:
    i, j = marked.find(start), marked.find(end)
    return marked[i + 1 : j] if 0 <= i < j else ""


def _fields(subject: Subject, lang: Lang, short: bool) -> dict[str, str]:
    term = _term(subject, lang, short)
    return {
        "S": term,
        "Scap": term[:1].upper() + term[1:],
        "BE": subject.zh_be,
        "NOT": subject.zh_not,
        "EBE": subject.en_be,
        "ENOT": subject.en_not,
        "EIT": subject.en_it,
    }


def _turn(half: Half, lang: Lang, path: Path, text: str, rotation: int) -> str:
    if path == "tool":
        return half.remember[lang].format(X=text)
    wrappers = half.wrappers[lang]
    wrapper = wrappers[rotation % len(wrappers)]
    statement = text
    if lang == "en" and wrapper != "{X}" and not statement.endswith((".", "!")):
        statement += "."
    return wrapper.format(X=statement)


def _chain(
    half: Half,
    subject: Subject,
    lang: Lang,
    shape: str,
    index: int,
    short_ok: bool,
    turns: dict[tuple[Lang, Kind, str], int],
) -> list[Statement]:
    steps = SHAPES[shape]
    patterns = _path_patterns(half)
    pattern = patterns[index % len(patterns)]
    offset = index % len(subject.values)
    spaced = index % 2 == 0
    truth: int | None = None  # index of the value currently true (None after a negation)
    statements: list[Statement] = []
    unused = next((k for k in range(len(subject.values)) if k not in {v for _, v in steps}), 0)
    for step, (kind, value) in enumerate(steps):
        families = half.families_of(lang, kind, subject.frame)
        turn = turns.get((lang, kind, subject.frame), 0)
        turns[(lang, kind, subject.frame)] = turn + 1
        family = families[(turn if half.spread else index + step) % len(families)]
        short = short_ok and step > 0 and (index + step) % 3 == 0
        fields = _fields(subject, lang, short)
        if value is not None:
            fields["V"] = _value(subject, lang, value + offset)
        dropped = truth if truth is not None else 0
        fields["O"] = _value(subject, lang, dropped + offset)
        if kind == "restate":
            fields["O"] = _value(subject, lang, unused + offset)
        text, span, negated = render(family.text, fields, spaced)
        expect = None
        if kind == "aside":
            meaning = Meaning(subject.key, ASIDE, text, False, text)
            expect = statements[-1].expected
        elif kind == "negate":
            meaning = Meaning(subject.key, "", fields["O"], True, negated)
        else:
            assert value is not None
            meaning = Meaning(subject.key, "", fields["V"], False, span)
            truth = value
        path = pattern[step % len(pattern)]
        turn = _turn(half, lang, path, text, index + step)
        statements.append(Statement(text, turn, path, "chain", family.id, meaning, expect))
    return statements


def _path_patterns(half: Half) -> tuple[tuple[Path, ...], ...]:
    if not half.paths:
        return PATH_PATTERNS
    known: tuple[Path, ...] = ("save", "tool", "auto")
    return tuple(tuple(next(p for p in known if p == name) for name in pattern) for pattern in half.paths)


def _shapes(half: Half) -> tuple[str, ...]:
    return half.shapes or DEFAULT_SHAPES


def _setup(half: Half, subject: Subject, lang: Lang, index: int, neighbours: bool) -> list[Statement]:
    found: list[Statement] = []
    others = [s for s in half.subjects if s.key != subject.key and s.frame == subject.frame]
    state = half.families_of(lang, "state", subject.frame)[0]
    for k in range(2):  # bystanders: facts of other subjects in the same project
        other = others[(index + 3 * k) % len(others)]
        fields = _fields(other, lang, False)
        fields["V"] = _value(other, lang, index + k)
        text, span, _ = render(state.text, fields, index % 2 == 0)
        meaning = Meaning(other.key, "", fields["V"], False, span)
        found.append(Statement(text, text, "save", "bystander", state.id, meaning))
    for k, template in enumerate(subject.lookalikes):  # must stay true whatever the chain says
        fields = {"A": _value(subject, lang, index % len(subject.values))}
        raw = template[LANGS.index(lang)].format(**fields)
        text = _space_han_ascii(raw) if index % 2 == 0 else raw
        meaning = Meaning(f"{subject.key}-alike{k}", "", text, False, text)
        found.append(Statement(text, text, "save", "bystander", f"{half.name}-alike", meaning))
    if not neighbours:
        return found
    for k, (owner_zh, owner_en) in enumerate(
        subject.others
    ):  # near-duplicates: other component, other project
        owner = owner_en if lang == "en" else owner_zh
        fields = _fields(subject, lang, False)
        fields["Q"] = owner
        fields["V"] = _value(subject, lang, k + index % len(subject.values))
        text, span, _ = render(half.neighbour_of(subject.frame, lang), fields, index % 2 == 0)
        meaning = Meaning(subject.key, owner, fields["V"], False, span)
        found.append(Statement(text, text, "save", "neighbour", f"{half.name}-neighbour", meaning))
    return found


def question(subject: Subject, lang: Lang) -> str:
    return {"zh": subject.q_zh, "en": subject.q_en, "mix": subject.q_mix}[lang]


def generate(half: Half) -> list[Case]:
    cases: list[Case] = []
    for frame in dict.fromkeys(s.frame for s in half.subjects):  # each frame's grid is rotated on its own
        cases.extend(_generate(half, frame))
    return cases


def _generate(half: Half, frame: str) -> list[Case]:
    cases: list[Case] = []
    turns: dict[tuple[Lang, Kind, str], int] = {}
    grid = list(_grid(half, frame))
    for run in range(half.passes):
        for position, (lang, subject, shape) in enumerate(grid):
            # `position // len(shapes)` decorrelates shape from path pattern and neighbours; a later pass shifts
            # the rotation by one so paths, neighbours and short forms land on other cases
            index = position + position // len(_shapes(half)) + run
            neighbours = index % 2 == 0
            tag = f"-p{run + 1}" if run else ""
            case_id = f"{half.name}-{lang}-{subject.key}-{shape}{tag}"
            cases.append(
                Case(
                    case_id,
                    half.name,
                    lang,
                    subject.key,
                    shape,
                    f"/memevolve-eval/{half.name}/{lang}/{subject.key}/{shape}{tag}",
                    tuple(_setup(half, subject, lang, index, neighbours)),
                    tuple(_chain(half, subject, lang, shape, index, not neighbours, turns)),
                    question(subject, lang),
                )
            )
    return cases


def _grid(half: Half, frame: str) -> Iterator[tuple[Lang, Subject, str]]:
    for lang in LANGS:
        for subject in (s for s in half.subjects if s.frame == frame):
            for shape in _shapes(half):
                yield lang, subject, shape
