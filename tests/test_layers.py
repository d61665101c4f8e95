"""The layering of design/architecture.md, as code: no package imports one above it, and no two packages import
each other (the import-linter contract in pyproject.toml states the layers; `.ci/run` runs `lint-imports` too)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import grimp
import pytest

import paicli

LAYERS = (
    (
        "config",
        "cancel",
        "redact",
        "textsafe",
        "termsafe",
        "fsperm",
        "skipdirs",
        "timefmt",
        "deferred",
        "lazyre",
    ),
    ("llm",),
    ("context", "prompt", "session"),
    ("memory", "tools", "snapshots"),
    ("mcp", "codeindex", "lsp", "browser"),
    ("agent",),
    ("cli",),
    ("sdk",),
    ("testing",),
)


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("paicli")


def imports(graph: grimp.ImportGraph, importer: str, imported: str) -> bool:
    return bool(
        graph.direct_import_exists(
            importer=f"paicli.{importer}", imported=f"paicli.{imported}", as_packages=True
        )
    )


def test_no_package_imports_a_higher_layer(graph: grimp.ImportGraph) -> None:
    level = {name: depth for depth, names in enumerate(LAYERS) for name in names}
    wrong = [
        (low, high)
        for low, high in itertools.permutations(level, 2)
        if level[low] < level[high] and imports(graph, low, high)
    ]
    assert wrong == []


def test_no_two_packages_import_each_other(graph: grimp.ImportGraph) -> None:
    names = [name for layer in LAYERS for name in layer]
    cycles = [
        (a, b) for a, b in itertools.combinations(names, 2) if imports(graph, a, b) and imports(graph, b, a)
    ]
    assert cycles == []


def test_every_package_has_a_layer(graph: grimp.ImportGraph) -> None:
    known = {name for layer in LAYERS for name in layer} | {"__main__"}
    packages = {module.split(".")[1] for module in graph.modules if module.count(".") >= 1}
    assert packages <= known, f"place {sorted(packages - known)} in a layer (here and in pyproject.toml)"


def test_no_module_imports_one_that_imports_it_back(graph: grimp.ImportGraph) -> None:
    """No import circle between modules either (imports inside functions and for type checking count): a
    module that needs something of one that needs it is cut apart instead (issue 41)."""
    circles = []
    for importer in sorted(graph.modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer)):
            back = graph.find_shortest_chain(importer=imported, imported=importer)
            if back is not None:
                circles.append((importer, *back))
    assert circles == []


# Reflection left in src/, by file, each with why; the count may only go down (cli/ has none: see
# tests/cli/test_command_table.py). Duck typing of other libraries' objects and platform constants that a
# platform may lack are what remains; paicli's own objects are reached through typed protocols.
JUSTIFIED_REFLECTION = {
    "config/projectfile.py": 1,  # O_NOFOLLOW / O_NONBLOCK where the platform has them
    "llm/attempt.py": 3,  # the SDK's stream: raw response headers, chunk.to_dict across SDK versions
    "llm/failures.py": 4,  # the SDK's and httpx's exceptions: body, message, response headers
    "llm/wire.py": 2,  # the SDK's stream: its httpx response and iter_bytes, across SDK versions
    "llm/probe.py": 1,  # urllib's URLError.reason
    "llm/tool_fallback.py": 2,  # the wrapped client's other members
    "llm/metered.py": 2,  # the same (a wrapper just like it)
    "mcp/hub.py": 4,  # the MCP SDK's annotations, capabilities and exception groups
    "memory/guard.py": 1,  # a save result's written flag
    "memory/manager.py": 3,  # the retriever's optional warm-up and index-flush steps
    "memory/recall_block.py": 1,  # an entry type's enum value
    "session/flock.py": 1,  # O_CLOEXEC where the platform has it
    "snapshots/store.py": 1,  # the same
    "tools/fsio.py": 4,  # O_NOFOLLOW, O_NONBLOCK, O_DIRECTORY, O_CLOEXEC where the platform has them
    "tools/shell.py": 1,  # a pipe's read1 (a Popen's or the fork server's socket file)
    "tools/skills.py": 1,  # YAML's error position
    "tools/web.py": 4,  # urllib's handler internals and error reasons
}
_REFLECTION = re.compile(
    r"\b(getattr|hasattr|setattr|delattr)\(|\b__getattr__\b|\b__import__\(|import_module\("
)


def test_reflection_in_src_only_where_justified_and_never_more() -> None:
    from tests.sources import product_sources

    src = Path(paicli.__file__).parent
    found = {}
    for path in product_sources(src):
        count = sum(1 for line in path.read_text(encoding="utf-8").splitlines() if _REFLECTION.search(line))
        if count:
            found[path.relative_to(src).as_posix()] = count
    grown = {name: count for name, count in found.items() if count > JUSTIFIED_REFLECTION.get(name, 0)}
    assert grown == {}, f"reach these through a typed protocol instead: {grown}"
