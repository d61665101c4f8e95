"""Per language: its tree-sitter grammar and the node types the chunker reads (data, plus the lazy load of the
grammar packages: a language whose package is missing is indexed as plain text)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cache
from typing import Any


@dataclass(frozen=True)
class Grammar:
    name: str
    definitions: frozenset[str]  # node types that define a symbol (with a `name` field)
    containers: frozenset[str]  # definitions whose members get qualified names (classes)
    calls: dict[str, str]  # call node type -> the field naming what is called
    imports: frozenset[str]
    variable_functions: bool = False  # `const f = () => …` defines f (JavaScript, TypeScript)


_JS_DEFS = frozenset(
    ["function_declaration", "generator_function_declaration", "class_declaration", "method_definition"]
)
_TS_DEFS = _JS_DEFS | frozenset(
    [
        "interface_declaration",
        "type_alias_declaration",
        "enum_declaration",
        "abstract_class_declaration",
        "function_signature",
        "abstract_method_signature",
    ]
)
_JS_CALLS = {"call_expression": "function", "new_expression": "constructor"}
_JS_CONTAINERS = frozenset({"class_declaration", "abstract_class_declaration", "class"})

GRAMMARS = {
    "python": Grammar(
        "python",
        frozenset({"function_definition", "class_definition"}),
        frozenset({"class_definition"}),
        {"call": "function"},
        frozenset({"import_statement", "import_from_statement"}),
    ),
    "javascript": Grammar(
        "javascript",
        _JS_DEFS,
        _JS_CONTAINERS,
        _JS_CALLS,
        frozenset({"import_statement"}),
        variable_functions=True,
    ),
    "typescript": Grammar(
        "typescript",
        _TS_DEFS,
        _JS_CONTAINERS | {"interface_declaration"},
        _JS_CALLS,
        frozenset({"import_statement"}),
        variable_functions=True,
    ),
    "tsx": Grammar(
        "tsx",
        _TS_DEFS,
        _JS_CONTAINERS | {"interface_declaration"},
        _JS_CALLS,
        frozenset({"import_statement"}),
        variable_functions=True,
    ),
    "java": Grammar(
        "java",
        frozenset(
            [
                "class_declaration",
                "interface_declaration",
                "enum_declaration",
                "record_declaration",
                "method_declaration",
                "constructor_declaration",
                "annotation_type_declaration",
            ]
        ),
        frozenset(["class_declaration", "interface_declaration", "enum_declaration", "record_declaration"]),
        {"method_invocation": "name", "object_creation_expression": "type"},
        frozenset({"import_declaration"}),
    ),
}

SUFFIX_LANGUAGE = {
    ".py": "python",
    ".pyi": "python",
    ".js": "javascript",
    ".jsx": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".ts": "typescript",
    ".mts": "typescript",
    ".cts": "typescript",
    ".tsx": "tsx",
    ".java": "java",
}

_lock = threading.Lock()


def _pointer(name: str) -> Any:
    """The grammar package's language pointer (each package is imported only when its language is parsed)."""
    if name == "python":
        import tree_sitter_python

        return tree_sitter_python.language()
    if name == "javascript":
        import tree_sitter_javascript

        return tree_sitter_javascript.language()
    if name in ("typescript", "tsx"):
        import tree_sitter_typescript

        return (
            tree_sitter_typescript.language_tsx()
            if name == "tsx"
            else tree_sitter_typescript.language_typescript()
        )
    import tree_sitter_java

    return tree_sitter_java.language()


@cache
def _language(name: str) -> Any:
    from tree_sitter import Language

    return Language(_pointer(name))


def parser_for(name: str) -> Any | None:
    """A new tree-sitter parser for the language (parsers are not shared between threads), or None when its
    grammar cannot be loaded."""
    try:
        with _lock:
            language = _language(name)
        from tree_sitter import Parser

        return Parser(language)
    except (ImportError, AttributeError, ValueError, OSError):
        return None
