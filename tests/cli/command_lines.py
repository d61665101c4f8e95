"""Every command line paicli recommends, collected mechanically: the README's code spans, the /help lines, and
the `/word …` suggestions inside the product's user-facing strings (Chinese string literals and f-strings of
src/paicli, docstrings left out, and the prompt files). Each usage is expanded into concrete lines
(placeholders filled with sample values, every optional part with and without, every choice)."""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterator
from pathlib import Path

from paicli.cli.command_forms import Alt, Node, Opt, Seq, Slot, Word, parse_usage
from paicli.cli.command_table import BUILTIN
from paicli.cli.commands import CommandSpec
from tests.sources import parsed

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "paicli"
_HAN = re.compile(r"[\u3400-\u9fff]")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
# `/word` not inside a path or URL (`src/paicli/memory`, `https://x/model`)
_COMMAND = re.compile(r"(?<![\w/.:~\-{}])/([A-Za-z][\w-]*)")
_ARG = re.compile(r" (<[^>]*>|\[[^\]]*\]|\([^)]*\)|\{\}|\||[^\s，。；、（）()：:\"'`“”]+)")
_SUBCOMMAND_SLOTS = ("子命令", "subcommand")  # stands for the forms listed beside it, not for a value
SAMPLE_ID = "fact-1a2b3c4d"


def sample(slot: str, command: str) -> str:
    name = slot.lower()
    if "id" in name and "模型" not in name:
        return SAMPLE_ID
    if name in ("n", "编号", "条数") or (command in ("restore", "audit") and name in ("", "{}")):
        return "1"
    return "样例"


def expand(line: str) -> list[str]:
    """`/memory list [--all]` -> ["/memory list", "/memory list --all"]; placeholders get sample values."""
    head, _, rest = line.strip().partition(" ")
    command = head[1:].lower()
    rest = rest.replace("{}", "<{}>")
    variants = _variants(parse_usage(rest), command)
    return sorted({" ".join([head, *words]).strip() for words in variants})


def _variants(node: Node, command: str) -> list[list[str]]:
    if isinstance(node, Word):
        return [[node.text]]
    if isinstance(node, Slot):
        return [] if node.name in _SUBCOMMAND_SLOTS else [[sample(node.name, command)]]
    if isinstance(node, Opt):
        return [[], *_variants(node.body, command)]
    if isinstance(node, Alt):
        return [v for option in node.options for v in _variants(option, command)]
    assert isinstance(node, Seq)
    parts = [_variants(item, command) for item in node.items]
    return [list(itertools.chain.from_iterable(combo)) for combo in itertools.product(*parts)]


def literals(usage: str) -> set[str]:
    """Every literal word of a usage, lower-cased (`--all`, `list`)."""
    found: set[str] = set()
    _collect(parse_usage(usage), found)
    return found


def _collect(node: Node, found: set[str]) -> None:
    if isinstance(node, Word):
        found.add(node.text.lower())
    elif isinstance(node, Seq):
        for item in node.items:
            _collect(item, found)
    elif isinstance(node, Alt):
        for option in node.options:
            _collect(option, found)
    elif isinstance(node, Opt):
        _collect(node.body, found)


def literal_words(spec: CommandSpec) -> set[str]:
    """Every literal sub-command and flag a table row advertises, from its usage and its forms."""
    found = literals(spec.usage.split(maxsplit=1)[1] if " " in spec.usage.strip() else "")
    for form in spec.forms:
        found |= literals(form.args)
    return found


def is_command_line(text: str) -> bool:
    match = _COMMAND.match(text.strip())
    return bool(match) and BUILTIN.find(match.group(1)) is not None and not text.strip().startswith("//")


# ---- the README --------------------------------------------------------------------------------------------


def readme_text() -> str:
    return (ROOT / "README.md").read_text(encoding="utf-8")


def slash_section() -> str:
    text = readme_text()
    start = text.index("### Slash commands")
    return text[start : text.index("\n#", start + 1)]


def readme_spans(text: str) -> list[str]:
    """The README's code spans that are command lines (`\\|` inside a table cell is a plain `|`)."""
    spans = [span.replace("\\|", "|") for span in _CODE_SPAN.findall(text)]
    return [span for span in spans if is_command_line(span)]


# ---- /help -------------------------------------------------------------------------------------------------


def help_usages() -> list[str]:
    """The usage column of /help as printed."""
    lines = BUILTIN.help_text().splitlines()
    return [line.split(" - ")[0].strip() for line in lines if line.strip().startswith("/")]


# ---- messages ----------------------------------------------------------------------------------------------


def _docstrings(tree: ast.AST) -> set[int]:
    found: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                found.add(id(body[0].value))
    return found


def _strings(tree: ast.AST) -> Iterator[str]:
    """Every string literal and f-string (its values as `{}`), outside docstrings."""
    skip = _docstrings(tree)
    parts_of_fstrings: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            text = ""
            for value in node.values:
                parts_of_fstrings.add(id(value))
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    text += value.value
                else:
                    text += "{}"
            yield text
    for node in ast.walk(tree):
        plain = isinstance(node, ast.Constant) and isinstance(node.value, str)
        if plain and id(node) not in skip and id(node) not in parts_of_fstrings:
            yield str(node.value)


def suggestions_in(text: str) -> list[str]:
    """The command lines a message recommends: `/word` and the argument words after it, up to the prose."""
    found: list[str] = []
    for match in _COMMAND.finditer(text):
        if BUILTIN.find(match.group(1)) is None:
            continue
        at = match.end()
        if text.startswith("{}", at):  # `/save{flag} --force …`: a value glued to the command word
            at += 2
        words: list[str] = []
        while (arg := _ARG.match(text, at)) is not None:
            token = arg.group(1)
            if token.startswith("/") or (_HAN.search(token) and token[0] not in "<[("):
                break
            words.append(token)
            at = arg.end()
        while words and words[-1] == "|":
            words.pop()
        found.append(" ".join([f"/{match.group(1)}", *words]))
    return found


def message_lines() -> dict[str, list[str]]:
    """Each recommended command line, with the files it was found in."""
    found: dict[str, list[str]] = {}
    sources = [p for p in SRC.rglob("*.py") if "testing" not in p.parts]
    for path in sorted(sources):
        texts = [t for t in _strings(parsed(path)) if _HAN.search(t)]
        for line in (s for t in texts for s in suggestions_in(t)):
            found.setdefault(line, []).append(str(path.relative_to(ROOT)))
    for path in sorted((SRC / "prompts").rglob("*.md")):
        for line in suggestions_in(path.read_text(encoding="utf-8")):
            found.setdefault(line, []).append(str(path.relative_to(ROOT)))
    return found
