"""The quick tier (`pytest -m "not e2e"`) keeps in-process tests of every part of paicli: each package and
top-level module is used by at least one quick test module (what that module imports from paicli)."""

from __future__ import annotations

import re
import types
from collections import Counter
from pathlib import Path

import pytest

import paicli

SRC = Path(paicli.__file__).parent
TESTS = Path(__file__).parent


def parts_of_paicli() -> set[str]:
    """Its packages and top-level modules, by name."""
    found = set()
    for path in SRC.iterdir():
        if path.is_dir() and (path / "__init__.py").exists():
            found.add(path.name)
        elif path.suffix == ".py" and path.stem not in ("__init__", "__main__"):
            found.add(path.stem)
    return found


_IMPORT = re.compile(r"^\s*(?:from|import)\s+paicli\.(\w+)|^\s*from\s+paicli\s+import\s+\(?([\w ,]+)", re.M)


def parts_used(module: types.ModuleType) -> set[str]:
    """The parts of paicli a test module imports (its import lines, constants included; read as text, as
    parsing every test module would cost this check seconds)."""
    used = set()
    for part, names in _IMPORT.findall(Path(str(module.__file__)).read_text(encoding="utf-8")):
        used.update([part] if part else [name.strip() for name in names.split(",") if name.strip()])
    return used


def quick_tests_per_part(items: list[pytest.Item]) -> Counter[str]:
    counts: Counter[str] = Counter()
    for item in items:
        module = getattr(item, "module", None)
        if item.get_closest_marker("e2e") is None and module is not None:
            counts.update(parts_used(module))
    return counts


def test_every_part_of_paicli_keeps_quick_tests(request: pytest.FixtureRequest) -> None:
    config = request.config
    whole = all(Path(arg).resolve() == TESTS for arg in config.args) and not config.option.keyword
    if not whole:
        pytest.skip("needs the whole suite collected (run `pytest` or `pytest -m 'not e2e'`)")
    counts = quick_tests_per_part(request.session.items)
    assert sorted(parts_of_paicli() - set(counts)) == []


def test_a_part_no_quick_test_imports_is_found(tmp_path: Path) -> None:
    source = tmp_path / "test_fake.py"
    source.write_text("import os\nfrom paicli.memory.store import Thing\nfrom paicli import sdk, timefmt\n")
    here = types.ModuleType("test_fake")
    here.__file__ = str(source)

    class Item:
        module = here

        def get_closest_marker(self, name: str) -> object:
            return None

    counts = quick_tests_per_part([Item()])  # type: ignore[list-item]
    assert set(counts) == {"memory", "sdk", "timefmt"} and set(counts) <= parts_of_paicli()
    assert sorted(parts_of_paicli() - set(counts))[:2] == ["agent", "browser"]
