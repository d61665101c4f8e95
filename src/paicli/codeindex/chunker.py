"""A file's chunks, symbols, calls and imports, from its tree-sitter tree (a file of another kind, or one whose
grammar is missing, becomes windows of lines). A function or method is one chunk; a class's own lines (up to
its first member) are another; the lines between definitions form module chunks; anything long is cut into
windows that keep its symbol."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from paicli.codeindex.languages import GRAMMARS, SUFFIX_LANGUAGE, Grammar, parser_for

WINDOW_LINES = 60
LONG_CHUNK_LINES = 120
CLASS_HEADER_LINES = 40
_VALUE_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")


@dataclass(frozen=True)
class Chunk:
    start: int  # 1-based, inclusive
    end: int
    symbol: str  # qualified (Class.method); "" for module lines
    kind: str  # function / method / class / module / text
    text: str
    calls: tuple[str, ...] = ()


@dataclass(frozen=True)
class Symbol:
    name: str
    qualified: str
    kind: str
    line: int


@dataclass
class Parsed:
    language: str
    chunks: list[Chunk] = field(default_factory=list)
    symbols: list[Symbol] = field(default_factory=list)
    imports: list[str] = field(default_factory=list)


def language_of(relative: str) -> str:
    return SUFFIX_LANGUAGE.get(PurePosixPath(relative).suffix.lower(), "text")


def parse_file(relative: str, text: str) -> Parsed:
    language = language_of(relative)
    lines = text.splitlines()
    parser = parser_for(language) if language in GRAMMARS else None
    if parser is None:
        return Parsed("text", _windows(lines, 1, len(lines), "", "text"))
    tree = parser.parse(text.encode("utf-8", "surrogateescape"))
    walk = _Walk(GRAMMARS[language], lines)
    walk.visit(tree.root_node, "")
    return walk.result(language)


def _windows(lines: list[str], start: int, end: int, symbol: str, kind: str) -> list[Chunk]:
    """Lines start..end (1-based) as chunks of at most WINDOW_LINES, blank runs left out."""
    chunks = []
    line = start
    while line <= end:
        last = min(end, line + WINDOW_LINES - 1)
        body = "\n".join(lines[line - 1 : last])
        if any(ch.isalnum() for ch in body):  # a lone closing brace is no chunk
            chunks.append(Chunk(line, last, symbol, kind, body))
        line = last + 1
    return chunks


def _text(node: Any) -> str:
    raw: bytes = node.text or b""
    return raw.decode("utf-8", "replace")


def _called_name(node: Any) -> str:
    names = _NAME.findall(re.sub(r"<[^<>]*>", "", _text(node))[:200])
    return names[-1] if names else ""


class _Walk:
    def __init__(self, grammar: Grammar, lines: list[str]) -> None:
        self.grammar = grammar
        self.lines = lines
        self.spans: list[tuple[int, int, str, str]] = []  # start, end, symbol, kind
        self.symbols: list[Symbol] = []
        self.imports: list[str] = []
        self.calls: list[tuple[int, str]] = []  # line, name

    def visit(self, node: Any, container: str, in_function: bool = False) -> None:
        for child in node.named_children:
            kind = child.type
            if kind in self.grammar.imports:
                self.imports.append(_text(child).splitlines()[0][:200] if _text(child) else "")
                continue
            if kind in self.grammar.calls:
                target = child.child_by_field_name(self.grammar.calls[kind])
                if target is not None and (name := _called_name(target)):
                    self.calls.append((child.start_point[0] + 1, name))
            name_node = child.child_by_field_name("name") if kind in self.grammar.definitions else None
            if name_node is not None:
                self._definition(child, _text(name_node), container, in_function)
            elif self.grammar.variable_functions and kind == "variable_declarator":
                self._variable(child, container)
            else:
                self.visit(child, container, in_function)

    def _start(self, node: Any) -> int:
        """The first line of a definition: its decorators, and the comments right above it (a Javadoc, a JSDoc
        block, `#` lines) belong to it."""
        parent = node.parent
        if parent is not None and parent.type in ("decorated_definition", "export_statement"):
            node = parent
        row = int(node.start_point[0])
        previous = node.prev_named_sibling
        while previous is not None and "comment" in previous.type and int(previous.end_point[0]) >= row - 1:
            row = int(previous.start_point[0])
            previous = previous.prev_named_sibling
        return row + 1

    def _definition(self, node: Any, name: str, container: str, in_function: bool) -> None:
        qualified = f"{container}.{name}" if container else name
        start, end = self._start(node), int(node.end_point[0]) + 1
        if node.type in self.grammar.containers:
            self.symbols.append(Symbol(name, qualified, "class", start))
            before = len(self.spans)
            self.visit(node, qualified)
            members = [span[0] for span in self.spans[before:]]
            header_end = min([end, start + CLASS_HEADER_LINES - 1] + [m - 1 for m in members])
            self.spans.append((start, max(start, header_end), qualified, "class"))
            return
        kind = "method" if container and not in_function else "function"
        self.symbols.append(Symbol(name, qualified, kind, start))
        self.spans.append((start, end, qualified, kind))
        self.visit(node, qualified, True)  # calls inside; nested definitions stay in this chunk's lines

    def _variable(self, node: Any, container: str) -> None:
        value = node.child_by_field_name("value")
        name_node = node.child_by_field_name("name")
        if value is None or name_node is None or value.type not in _VALUE_FUNCTIONS:
            self.visit(node, container)
            return
        holder = node.parent if node.parent is not None else node
        name = _text(name_node)
        qualified = f"{container}.{name}" if container else name
        start, end = int(holder.start_point[0]) + 1, int(holder.end_point[0]) + 1
        self.symbols.append(Symbol(name, qualified, "function", start))
        self.spans.append((start, end, qualified, "function"))
        self.visit(node, container)

    def result(self, language: str) -> Parsed:
        chunks: list[Chunk] = []
        covered = [False] * (len(self.lines) + 2)
        top_level = self._outermost()
        for start, end, _, _ in top_level + [s for s in self.spans if s[3] == "class"]:
            for line in range(start, min(end, len(self.lines)) + 1):
                covered[line] = True
        for start, end, symbol, kind in self.spans:
            if kind == "class" or (start, end, symbol, kind) in top_level:
                chunks.extend(self._cut(start, end, symbol, kind))
        run_start = None
        for line in range(1, len(self.lines) + 2):
            free = line <= len(self.lines) and not covered[line]
            if free and run_start is None:
                run_start = line
            elif not free and run_start is not None:
                chunks.extend(_windows(self.lines, run_start, line - 1, "", "module"))
                run_start = None
        chunks.sort(key=lambda chunk: (chunk.start, chunk.end))
        return Parsed(language, self._with_calls(chunks), self.symbols, [i for i in self.imports if i])

    def _outermost(self) -> list[tuple[int, int, str, str]]:
        """Function and method spans not inside another function's (a nested function stays in its parent)."""
        functions = sorted((s for s in self.spans if s[3] != "class"), key=lambda s: (s[0], -s[1]))
        kept: list[tuple[int, int, str, str]] = []
        for span in functions:
            if kept and span[0] >= kept[-1][0] and span[1] <= kept[-1][1]:
                continue
            kept.append(span)
        return kept

    def _cut(self, start: int, end: int, symbol: str, kind: str) -> list[Chunk]:
        end = min(end, len(self.lines))
        if end - start + 1 <= LONG_CHUNK_LINES:
            return [Chunk(start, end, symbol, kind, "\n".join(self.lines[start - 1 : end]))]
        return _windows(self.lines, start, end, symbol, kind)

    def _with_calls(self, chunks: list[Chunk]) -> list[Chunk]:
        by_chunk: dict[int, list[str]] = {}
        for line, name in self.calls:
            inside = [i for i, c in enumerate(chunks) if c.start <= line <= c.end]
            if inside:
                best = min(inside, key=lambda i: chunks[i].end - chunks[i].start)
                by_chunk.setdefault(best, []).append(name)
        return [
            Chunk(c.start, c.end, c.symbol, c.kind, c.text, tuple(dict.fromkeys(by_chunk.get(i, []))))
            for i, c in enumerate(chunks)
        ]
