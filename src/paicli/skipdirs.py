"""The folders a walk of the project passes over: version control, dependencies, virtualenvs, tool caches and
build output. Kept at the bottom layer so every walker (tools, the REPL's `@` completion) shares one list."""

from __future__ import annotations

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".paicli",
        "node_modules",
        "__pycache__",
        ".venv",
        "venv",
        "env",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
        "dist",
        "build",
    }
)
