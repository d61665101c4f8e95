"""The usage notation of the command table, so that /help, completion, the argument check and the README's
command list all read one description of each command (issue 44 item 8, issue 37).

A usage after the command word is a small grammar: a bare word is literal (`list`, `--all`, matched without
regard to case), `<name>` is a placeholder for one word (the last one of a usage takes the rest of the line),
`[...]` is optional, `(...)` groups, and `|` separates alternatives inside a group or at the top level:
`list [--all]`, `history <id>`, `[--global|--project] [--force] <事实>`, `(resources|prompts) [<名称>]`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TOKEN = re.compile(r"<[^>]*>|[\[\]()|]|[^\s\[\]()|<>]+")


@dataclass(frozen=True)
class Form:
    """One advertised way to call a command: what follows the command word, and what it does."""

    args: str
    description: str


@dataclass(frozen=True)
class Word:
    text: str


@dataclass(frozen=True)
class Slot:
    name: str
    rest: bool = False  # the usage's last placeholder: it takes the rest of the line


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    options: tuple[Node, ...]


@dataclass(frozen=True)
class Opt:
    body: Node


Node = Word | Slot | Seq | Alt | Opt


class UsageError(ValueError):
    """A usage string that does not follow the notation (a table row or a README line with a typo)."""


def parse_usage(usage: str) -> Node:
    tokens = _TOKEN.findall(usage)
    node, end = _alternatives(tokens, 0)
    if end != len(tokens):
        raise UsageError(f"unexpected {tokens[end]!r} in usage {usage!r}")
    return _mark_rest(node)


def _alternatives(tokens: list[str], at: int) -> tuple[Node, int]:
    options: list[Node] = []
    while True:
        items: list[Node] = []
        while at < len(tokens) and tokens[at] not in "|])":
            item, at = _item(tokens, at)
            items.append(item)
        options.append(Seq(tuple(items)))
        if at < len(tokens) and tokens[at] == "|":
            at += 1
            continue
        return (options[0] if len(options) == 1 else Alt(tuple(options))), at


def _item(tokens: list[str], at: int) -> tuple[Node, int]:
    token = tokens[at]
    if token in "[(":
        body, end = _alternatives(tokens, at + 1)
        closing = "]" if token == "[" else ")"
        if end >= len(tokens) or tokens[end] != closing:
            raise UsageError(f"{token!r} without {closing!r}")
        return (Opt(body) if token == "[" else body), end + 1
    if token.startswith("<"):
        return Slot(token[1:-1].strip()), at + 1
    return Word(token), at + 1


def _mark_rest(node: Node) -> Node:
    """The trailing placeholder of the top-level sequence takes the rest of the line (`<事实>`, `<关键词>`)."""
    if isinstance(node, Seq) and node.items and isinstance(node.items[-1], Slot):
        last = node.items[-1]
        return Seq((*node.items[:-1], Slot(last.name, rest=True)))
    return node


def matches(usage: str, args: str) -> bool:
    """Whether the arguments `args` (the text after the command word) fit the usage."""
    words = args.split()
    return len(words) in _ends(parse_usage(usage), words, 0)


def _ends(node: Node, words: list[str], at: int) -> set[int]:
    """Every position the match of `node` starting at `at` can end at."""
    if isinstance(node, Word):
        return {at + 1} if at < len(words) and words[at].lower() == node.text.lower() else set()
    if isinstance(node, Slot):
        if at >= len(words):
            return set()
        return {len(words)} if node.rest else {at + 1}
    if isinstance(node, Opt):
        return {at} | _ends(node.body, words, at)
    if isinstance(node, Alt):
        return set().union(*(_ends(option, words, at) for option in node.options))
    positions = {at}
    for item in node.items:
        positions = set().union(*(_ends(item, words, p) for p in positions)) if positions else set()
    return positions


def first_words(usage: str) -> list[tuple[str, bool]]:
    """The literal words a usage can start with, each with whether something must follow it
    (`history <id>` -> [("history", True)]; `list [--all]` -> [("list", False)])."""
    starts: list[tuple[str, bool]] = []
    _starts(parse_usage(usage), (), starts)
    return starts


def _starts(node: Node, after: tuple[Node, ...], out: list[tuple[str, bool]]) -> None:
    if isinstance(node, Word):
        entry = (node.text, not all(_nullable(n) for n in after))
        if entry not in out:
            out.append(entry)
    elif isinstance(node, Alt):
        for option in node.options:
            _starts(option, after, out)
    elif isinstance(node, Opt):
        _starts(node.body, after, out)
        if after:
            _starts(after[0], after[1:], out)
    elif isinstance(node, Seq) and node.items:
        _starts(node.items[0], (*node.items[1:], *after), out)


def _nullable(node: Node) -> bool:
    if isinstance(node, Opt):
        return True
    if isinstance(node, Word | Slot):
        return False
    if isinstance(node, Alt):
        return any(_nullable(option) for option in node.options)
    return all(_nullable(item) for item in node.items)
