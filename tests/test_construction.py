"""Construct, never assign (issue 41): a collaborator is given to the object that uses it when that object is
built, never set on it afterwards. The attributes that used to be wired by assignment after construction may
only be set by their owner (`self.x = ...`), and the wiring methods that replaced constructor arguments stay
gone."""

from __future__ import annotations

import ast
from pathlib import Path

import paicli
from tests.sources import parsed, product_sources

# collaborators once assigned after construction: the approver's asker, the tool runner's turn hooks, folder
# notes and hooks, the memory's injected-memory listener, a summary's PreCompact / PostCompact hooks; the
# memory's fact extractor (now handed over at each extraction), the runner's workspace checkpoint (now given
# to each turn), the REPL's intro line, the summariser's announce line (now given with each call)
WIRED_ATTRIBUTES = frozenset(
    {
        "handler",
        "turn_hooks",
        "nested",
        "hooks",
        "on_injected",
        "focus_hook",
        "after_hook",
        "extractor",
        "checkpoint",
        "intro",
        "announce",
    }
)
# methods that wired a collaborator in after construction (a list's append on a wired attribute included)
WIRING_CALLS = frozenset({"keep_hooks", "use_llm"})


def wiring_after_construction(source: str | ast.Module) -> list[str]:
    """Every assignment of a wired attribute on another object, and every wiring call, with its line."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source) if isinstance(source, str) else source):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in _flat(target)]
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            targets = [node.target]
        for target in targets:
            if (
                isinstance(target, ast.Attribute)
                and target.attr in WIRED_ATTRIBUTES
                and not _is_self(target.value)
            ):
                found.append((node.lineno, f"{ast.unparse(target)} assigned"))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            name, owner = node.func.attr, node.func.value
            if name in WIRING_CALLS or (
                isinstance(owner, ast.Attribute) and owner.attr in WIRED_ATTRIBUTES and name in _GROWING
            ):
                found.append((node.lineno, f"{ast.unparse(node.func)}() called"))
    return [f"{line}: {what}" for line, what in sorted(found)]


_GROWING = frozenset({"append", "extend", "insert", "add", "update"})


def _flat(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, (ast.Tuple, ast.List)):
        return [t for element in target.elts for t in _flat(element)]
    return [target]


def _is_self(value: ast.expr) -> bool:
    return isinstance(value, ast.Name) and value.id == "self"


def test_the_check_finds_each_kind_of_wiring() -> None:
    source = """
approver.handler = ask
runner.turn_hooks.append(mcp.turn_boundary)
parts.tools.nested, other = notes, 1
manager.keep_hooks(focus, after)
background.use_llm(llm)
memory.on_injected: object = print
self.hooks = hooks
memory.extractor = UsageRecordingExtractor(side, record)
parts.tools.checkpoint = snapshots
repl.intro = intro
self.summariser.announce = announce
"""
    assert [line.split(":")[0] for line in wiring_after_construction(source)] == [
        "2",
        "3",
        "4",
        "5",
        "6",
        "7",
        "9",
        "10",
        "11",
        "12",
    ]


def test_no_collaborator_is_wired_into_an_object_after_construction() -> None:
    src = Path(paicli.__file__).parent
    found = {}
    for path in sorted(product_sources(src)):
        wiring = wiring_after_construction(parsed(path))
        if wiring:
            found[path.relative_to(src).as_posix()] = wiring
    assert found == {}, f"pass these at construction instead: {found}"
