"""The layering of design/architecture.md, as code: no package imports one above it, and no two packages import
each other (the import-linter contract in pyproject.toml states the layers; `.ci/run` runs `lint-imports` too)."""

from __future__ import annotations

import itertools

import grimp
import pytest

LAYERS = (
    ("config", "cancel", "redact", "textsafe", "termsafe", "fsperm", "skipdirs"),
    ("llm",),
    ("context", "prompt", "session"),
    ("memory", "tools", "snapshots"),
    ("mcp",),
    ("agent",),
    ("cli",),
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
