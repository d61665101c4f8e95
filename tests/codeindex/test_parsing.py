"""What the index reads of a file: identifiers split into search terms (and bridged to Chinese through the
glossary), tree-sitter chunks with their symbols, calls and imports, and which files are read at all."""

from __future__ import annotations

from pathlib import Path

from paicli.codeindex.chunker import LONG_CHUNK_LINES, parse_file
from paicli.codeindex.tokens import identifier_parts, query_terms, terms
from paicli.codeindex.walker import project_files

PYTHON = '''import os
from shop.cart import Cart


@dataclass
class Loader(Base):
    """Loads config files."""

    limit = 3

    def load(self, path):
        data = read_text(path)
        return parse_config(data)


# Parses the text of a config file.
def parse_config(text):
    def inner():
        return Config(text)
    return inner()


if __name__ == "__main__":
    main()
'''


def test_identifiers_split_at_case_and_underscores_and_meet_chinese_words() -> None:
    assert identifier_parts("parseHTTPConfig_file") == ["parse", "http", "config", "file"]
    assert {"parsehttpconfig_file", "pars", "http", "config", "file"} <= set(terms("parseHTTPConfig_file"))
    assert set(query_terms("解析配置")) & set(terms("def parse_config(text):"))  # c:解析, c:配置


def test_python_definitions_become_chunks_with_symbols_calls_and_imports() -> None:
    parsed = parse_file("shop/loader.py", PYTHON)
    chunks = {(c.symbol, c.kind): c for c in parsed.chunks}
    load = chunks[("Loader.load", "method")]
    assert (load.start, load.end, load.calls) == (11, 13, ("read_text", "parse_config"))
    header = chunks[("Loader", "class")]
    assert header.start == 5 and header.end == 10  # decorator to the line before its first method
    parse = chunks[("parse_config", "function")]
    assert parse.start == 16 and parse.text.startswith("# Parses the text")  # the comment above belongs to it
    assert "Config" in parse.calls and ("parse_config.inner", "function") not in chunks  # nested stays inside
    assert parsed.imports == ["import os", "from shop.cart import Cart"]
    assert {s.qualified for s in parsed.symbols} >= {"Loader", "Loader.load", "parse_config"}
    module = [c for c in parsed.chunks if c.kind == "module"]
    assert [(c.start, c.calls) for c in module][-1][1] == ("main",)


def test_typescript_and_java_have_their_own_definitions() -> None:
    ts = parse_file(
        "web/api.ts",
        'import { x } from "./y";\n'
        "/** Adds things. */\n"
        "export class Cart {\n  add(item: string) {\n    validate(item);\n  }\n}\n"
        "export const total = (items: number[]) => items.reduce((a, b) => a + b, 0);\n"
        "interface Product { id: string }\n",
    )
    assert {(c.symbol, c.kind) for c in ts.chunks} >= {("Cart.add", "method"), ("total", "function")}
    assert {s.qualified for s in ts.symbols} >= {"Cart", "Product"}
    assert next(c for c in ts.chunks if c.symbol == "Cart").start == 2  # its JSDoc
    java = parse_file(
        "Foo.java",
        "package a;\nimport java.util.List;\n\npublic class Foo {\n"
        "    public void bar() {\n        baz();\n        new Thing<String>();\n    }\n}\n",
    )
    bar = next(c for c in java.chunks if c.symbol == "Foo.bar")
    assert bar.calls == ("baz", "Thing") and java.imports == ["import java.util.List;"]


def test_long_definitions_are_cut_into_windows_that_keep_their_symbol_and_other_files_are_text() -> None:
    body = "\n".join(f"    x{n} = {n}" for n in range(LONG_CHUNK_LINES + 30))
    parsed = parse_file("big.py", f"def big():\n{body}\n")
    assert len(parsed.chunks) >= 2 and {c.symbol for c in parsed.chunks} == {"big"}
    text = parse_file("notes.md", "# Title\n\nsome words\n")
    assert text.language == "text" and text.chunks[0].kind == "text" and not text.symbols


def test_the_walker_leaves_out_skipped_hidden_ignored_huge_and_unknown_files(tmp_path: Path) -> None:
    files = {
        "src/app.py": "x = 1\n",
        "src/gen/out.py": "x = 1\n",
        "src/keep.log.py": "x = 1\n",
        "node_modules/lib/index.js": "x\n",
        ".hidden/secret.py": "x\n",
        "build/a.py": "x\n",
        "docs/a.md": "x\n",
        "docs/tmp/b.md": "x\n",
        "image.png": "x\n",
        "big.py": "x = 1\n" * 200_000,
        "sub/.gitignore": "*.txt\n!keep.txt\n",
        "sub/drop.txt": "x\n",
        "sub/keep.txt": "x\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / ".gitignore").write_text("# generated\nsrc/gen/\n/docs/tmp\n*.log.py\n!src/keep.log.py\n")
    found = [relative for relative, _ in project_files(tmp_path, max_files=100, max_bytes=512 * 1024)]
    assert found == ["docs/a.md", "src/app.py", "src/keep.log.py", "sub/keep.txt"]
    assert len(list(project_files(tmp_path, max_files=2))) == 2
